/*
 * uncaptured: counts of the syscalls a capture did not record, by name,
 * their record's syntax and their classes (uncaptured.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/uncaptured.h"

#define ITEM_QUOTE_MAX 40	/* bytes of a bad item quoted */
#define COUNT_DIGITS_MAX 20	/* 2^64 - 1 */

/*
 * The syscalls of the file and I/O API the probe does not capture: what
 * they do to files, or the I/O they submit, is missing from the replay.
 * Not here, so counted among the others: what only waits, signals or
 * watches (epoll, poll, inotify, fanotify), sockets and pipes, memory
 * management without files, process and time calls.
 */
static const char *const file_io_names[] = {
	/* Asynchronous I/O: the reads and writes themselves. */
	"io_setup", "io_destroy", "io_submit", "io_cancel", "io_getevents",
	"io_pgetevents", "io_uring_setup", "io_uring_enter",
	"io_uring_register",
	/* Extended attributes. */
	"setxattr", "lsetxattr", "fsetxattr", "setxattrat",
	"getxattr", "lgetxattr", "fgetxattr", "getxattrat",
	"listxattr", "llistxattr", "flistxattr", "listxattrat",
	"removexattr", "lremovexattr", "fremovexattr", "removexattrat",
	"file_getattr", "file_setattr",
	/* Data moved between fds, or about a file's pages. */
	"splice", "tee", "vmsplice", "madvise", "process_madvise",
	"remap_file_pages", "cachestat", "fadvise64_64", "arm_fadvise64_64",
	"sync_file_range2", "arm_sync_file_range",
	/* Files made, locked, opened or changed another way. */
	"ioctl", "flock", "mknod", "mknodat", "memfd_create",
	"name_to_handle_at", "open_by_handle_at", "utime", "utimes",
	"futimesat", "chroot",
	/* The probe cannot tell what these were. */
	UNCAP_OTHER_ABI,
};

int uncaptured_add(struct uncaptured *u, const char *name, uint64_t count)
{
	size_t len = strlen(name);

	if (len == 0 || len >= UNCAP_NAME_MAX ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
		return -EINVAL;
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(u->v[i].name, name) == 0)
			return -EEXIST;
	if (u->n == UNCAP_MAX)
		return -E2BIG;
	memcpy(u->v[u->n].name, name, len + 1);
	u->v[u->n++].count = count;
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct uncap_count *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->name, y->name);
}

void uncaptured_sort(struct uncaptured *u)
{
	qsort(u->v, u->n, sizeof(u->v[0]), by_count);
}

/* Parse @len plain decimal digits at @s into *@out.  False if there are
 * none, others, or the value overflows. */
static bool parse_count(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0 || len > COUNT_DIGITS_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

const char *uncaptured_parse(struct uncaptured *u, const char *s, size_t len,
			     char item[48])
{
	const char *end = s + len, *why = NULL;

	memset(u, 0, sizeof(*u));
	while (s < end && !why) {
		const char *bar = memchr(s, '|', (size_t)(end - s));
		const char *eq = bar ? memchr(s, '=', (size_t)(bar - s)) : NULL;
		size_t ilen = bar ? (size_t)(bar - s) : (size_t)(end - s);
		char name[UNCAP_NAME_MAX];
		uint64_t count;
		int rc = -EINVAL;

		snprintf(item, 48, "%.*s", ilen > ITEM_QUOTE_MAX ?
			 ITEM_QUOTE_MAX : (int)ilen, s);
		if (!bar)
			why = "item not ended by |";
		else if (!eq || !parse_count(eq + 1, (size_t)(bar - eq - 1),
					     &count))
			why = "item is not NAME=COUNT";
		else if ((size_t)(eq - s) < sizeof(name)) {
			memcpy(name, s, (size_t)(eq - s));
			name[eq - s] = '\0';
			rc = uncaptured_add(u, name, count);
		}
		if (!why && rc == -EEXIST)
			why = "syscall named twice";
		else if (!why && rc == -E2BIG)
			why = "more than 512 syscalls";
		else if (!why && rc)
			why = "bad syscall name";
		s = bar ? bar + 1 : end;
	}
	if (why) {
		memset(u, 0, sizeof(*u));
		return why;
	}
	item[0] = '\0';
	uncaptured_sort(u);
	u->known = true;
	return NULL;
}

void uncaptured_write_as(struct outbuf *ob, const char *prefix,
			 const struct uncaptured *u)
{
	outbuf_puts(ob, prefix);
	for (size_t i = 0; i < u->n; i++)
		outbuf_meta_u64(ob, u->v[i].name, u->v[i].count);
	outbuf_putc(ob, '\n');
}

void uncaptured_write(struct outbuf *ob, const struct uncaptured *u)
{
	uncaptured_write_as(ob, UNCAP_PREFIX, u);
}

bool uncaptured_is_file_io(const char *name)
{
	if (strncmp(name, "syscall_", 8) == 0)
		return true;
	for (size_t i = 0; i < sizeof(file_io_names) / sizeof(file_io_names[0]); i++)
		if (strcmp(name, file_io_names[i]) == 0)
			return true;
	return false;
}

uint64_t uncaptured_other(const struct uncaptured *u)
{
	uint64_t n = 0;

	for (size_t i = 0; i < u->n; i++)
		if (!uncaptured_is_file_io(u->v[i].name))
			n += u->v[i].count;
	return n;
}

uint64_t uncaptured_file_io(const struct uncaptured *u)
{
	uint64_t n = 0;

	for (size_t i = 0; i < u->n; i++)
		if (uncaptured_is_file_io(u->v[i].name))
			n += u->v[i].count;
	return n;
}

/* Print the names of @u, only those of the file I/O API if @file_io. */
static void print_names(FILE *f, const struct uncaptured *u, bool json,
			bool file_io)
{
	const char *sep = "";

	for (size_t i = 0; i < u->n; i++) {
		if (file_io && !uncaptured_is_file_io(u->v[i].name))
			continue;
		fprintf(f, json ? "%s\"%s\": %" PRIu64 : "%s%s %" PRIu64, sep,
			u->v[i].name, u->v[i].count);
		sep = ", ";
	}
}

void uncaptured_print_file_io(FILE *f, const struct uncaptured *u, bool json)
{
	print_names(f, u, json, true);
}

void uncaptured_print_all(FILE *f, const struct uncaptured *u, bool json)
{
	print_names(f, u, json, false);
}
