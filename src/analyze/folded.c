/*
 * folded: the operations as folded stacks, one line per distinct stack
 * "process;syscall;dir;...;file WEIGHT", as flamegraph.pl, inferno and
 * speedscope read them.  Frames hold no ';', no white space and nothing a
 * terminal would not print: such characters become '_'.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze.h"
#include "ioriot/outfile.h"
#include "ioriot/textsafe.h"

/* The folded stack of @op: process, syscall, file. */
void an_fold(struct an *a, uint32_t proc, const struct rlog_op *op,
		 uint32_t file, uint64_t bytes)
{
	uint64_t key = (uint64_t)(proc & AN_STACK_PROC) << 40 |
		       (uint64_t)op->sys << 32 | file;
	uintptr_t i = (uintptr_t)u64map_get(&a->stack_ids, key);

	if (!i && a->nstacks >= a->files.max && file != AN_OTHER) {
		/* past the cap: the process's syscall on "(other)" */
		key = (key & ~(uint64_t)UINT32_MAX) | AN_OTHER;
		i = (uintptr_t)u64map_get(&a->stack_ids, key);
	}
	if (!i) {
		if (a->nstacks == a->stacks_cap) {
			size_t cap = a->stacks_cap ? a->stacks_cap * 2 : 256;
			struct an_stack *s = realloc(a->stacks,
						     cap * sizeof(*s));
			if (!s) {
				an_oom(a);
				return;
			}
			a->stacks = s;
			a->stacks_cap = cap;
		}
		i = ++a->nstacks;
		memset(&a->stacks[i - 1], 0, sizeof(a->stacks[0]));
		a->stacks[i - 1].key = key;
		if (u64map_put(&a->stack_ids, key, (void *)i)) {
			a->nstacks--;
			an_oom(a);
			return;
		}
	}
	struct an_stack *s = &a->stacks[i - 1];
	s->ops++;
	s->bytes += bytes;
	s->time_ns += op->dur_ns;
}

/* Write @len bytes of @s as (part of) a frame: the separators ';' and
 * space, and what a terminal would not print (textsafe.h), become '_'.
 * A character never spans the end: @s[@len] is '/' or NUL. */
static void frame(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;

	while (p < end) {
		size_t n = text_printable_len(p);

		if (n && *p != ';' && *p != ' ') {
			fwrite(p, 1, n, f);
		} else {
			fputc('_', f);
			n = text_char_len(p);
		}
		p += n;
	}
}

/* The frames of a file path: one per component. */
static void path_frames(FILE *f, const char *path)
{
	bool any = false;

	while (*path) {
		size_t skip = strspn(path, "/"), len;
		path += skip;
		len = strcspn(path, "/");
		if (!len)
			break;
		fputc(';', f);
		frame(f, path, len);
		path += len;
		any = true;
	}
	if (!any)
		fputs(";/", f);
}

static uint64_t weight_of(const struct an_stack *s, enum analyze_weight w)
{
	switch (w) {
	case ANALYZE_WEIGHT_BYTES: return s->bytes;
	case ANALYZE_WEIGHT_TIME: return s->time_ns;
	default: return s->ops;
	}
}

int an_write_folded(const struct an *a, const char *path, const char *input,
		    enum analyze_weight w, char *err, size_t errlen)
{
	int dirfd = -1, rc = 0;
	int fd = outfile_open(path, 0644, OUTFILE_TRUNCATE, input, &dirfd, err,
			      errlen);
	struct stat mine = { 0 }, now;
	FILE *f;

	if (fd < 0)
		return fd;
	if (fstat(fd, &mine)) {
		rc = -errno;
		close(fd);
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		rc = -errno;
		close(fd);
		goto out;
	}
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct an_stack *s = &a->stacks[i];
		uint64_t weight = weight_of(s, w);
		uint32_t proc = (uint32_t)(s->key >> 40);

		if (proc == AN_STACK_PROC)
			proc = AN_OTHER;
		uint32_t file = (uint32_t)s->key;
		enum sys_id sys = (enum sys_id)((s->key >> 32) & 0xff);
		const char *name;

		if (!weight)
			continue;
		name = an_row_name(&a->procs, an_row(&a->procs, proc));
		frame(f, name ? name : "(other)", strlen(name ? name : "(other)"));
		fprintf(f, ";%s", sys_info(sys)->replay_name);
		if (file == AN_OTHER)
			fputs(";(other)", f);
		else if (file != AN_NONE)
			path_frames(f, an_row_name(&a->files,
						   an_row(&a->files, file)));
		fprintf(f, " %" PRIu64 "\n", weight);
	}
	if (fflush(f))
		rc = -errno;	/* ENOSPC, EFBIG: the reason, not just EIO */
	else if (ferror(f))
		rc = -EIO;
	if (fclose(f) && !rc)
		rc = -errno;
out:
	if (rc) {
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		/* Removed only while the name is still this file. */
		if (!fstatat(dirfd, outfile_base(path), &now,
			     AT_SYMLINK_NOFOLLOW) && now.st_dev == mine.st_dev &&
		    now.st_ino == mine.st_ino)
			unlinkat(dirfd, outfile_base(path), 0);
	}
	close(dirfd);
	return rc;
}
