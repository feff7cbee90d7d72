/*
 * merge: a fleet's replay statistics summed into one document (merge.h).
 * The files are read and checked as --compare checks them (compare.c),
 * then for what a sum needs: the same format_version, the histograms, the
 * start time.  Counts are summed; histograms are summed bucket by bucket
 * and percentiles are taken from the sums, never averaged; maxima are the
 * largest; the duration is the span from the first start to the last end.
 * Runs of different rate caps are refused.  mergeout.c writes the sum.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/merge.h"
#include "ioriot/replay.h"
#include "ioriot/report.h"
#include "mergesum.h"

/* Where messages go while one file is read. */
struct reader {
	const char *path;
	char *err;
	size_t errlen;
};

/* The message "FILE: POINTER: WHAT", with @where the JSON pointer (RFC
 * 6901) of the value; returns -EINVAL. */
static int bad(const struct reader *rd, const char *where, const char *what)
{
	snprintf(rd->err, rd->errlen, "%s: %s: %s", rd->path, where, what);
	return -EINVAL;
}

/* Member @key of @obj (at @where) as an integer >= 0. */
static int get_u64(const struct reader *rd, const json_t *obj,
		   const char *where, const char *key, uint64_t *out)
{
	const json_t *v = json_object_get(obj, key);
	char member[COMPARE_LABEL_MAX];
	int64_t i;

	compare_pointer(member, sizeof(member), where, key);
	if (!v)
		return bad(rd, member, "missing");
	if (jv_int(v, &i) || i < 0)
		return bad(rd, member, "expected an integer >= 0");
	*out = (uint64_t)i;
	return 0;
}

/* Add @n to @key in @l.  0 or -ENOMEM. */
static int namelist_add(struct namelist *l, const char *key, int64_t n)
{
	for (size_t i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].key, key)) {
			l->v[i].n += n;
			return 0;
		}
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct named *nv = realloc(l->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	l->v[l->n].key = strdup(key);
	if (!l->v[l->n].key)
		return -ENOMEM;
	l->v[l->n++].n = n;
	return 0;
}

/* The integer members of the object @obj (at @where) added to @l. */
static int namelist_sum(const struct reader *rd, struct namelist *l,
			const json_t *obj, const char *where)
{
	if (type_of(obj) != JSON_OBJECT)
		return bad(rd, where, "expected an object");
	for (size_t i = 0; i < jv_count(obj); i++) {
		char member[COMPARE_LABEL_MAX];
		int64_t n;

		compare_pointer(member, sizeof(member), where, jv_key(obj, i));
		if (jv_int(jv_at(obj, i), &n) || n < 0)
			return bad(rd, member, "expected an integer >= 0");
		if (namelist_add(l, jv_key(obj, i), n))
			return -ENOMEM;
	}
	return 0;
}

static void namelist_free(struct namelist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].key);
	free(l->v);
}

/*
 * Add the histogram member @key of @obj (at @where), [[LE, COUNT], ...]
 * with LE the largest value of a bucket (replay_hist_top()), to @h; its
 * total count goes to *@total.  The log2 buckets of an older ioriot end
 * at 2^b - 1, a bucket's largest value too: their counts go there.
 */
static int histogram_sum(const struct reader *rd, const json_t *obj,
			 const char *where, const char *key,
			 uint64_t h[REPLAY_HIST_BUCKETS], uint64_t *total)
{
	const json_t *a = json_object_get(obj, key);
	char member[COMPARE_LABEL_MAX], pair[COMPARE_LABEL_MAX + 24];

	compare_pointer(member, sizeof(member), where, key);
	if (!a)
		return bad(rd, member, "missing (statistics of an ioriot "
			   "without histograms: percentiles cannot be merged)");
	if (type_of(a) != JSON_ARRAY)
		return bad(rd, member, "expected an array");
	*total = 0;
	for (size_t i = 0; i < jv_count(a); i++) {
		const json_t *p = jv_at(a, i);
		int64_t le, count;
		unsigned b;

		snprintf(pair, sizeof(pair), "%s/%zu", member, i);
		if (type_of(p) != JSON_ARRAY || jv_count(p) != 2 ||
		    jv_int(jv_at(p, 0), &le) ||
		    jv_int(jv_at(p, 1), &count) || le < 0 || count < 0)
			return bad(rd, pair, "expected a pair [largest "
				   "value of a bucket, count >= 0]");
		b = replay_hist_bucket((uint64_t)le);
		if (replay_hist_top(b) != (uint64_t)le)
			return bad(rd, pair, "a value that is no bucket's "
				   "largest");
		h[b] += (uint64_t)count;
		*total += (uint64_t)count;
	}
	return 0;
}

