/*
 * compare: reads replay statistics files and checks that each holds every
 * figure the comparison needs, with its type, before anything is printed,
 * so a bad file is reported by name and position (compare.h).  The table
 * itself is built and printed by table.c.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include "ioriot/runfigs.h"
#include "ioriot/textsafe.h"
#include "stats.h"

enum want { W_INT, W_NUMBER, W_STRING, W_OBJECT, W_ARRAY, W_OBJECT_OR_NULL };

static const char *const want_names[] = {
	[W_INT] = "an integer",
	[W_NUMBER] = "a number",
	[W_STRING] = "a string",
	[W_OBJECT] = "an object",
	[W_ARRAY] = "an array",
	[W_OBJECT_OR_NULL] = "an object or null",
};

/* A member a statistics object must have. */
struct field {
	const char *key;
	enum want want;
};

static const struct field run_fields[] = {
	{ "test", W_STRING },
	{ "performed_ioops", W_INT },
	{ "average_ioops_per_s", W_NUMBER },
	{ "time_ahead_ns", W_INT },
	{ "total_time_ns", W_INT },
	{ "highest_loadavg", W_NUMBER },
	{ "start_lateness_ns", W_OBJECT_OR_NULL },
	{ "syscalls", W_OBJECT },
	{ "block_devices", W_ARRAY },
};

/* Members a run may lack: files of older versions have no "rate_limit". */
static const struct field run_optional[] = {
	{ "rate_limit", W_OBJECT_OR_NULL },
};

static const struct field lateness_fields[] = {
	{ "p50", W_INT }, { "p99", W_INT }, { "max", W_INT },
};

static const struct field syscall_fields[] = {
	{ "latency_ns", W_OBJECT },
};

/* Members a syscall may lack: files of older versions have no "short"
 * and "short_bytes". */
static const struct field syscall_optional[] = {
	{ "differ", W_INT }, { "short", W_INT }, { "short_bytes", W_INT },
};

static const struct field latency_fields[] = {
	{ "p50", W_INT }, { "p95", W_INT }, { "p99", W_INT },
	{ "p99.9", W_INT }, { "max", W_INT },
};

static const struct field device_fields[] = {
	{ "device", W_STRING },
	{ "r_per_s", W_NUMBER }, { "w_per_s", W_NUMBER },
	{ "r_mb_per_s", W_NUMBER }, { "w_mb_per_s", W_NUMBER },
	{ "r_await_ms", W_NUMBER }, { "w_await_ms", W_NUMBER },
	{ "util_pct", W_NUMBER },
};

#define NFIELDS(a) (sizeof(a) / sizeof(a[0]))

/* Where messages go while one file is checked. */
struct checker {
	const char *path;
	char *err;
	size_t errlen;
};

void compare_printable(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = text_printable_len(p);

		if (n) {
			p += n;
			continue;
		}
		if (!utf8_seq_len(p) && *p >= 0xa0) {
			/* Printable in 8-bit charsets; JSON shows it as %XX. */
			p++;
			continue;
		}
		for (n = text_char_len(p); n; n--)
			*p++ = '?';
	}
}

void compare_pointer(char *buf, size_t len, const char *parent,
		     const char *key)
{
	size_t n = (size_t)snprintf(buf, len, "%s/", parent);

	for (; *key && n + 3 < len; key++) {
		if (*key == '~' || *key == '/') {
			buf[n++] = '~';
			buf[n++] = *key == '~' ? '0' : '1';
		} else {
			buf[n++] = *key;
		}
	}
	buf[n < len ? n : len - 1] = '\0';
	compare_printable(buf);
}

static bool has_type(const json_t *v, enum want w)
{
	json_type t = json_typeof(v);

	switch (w) {
	case W_INT:
		return t == JSON_INTEGER;
	case W_NUMBER:
		return t == JSON_INTEGER || t == JSON_REAL;
	case W_STRING:
		return t == JSON_STRING;
	case W_OBJECT:
		return t == JSON_OBJECT;
	case W_ARRAY:
		return t == JSON_ARRAY;
	case W_OBJECT_OR_NULL:
		return t == JSON_OBJECT || t == JSON_NULL;
	}
	return false;
}

/* @v (at pointer @where) exists and has type @w.  Returns 0 or -EINVAL
 * with the message. */
static int check_value(const struct checker *ck, const json_t *v,
		       const char *where, enum want w)
{
	if (!v) {
		snprintf(ck->err, ck->errlen, "%s: %s: missing", ck->path,
			 where);
		return -EINVAL;
	}
	if (!has_type(v, w)) {
		snprintf(ck->err, ck->errlen, "%s: %s: expected %s",
			 ck->path, where, want_names[w]);
		return -EINVAL;
	}
	return 0;
}

/* The members @fields of the object @obj at pointer @where. */
static int check_fields(const struct checker *ck, const json_t *obj,
			const char *where, const struct field *fields, size_t n)
{
	char member[COMPARE_LABEL_MAX];
	int ret;

	for (size_t i = 0; i < n; i++) {
		compare_pointer(member, sizeof(member), where, fields[i].key);
		ret = check_value(ck, json_object_get(obj, fields[i].key),
				  member, fields[i].want);
		if (ret)
			return ret;
	}
	return 0;
}

