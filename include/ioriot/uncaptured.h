/*
 * uncaptured: the syscalls a capture saw but did not record, counted by
 * name.  The BPF capture writes them into the capture log as the record
 * "#|uncaptured|NAME=N|...|" (docs/capture-format.md §1.2), the generator
 * carries the line into the replay file's header (docs/replay-format.md
 * §2), and the summaries print them in two classes: syscalls of the file
 * and I/O API that the replay therefore lacks ("not replayed"), and all
 * the others (futex, epoll, sockets, ...), shown as one total.
 */
#ifndef IORIOT_UNCAPTURED_H
#define IORIOT_UNCAPTURED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ioriot/outbuf.h"

#define UNCAP_MAX 512		/* names in one record */
#define UNCAP_NAME_MAX 32	/* bytes of a name, with its NUL */

/* The record's prefix, in capture logs and replay headers alike. */
#define UNCAP_PREFIX "#|uncaptured|"
#define UNCAP_PREFIX_LEN (sizeof(UNCAP_PREFIX) - 1)

/* The prefix of the same kind of list in a replay header: the io_uring
 * requests the generator did not write, by opcode name
 * (docs/replay-format.md §2). */
#define URING_SKIPPED_PREFIX "#|uring_skipped|"

/* The name counted for syscalls of another ABI than the native one
 * (32-bit compat, x32): the probe captures none of them. */
#define UNCAP_OTHER_ABI "non_native_abi"

struct uncap_count {
	char name[UNCAP_NAME_MAX];
	uint64_t count;
};

struct uncaptured {
	bool known;		/* false: the log or file had no record */
	size_t n;
	struct uncap_count v[UNCAP_MAX];
};

/*
 * Add @count calls of syscall @name (1 to UNCAP_NAME_MAX - 1 bytes of
 * [a-z0-9_]) to @u.  Returns 0, -EINVAL for a bad name, -EEXIST if @u has
 * @name already, -E2BIG if @u is full.
 */
int uncaptured_add(struct uncaptured *u, const char *name, uint64_t count);

/* Order @u by count, the highest first, then by name. */
void uncaptured_sort(struct uncaptured *u);

/*
 * Parse the items of a record, the @len bytes at @s after its prefix
 * ("NAME=N|NAME=N|"; none at all is a record of nothing), into @u, which
 * is reset first, then sorted, and marked known.  @s is not changed.
 * Returns NULL, or what is wrong (a static string; @u is then unknown);
 * the offending item, up to 40 bytes, goes to @item.
 */
const char *uncaptured_parse(struct uncaptured *u, const char *s, size_t len,
			     char item[48]);

/* Write @u as one record line, "#|uncaptured|NAME=N|...|\n", in @u's
 * order.  Errors are sticky in @ob. */
void uncaptured_write(struct outbuf *ob, const struct uncaptured *u);

/* Write @u as one line "PREFIXNAME=N|...|\n" with @prefix (such as
 * URING_SKIPPED_PREFIX), in @u's order.  Errors are sticky in @ob. */
void uncaptured_write_as(struct outbuf *ob, const char *prefix,
			 const struct uncaptured *u);

/* Print every name of @u with its count, in @u's order: "send 12,
 * timeout 3" (@json false), or as JSON members "\"send\": 12, ..."
 * (@json true); nothing if @u is empty. */
void uncaptured_print_all(FILE *f, const struct uncaptured *u, bool json);

/*
 * True if syscall @name belongs to the file and I/O API that ioriot
 * replays in part (aio, io_uring, xattrs, ioctl, splice, flock, mknod,
 * ...), and for the names the probe cannot tell (UNCAP_OTHER_ABI, and
 * "syscall_N" for a number without a name): the capture missing them
 * means I/O is missing from the replay.
 */
bool uncaptured_is_file_io(const char *name);

/* The sum of the counts of @u's syscalls that are not file I/O. */
uint64_t uncaptured_other(const struct uncaptured *u);

/* The sum of the counts of @u's file I/O syscalls. */
uint64_t uncaptured_file_io(const struct uncaptured *u);

/*
 * Print @u's file I/O syscalls in @u's order: "io_submit 4230,
 * io_getevents 4230" (@json false), or as JSON members "\"io_submit\":
 * 4230, ..." (@json true); nothing if there are none.
 */
void uncaptured_print_file_io(FILE *f, const struct uncaptured *u, bool json);

#endif