/* The summed syscall named @name, added if new; NULL when out of memory. */
static struct msys *sys_of(struct merge *m, const char *name)
{
	for (size_t i = 0; i < m->nsys; i++)
		if (!strcmp(m->sys[i].name, name))
			return &m->sys[i];
	if (m->nsys == m->capsys) {
		size_t cap = m->capsys ? m->capsys * 2 : 32;
		struct msys *ns = realloc(m->sys, cap * sizeof(*ns));

		if (!ns)
			return NULL;
		m->sys = ns;
		m->capsys = cap;
	}
	memset(&m->sys[m->nsys], 0, sizeof(m->sys[0]));
	m->sys[m->nsys].name = strdup(name);
	if (!m->sys[m->nsys].name)
		return NULL;
	return &m->sys[m->nsys++];
}

/* Add syscall @name's figures @s (at @where) to @m. */
static int add_syscall(struct merge *m, const struct reader *rd,
		       const char *name, const json_t *s,
		       const char *where)
{
	struct msys *ms = sys_of(m, name);
	uint64_t ops, bytes = 0, differ = 0, short_ops = 0, short_bytes = 0;
	uint64_t lmax, cmax, total, cap_total;
	char lat[COMPARE_LABEL_MAX + 32], cap[COMPARE_LABEL_MAX + 32];
	const json_t *by = json_object_get(s, "differ_by_result");
	int ret;

	if (!ms)
		return -ENOMEM;
	compare_pointer(lat, sizeof(lat), where, "latency_ns");
	compare_pointer(cap, sizeof(cap), where, "captured_latency_ns");
	ret = get_u64(rd, s, where, "ops", &ops);
	if (!ret)
		ret = get_u64(rd, s, where, "bytes", &bytes);
	if (!ret)
		ret = get_u64(rd, s, where, "differ", &differ);
	if (!ret)
		ret = get_u64(rd, s, where, "short", &short_ops);
	if (!ret)
		ret = get_u64(rd, s, where, "short_bytes", &short_bytes);
	if (!ret)
		ret = get_u64(rd, json_object_get(s, "latency_ns"), lat, "max",
			      &lmax);
	if (!ret)
		ret = get_u64(rd, json_object_get(s, "captured_latency_ns"),
			      cap, "max", &cmax);
	if (!ret)
		ret = histogram_sum(rd, s, where, "latency_histogram", ms->lat,
				    &total);
	if (!ret)
		ret = histogram_sum(rd, s, where, "captured_latency_histogram",
				    ms->cap_lat, &cap_total);
	if (!ret && (total != ops || cap_total != ops))
		ret = bad(rd, where, "the histograms' counts differ from "
			  "ops");
	if (!ret && by) {
		char at[COMPARE_LABEL_MAX + 32];

		compare_pointer(at, sizeof(at), where, "differ_by_result");
		ret = namelist_sum(rd, &ms->by_result, by, at);
	}
	if (ret)
		return ret;
	ms->ops += ops;
	ms->bytes += bytes;
	ms->differ += differ;
	ms->short_ops += short_ops;
	ms->short_bytes += short_bytes;
	if (lmax > ms->lat_max)
		ms->lat_max = lmax;
	if (cmax > ms->cap_lat_max)
		ms->cap_lat_max = cmax;
	return 0;
}

/* The test names so far, @name added unless there. */
static void add_test(struct merge *m, const char *name)
{
	size_t len = strlen(m->test), nlen = strlen(name);
	const char *p = m->test;

	while ((p = strstr(p, name))) {
		if ((p == m->test || !strncmp(p - 2, ", ", 2)) &&
		    (!p[nlen] || !strncmp(p + nlen, ", ", 2)))
			return;
		p++;
	}
	if (len + nlen + 3 < sizeof(m->test))
		snprintf(m->test + len, sizeof(m->test) - len, "%s%s",
			 len ? ", " : "", name);
}

/* Member @key of the objects @a and @b is the same JSON, or neither has
 * it. */
static bool same_member(const json_t *a, const json_t *b, const char *key)
{
	const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);

	return x && y ? json_equal(x, y) : x == y;
}

/* The rate caps of run @doc (file @i): those of the first run, else the
 * sum would hide that some hosts were held back more than others; their
 * throttling summed.  0 or -EINVAL with the message. */