/* Those of the members @fields of @obj at @where that it has. */
static int check_optional(const struct checker *ck,
			  const json_t *obj, const char *where,
			  const struct field *fields, size_t n)
{
	char member[COMPARE_LABEL_MAX];
	int ret;

	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_object_get(obj, fields[i].key);

		if (!v)
			continue;
		compare_pointer(member, sizeof(member), where, fields[i].key);
		ret = check_value(ck, v, member, fields[i].want);
		if (ret)
			return ret;
	}
	return 0;
}

/* At most COMPARE_MAX_ITEMS members or elements in @v at @where. */
static int check_count(const struct checker *ck, const json_t *v,
		       const char *where)
{
	if (jv_count(v) <= COMPARE_MAX_ITEMS)
		return 0;
	snprintf(ck->err, ck->errlen, "%s: %s: more than %d entries",
		 ck->path, where, COMPARE_MAX_ITEMS);
	return -E2BIG;
}

static int check_syscalls(const struct checker *ck,
			  const json_t *sys)
{
	char where[COMPARE_LABEL_MAX], lat[COMPARE_LABEL_MAX];
	int ret = check_count(ck, sys, "/syscalls");

	for (size_t i = 0; !ret && i < jv_count(sys); i++) {
		const json_t *s = jv_at(sys, i);

		compare_pointer(where, sizeof(where), "/syscalls", jv_key(sys, i));
		compare_pointer(lat, sizeof(lat), where, "latency_ns");
		ret = check_value(ck, s, where, W_OBJECT);
		if (!ret)
			ret = check_fields(ck, s, where, syscall_fields,
					   NFIELDS(syscall_fields));
		if (!ret)
			ret = check_optional(ck, s, where, syscall_optional,
					     NFIELDS(syscall_optional));
		if (!ret)
			ret = check_fields(ck, json_object_get(s, "latency_ns"),
					   lat, latency_fields,
					   NFIELDS(latency_fields));
	}
	return ret;
}

static int check_devices(const struct checker *ck,
			 const json_t *devs)
{
	char where[COMPARE_LABEL_MAX];
	int ret = check_count(ck, devs, "/block_devices");

	for (size_t i = 0; !ret && i < jv_count(devs); i++) {
		const json_t *d = jv_at(devs, i);

		snprintf(where, sizeof(where), "/block_devices/%zu", i);
		ret = check_value(ck, d, where, W_OBJECT);
		if (!ret)
			ret = check_fields(ck, d, where, device_fields,
					   NFIELDS(device_fields));
	}
	return ret;
}

/* @doc holds every figure of the table.  0 or -errno with the message. */
static int check_run(const struct checker *ck, const json_t *doc)
{
	const json_t *lat;
	int ret;

	if (!json_is_object(doc)) {
		snprintf(ck->err, ck->errlen, "%s: expected an object of "
			 "replay statistics", ck->path);
		return -EINVAL;
	}
	ret = check_fields(ck, doc, "", run_fields, NFIELDS(run_fields));
	if (!ret)
		ret = check_optional(ck, doc, "", run_optional,
				     NFIELDS(run_optional));
	if (ret)
		return ret;
	lat = json_object_get(doc, "start_lateness_ns");
	if (json_is_object(lat)) {
		ret = check_fields(ck, lat, "/start_lateness_ns",
				   lateness_fields, NFIELDS(lateness_fields));
		if (ret)
			return ret;
	}
	ret = check_syscalls(ck, json_object_get(doc, "syscalls"));
	if (ret)
		return ret;
	return check_devices(ck, json_object_get(doc, "block_devices"));
}

char *compare_label(const char *path, const char *ext)
{
	const char *base = strrchr(path, '/');
	size_t len, elen = strlen(ext);
	char *label;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > elen && !strcmp(base + len - elen, ext))
		len -= elen;
	label = strndup(base, len);
	if (label)
		compare_printable(label);
	return label;
}

int json_failed_msg(const struct jv_error *je, const char *where,
		    char *err, size_t errlen)
{
	if (je->line)
		snprintf(err, errlen, "%s:%u:%u: %s", where, je->line, je->col,
			 je->msg);
	else
		snprintf(err, errlen, "%s: %s", where, je->msg);
	return je->code;
}

/* How run @doc was paced: its "pacing", or for files of older versions
 * without it "timed" when it has start lateness figures, else "fast". */
static const char *pacing_of(const json_t *doc)
{
	const char *p = jv_member_string(doc, "pacing");

	if (p && (!strcmp(p, "timed") || !strcmp(p, "think")))
		return !strcmp(p, "timed") ? "timed" : "think";
	if (p)
		return "fast";
	return json_is_object(json_object_get(doc, "start_lateness_ns")) ?
	       "timed" : "fast";
}

