/*
 * dioalign: the alignment of the buffers the replay hands to direct I/O,
 * private to src/replay.  A file opened with O_DIRECT (or switched to it
 * by fcntl F_SETFL) needs its buffers aligned as statx(2) reports with
 * STATX_DIOALIGN (stx_dio_mem_align for the address, stx_dio_offset_align
 * for offsets and lengths); kernels or file systems that do not report it
 * need the block device's logical block size for both.  One statx per
 * device: the devices of the sandbox roots are learnt before the jail
 * stands, an open names its sandbox by its path, and the first direct I/O
 * open on a device asks statx on its fd, later ones take the answer.
 */
#ifndef IORIOT_REPLAY_DIOALIGN_H
#define IORIOT_REPLAY_DIOALIGN_H

#include <fcntl.h>
#include <stddef.h>

/* The least buffer alignment (no device needs less) and the most the
 * replay gives (the size of its read and write buffers, so that every
 * chunk of a longer transfer stays a multiple of the alignment). */
#define DIOALIGN_MIN 512u
#define DIOALIGN_MAX (1u << 20)

/*
 * The flags of the statx the alignment is asked with: AT_EMPTY_PATH on the
 * fd, and AT_STATX_DONT_SYNC, which no replayed statx uses (exec.c), so a
 * capture of the replay tells these calls apart (tests/test_roundtrip.c).
 */
#define DIOALIGN_STATX_FLAGS (AT_EMPTY_PATH | AT_STATX_DONT_SYNC)

struct dioalign;

/*
 * The devices of sandbox roots @roots (@n absolute paths, as the replay
 * names them), which are sandboxes @host of this host (jail.h), each with
 * its block device's logical block size from sysfs.  Call it before the jail
 * (it reads /sys).  A root that cannot be stat'ed is left out: opens below
 * it ask statx each time.  Returns NULL when out of memory.
 */
struct dioalign *dioalign_new(char *const *roots, char *const *host, size_t n);

/*
 * The buffer alignment for direct I/O on @fd, a file opened as @path (NULL
 * when not known, as for F_SETFL): the larger of its memory and offset
 * alignments, at least DIOALIGN_MIN, at most DIOALIGN_MAX, a power of two.
 * Asks statx on @fd at most once, and not at all when the device of
 * @path's sandbox was asked before.  Never fails: without an answer from
 * statx it gives the logical block size of the sandbox's device, else
 * 4096.  @d may be NULL (no sandboxes known: statx every time).  Safe from
 * several threads.
 */
size_t dioalign_of(struct dioalign *d, int fd, const char *path);

/* The statx calls dioalign_of() made on @d so far (0 for NULL). */
size_t dioalign_probes(const struct dioalign *d);

/* Free @d.  Accepts NULL. */
void dioalign_free(struct dioalign *d);

#endif