static int add_rate(struct merge *m, size_t i, const json_t *doc,
		    const struct reader *rd, const char *first_path)
{
	const json_t *v = json_object_get(doc, "rate_limit");
	char where[64], what[256];
	int ret = 0;

	if (type_of(v) == JSON_NULL)
		v = NULL;		/* checked: an object or null */
	if (!i) {
		m->rate = v;
	} else if ((!m->rate != !v) || (v && (!same_member(m->rate, v, "per") ||
		   !same_member(m->rate, v, "iops") ||
		   !same_member(m->rate, v, "mbps")))) {
		snprintf(what, sizeof(what), "other rate caps than %s's "
			 "(--rate-iops, --rate-mbps): runs of different caps "
			 "are compared (--compare), not merged", first_path);
		return bad(rd, "/rate_limit", what);
	}
	for (int c = 0; v && c < 2 && !ret; c++) {
		const json_t *cl = json_object_get(v, merge_rate_classes[c]);
		uint64_t ops, throttled, delay, max;

		snprintf(where, sizeof(where), "/rate_limit/%s", merge_rate_classes[c]);
		ret = get_u64(rd, cl, where, "ops", &ops);
		if (!ret)
			ret = get_u64(rd, cl, where, "throttled", &throttled);
		if (!ret)
			ret = get_u64(rd, cl, where, "delay_total_ns", &delay);
		snprintf(where, sizeof(where), "/rate_limit/%s/delay_ns",
			 merge_rate_classes[c]);
		if (!ret)
			ret = get_u64(rd, json_object_get(cl, "delay_ns"), where,
				      "max", &max);
		if (ret)
			break;
		m->rate_ops[c] += ops;
		m->throttled[c] += throttled;
		m->delay_ns[c] += delay;
		if (max > m->delay_max[c])
			m->delay_max[c] = max;
	}
	return ret;
}

/* The count @key of @doc, 0 where a file older than the key lacks it. */
static uint64_t optional_count(const json_t *doc, const char *key)
{
	int64_t n;

	return !jv_int(json_object_get(doc, key), &n) && n > 0 ? (uint64_t)n : 0;
}

/* Add the run @doc of file @i to @m. */
static int add_run(struct merge *m, size_t i, const json_t *doc,
		   const struct reader *rd)
{
	uint64_t started, finished, total, ops, u[8], skew_abs, lmax;
	static const char *const keys[8] = {
		"workers", "threads_per_worker", "threads", "processes",
		"timelines", "captured_time_ns", "setid_stripped",
		"uring_flags_dropped",
	};
	const json_t *sys = json_object_get(doc, "syscalls");
	const json_t *v, *at;
	char where[COMPARE_LABEL_MAX];
	int64_t ahead, skew;
	double load;
	int ret = 0;

	for (int k = 0; k < 8 && !ret; k++)
		ret = get_u64(rd, doc, "", keys[k], &u[k]);
	if (!ret)
		ret = get_u64(rd, doc, "", "started_ns", &started);
	if (!ret)
		ret = get_u64(rd, doc, "", "finished_ns", &finished);
	if (!ret)
		ret = get_u64(rd, doc, "", "total_time_ns", &total);
	if (!ret)
		ret = get_u64(rd, doc, "", "performed_ioops", &ops);
	if (ret)
		return ret;
	jv_int(json_object_get(doc, "time_ahead_ns"), &ahead);	/* checked */
	jv_number(json_object_get(doc, "highest_loadavg"), &load);
	m->workers += u[0];
	if (u[1] > m->threads_per_worker)
		m->threads_per_worker = u[1];
	m->threads += u[2];
	m->processes += u[3];
	m->timelines += u[4];
	if (u[5] > m->captured)
		m->captured = u[5];
	m->setid += u[6];
	m->uring_dropped += u[7];
	m->ops += ops;
	if (!i || started < m->first_start)
		m->first_start = started;
	if (started > m->last_start)
		m->last_start = started;
	if (started + total > m->last_end)
		m->last_end = started + total;
	if (finished > m->last_finished)
		m->last_finished = finished;
	if (!i || ahead < m->ahead)
		m->ahead = ahead;
	if (load > m->loadavg)
		m->loadavg = load;
	m->interrupted |= json_is_true(json_object_get(doc, "interrupted"));
	/* A host whose disk filled, or that met I/O errors or the replay's
	 * limits, leaves the merge as incomplete as itself. */
	m->disk_full_ops += optional_count(doc, "disk_full_ops");
	if (json_is_true(json_object_get(doc, "disk_full")) &&
	    !optional_count(doc, "disk_full_ops"))
		m->disk_full_ops++;
	m->io_error_ops += optional_count(doc, "io_error_ops");
	m->over_limit += optional_count(doc, "over_limit");
	add_test(m, jv_member_string(doc, "test"));

	/* Start lateness, when the run was timed. */
	v = json_object_get(doc, "start_lateness_ns");
	if (type_of(v) == JSON_OBJECT) {
		uint64_t n;
		int64_t max;

		m->timed = true;

		jv_int(json_object_get(v, "max"), &max);	/* checked */
		lmax = max > 0 ? (uint64_t)max : 0;
		if (lmax > m->lateness_max)
			m->lateness_max = lmax;
		ret = histogram_sum(rd, doc, "", "start_lateness_histogram",
				    m->lateness, &n);
		if (ret)
			return ret;
	}

	/* --start-at: a common target? */
	at = json_object_get(doc, "start_at");
	if (type_of(at) == JSON_OBJECT) {
		uint64_t target;

		ret = get_u64(rd, at, "/start_at", "target_ns", &target);
		if (!ret && jv_int(json_object_get(at, "skew_ns"), &skew))
			ret = bad(rd, "/start_at/skew_ns",
				  "expected an integer");
		if (ret)
			return ret;
		if (!i)
			m->target = target;
		m->same_target &= target == m->target;
		skew_abs = skew < 0 ? (uint64_t)-skew : (uint64_t)skew;
		if (skew_abs > (uint64_t)(m->worst_skew < 0 ? -m->worst_skew :
					  m->worst_skew))
			m->worst_skew = skew;
	} else {
		m->same_target = false;
	}

	v = json_object_get(doc, "uncaptured");
	if (type_of(v) == JSON_OBJECT) {
		int64_t other;

		m->have_uncaptured = true;
		ret = namelist_sum(rd, &m->not_replayed,
				   json_object_get(v, "not_replayed"),
				   "/uncaptured/not_replayed");
		if (!ret && jv_int(json_object_get(v, "other"), &other))
			ret = bad(rd, "/uncaptured/other",
				  "expected an integer");
		if (ret)
			return ret;
		m->other += other;
	}
	v = json_object_get(doc, "uring_not_replayed");
	if (type_of(v) == JSON_OBJECT) {
		m->have_uring = true;
		ret = namelist_sum(rd, &m->uring, v, "/uring_not_replayed");
		if (ret)
			return ret;
	}

	for (size_t s = 0; s < jv_count(sys) && !ret; s++) {
		compare_pointer(where, sizeof(where), "/syscalls", jv_key(sys, s));
		ret = add_syscall(m, rd, jv_key(sys, s), jv_at(sys, s),
				  where);
	}
	return ret;
}