/* The host of a run: "host", or "N hosts" for a merge (--merge), or "-"
 * when not known.  malloc'd; NULL when out of memory. */
static char *host_of(const json_t *doc)
{
	const char *host = jv_member_string(doc, "host");
	const json_t *hosts = json_object_get(doc, "hosts");
	char buf[32];

	if (host)
		return strdup(host);
	if (json_is_array(hosts)) {
		snprintf(buf, sizeof(buf), "%zu hosts", jv_count(hosts));
		return strdup(buf);
	}
	return strdup("-");
}

struct compare *compare_new(void)
{
	return calloc(1, sizeof(struct compare));
}

/* Room for one more run in @c.  0 or -ENOMEM. */
static int grow(struct compare *c)
{
	struct compare_run *nr;
	size_t cap;

	if (c->n < c->cap)
		return 0;
	cap = c->cap ? c->cap * 2 : 8;
	nr = realloc(c->runs, cap * sizeof(*nr));
	if (!nr)
		return -ENOMEM;
	c->runs = nr;
	c->cap = cap;
	return 0;
}

/* The group of a run labelled @name: found, or a new one.  Its index, or
 * -1 when out of memory. */
static ssize_t group_of(struct compare *c, const char *name)
{
	struct compare_group *ng;

	for (size_t g = 0; g < c->ngroups; g++)
		if (!strcmp(c->groups[g].name, name))
			return (ssize_t)g;
	ng = realloc(c->groups, (c->ngroups + 1) * sizeof(*ng));
	if (!ng)
		return -1;
	c->groups = ng;
	if (!(ng[c->ngroups].name = strdup(name)))
		return -1;
	compare_printable(ng[c->ngroups].name);
	ng[c->ngroups].n = 0;
	return (ssize_t)c->ngroups++;
}

/*
 * Add run @doc (checked; a reference taken) of file @path as a column:
 * named after the file, with "#K" for run K of a file of repeated runs
 * (@k > 0); in the group of its label when --label gave one, else of the
 * file's name.  0 or -ENOMEM.
 */
static int add_run(struct compare *c, const char *path, json_t *doc,
		   size_t k)
{
	struct compare_run run = { .doc = doc };
	const char *label = jv_member_string(doc, "label");
	char *base = compare_label(path, ".json");
	ssize_t g;

	if (!base || grow(c))
		goto nomem;
	if (k) {
		if (asprintf(&run.label, "%s#%zu", base, k) < 0)
			run.label = NULL;
	} else {
		run.label = strdup(base);
	}
	run.test = strdup(jv_member_string(doc, "test"));
	run.host = host_of(doc);
	g = group_of(c, label && json_is_true(json_object_get(doc,
			    "label_given")) ? label : base);
	if (!run.label || !run.test || !run.host || g < 0)
		goto nomem;
	compare_printable(run.test);
	compare_printable(run.host);
	run.pacing = pacing_of(doc);
	run_incomplete(doc, &run.why);
	run.group = (size_t)g;
	c->groups[g].n++;
	json_incref(doc);
	c->runs[c->n++] = run;
	free(base);
	return 0;
nomem:
	free(base);
	free(run.label);
	free(run.test);
	free(run.host);
	return -ENOMEM;
}

size_t compare_incomplete(const struct compare *c)
{
	size_t n = 0;

	for (size_t j = 0; j < c->n; j++)
		n += c->runs[j].why.n != 0;
	return n;
}

int compare_add(struct compare *c, const char *path, char *err, size_t errlen)
{
	struct checker ck = { .path = path, .err = err, .errlen = errlen };
	const char *format;
	const json_t *runs;
	struct jv_error je;
	json_t *doc;
	int ret = 0;

	doc = jv_load(path, &je);
	if (!doc)
		return json_failed_msg(&je, path, err, errlen);
	format = jv_member_string(doc, "format");
	if (!format || strcmp(format, STATS_RUNS_FORMAT)) {
		ret = check_run(&ck, doc);
		if (!ret)
			ret = add_run(c, path, doc, 0);
		goto out;
	}
	runs = json_object_get(doc, "runs");
	if (!json_is_array(runs) || !jv_count(runs)) {
		snprintf(err, errlen, "%s: /runs: want a non-empty array", path);
		ret = -EINVAL;
		goto out;
	}
	for (size_t k = 0; !ret && k < jv_count(runs); k++) {
		char where[PATH_MAX + 32];

		/* Its messages name the run: "FILE: /runs/K: /member". */
		snprintf(where, sizeof(where), "%s: /runs/%zu", path, k);
		ck.path = where;
		ret = check_run(&ck, jv_at(runs, k));
		if (!ret)
			ret = add_run(c, path, jv_at(runs, k), k + 1);
	}
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
	json_decref(doc);
	return ret;
}

void compare_free(struct compare *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->runs[i].label);
		free(c->runs[i].test);
		free(c->runs[i].host);
		json_decref(c->runs[i].doc);
	}
	for (size_t g = 0; g < c->ngroups; g++)
		free(c->groups[g].name);
	free(c->groups);
	free(c->runs);
	free(c);
}