/* The format and format_version of @doc: this ioriot's and the first
 * file's (@first, NULL for the first). */
static int check_format(const struct reader *rd, const json_t *doc,
			const json_t *first, const char *first_path)
{
	const json_t *fmt = json_object_get(doc, "format");
	const json_t *ver = json_object_get(doc, "format_version");
	int64_t v, fv;
	char what[256];

	if (!fmt || !json_string_value(fmt) || strcmp(json_string_value(fmt),
						"ioriot-stats"))
		return bad(rd, "/format",
			   "expected \"ioriot-stats\" (replay statistics)");
	if (jv_int(ver, &v))
		return bad(rd, "/format_version",
			   "expected an integer");
	if (first && !jv_int(json_object_get(first, "format_version"), &fv) &&
	    fv != v) {
		snprintf(what, sizeof(what), "%" PRId64 ", but %s has %" PRId64
			 ": statistics of different formats are not merged",
			 v, first_path, fv);
		return bad(rd, "/format_version", what);
	}
	if (v != REPORT_JSON_VERSION) {
		snprintf(what, sizeof(what), "%" PRId64 ", this ioriot reads "
			 "%d", v, REPORT_JSON_VERSION);
		return bad(rd, "/format_version", what);
	}
	return 0;
}

struct merge *merge_load(char *const *paths, size_t n, char *err,
			 size_t errlen)
{
	struct merge *m = calloc(1, sizeof(*m));
	int ret = -ENOMEM;

	if (!m || !(m->c = compare_new()))
		goto nomem;
	m->paths = paths;
	m->same_target = true;
	for (size_t i = 0; i < n; i++) {
		struct reader rd = { paths[i], err, errlen };

		ret = compare_add(m->c, paths[i], err, errlen);
		if (!ret)
			ret = check_format(&rd, m->c->runs[i].doc,
					   i ? m->c->runs[0].doc : NULL,
					   paths[0]);
		if (!ret)
			ret = add_run(m, i, m->c->runs[i].doc, &rd);
		if (!ret)
			ret = add_rate(m, i, m->c->runs[i].doc, &rd, paths[0]);
		if (ret == -ENOMEM)
			goto nomem;
		if (ret)
			goto fail;
	}
	return m;

nomem:
	snprintf(err, errlen, "out of memory");
fail:
	merge_free(m);
	return NULL;
}

void merge_free(struct merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nsys; i++) {
		free(m->sys[i].name);
		namelist_free(&m->sys[i].by_result);
	}
	free(m->sys);
	namelist_free(&m->not_replayed);
	namelist_free(&m->uring);
	compare_free(m->c);
	free(m);
}
