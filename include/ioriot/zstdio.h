/*
 * zstdio: text logs as zstd streams (docs/capture-format.md §1.3).
 *
 * zstd_out compresses a text stream into a sequence of independent zstd
 * frames, each holding whole lines, so that a file cut after any complete
 * frame is still a valid log up to there (`zstdcat` prints its text).
 * zstd_in reads such a file, or any zstd stream, back as text; a stream
 * cut short inside a frame (a crash, a full disk) is read up to its last
 * complete block and reported, not an error.
 */
#ifndef IORIOT_ZSTDIO_H
#define IORIOT_ZSTDIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ioriot/outbuf.h"

/* How much text a frame holds at most (it ends at a line's end), and the
 * compression level: measured in docs/benchmarks-history.md §7.3. */
#define ZSTD_OUT_FRAME_TEXT (1u << 20)
#define ZSTD_OUT_LEVEL 1

/* The start offsets of this many of the last frames are kept, for
 * cutting a file back frame by frame. */
#define ZSTD_OUT_RING 64

struct zstd_out;

/*
 * A compressor whose frames go to @write(@ctx, ...) (write(2)'s contract,
 * outbuf.h), the file's first byte first.  NULL without memory.
 */
struct zstd_out *zstd_out_new(outbuf_sink_fn *write, void *ctx);

/*
 * outbuf_sink_fn for an outbuf: takes @len bytes of text @data (@zo is
 * the struct zstd_out).  Once a frame's worth is gathered, its complete
 * lines are compressed and written as a frame first.  Returns @len, or
 * -errno if writing that frame failed (nothing of @data was taken; the
 * file may then hold part of the frame after zstd_out_committed()).
 */
ssize_t zstd_out_write(void *zo, const void *data, size_t len);

/*
 * Compress the complete lines taken so far into a frame and write it.
 * 0 (also when there is no complete line), or -errno as zstd_out_write().
 */
int zstd_out_end_frame(struct zstd_out *zo);

/* Bytes of the file in complete frames, and of the text they hold. */
uint64_t zstd_out_committed(const struct zstd_out *zo);
uint64_t zstd_out_text_bytes(const struct zstd_out *zo);

/* The text taken but not yet in a complete frame in the file (its first
 * byte starts a line): *@len bytes at the result. */
const char *zstd_out_pending(const struct zstd_out *zo, size_t *len);

/*
 * The start offset of the last complete frame into *@start, forgotten
 * from then on (the file is to be cut there: zstd_out_restart()).  0, or -ENOENT if none is known (the ring holds the last
 * ZSTD_OUT_RING).
 */
int zstd_out_pop_frame(struct zstd_out *zo, uint64_t *start);

/*
 * The file was cut back to @at, the end of a complete frame: drop the
 * pending text and write the next frame there.  Never fails.
 */
void zstd_out_restart(struct zstd_out *zo, uint64_t at);

/* Free.  Accepts NULL. */
void zstd_out_free(struct zstd_out *zo);

/* True if the @len bytes at @head begin a zstd stream (a frame or a
 * skippable frame). */
bool zstd_is_stream(const void *head, size_t len);

/*
 * Decompress the complete frames in bytes [@start, @end) of @fd into a
 * malloc'ed *@text of *@len bytes.  0, or -errno: -EBADMSG if they are
 * not complete frames, -ENOMEM.
 */
int zstd_read_frames(int fd, uint64_t start, uint64_t end, char **text,
		     size_t *len);

struct zstd_in;

/*
 * A decompressor reading the zstd stream on @fd from its current offset;
 * @path names it in warnings.  With @ahead, from the first zstd_in_read()
 * on, a thread of its own decompresses a few chunks of text ahead of the
 * reader (so generate decompresses, parses and models on three threads),
 * and the fd is the thread's until zstd_in_free(); without, each read
 * decompresses in the caller's thread (a process that must stay single-
 * threaded: the replay, until its user namespace is made).  NULL with
 * errno set (ENOMEM).
 */
struct zstd_in *zstd_in_new(int fd, const char *path, bool ahead);

/*
 * Up to @len bytes of text into @buf.  Returns how many (> 0), 0 at the
 * end of the stream (or for @len 0), or -errno: a read error (again on later calls), or
 * the thread could not be started.  A stream that ends
 * inside a frame, or is damaged, ends there: what came before is
 * returned, a warning names the file and the offset, and zstd_in_cut()
 * becomes true.
 */
ssize_t zstd_in_read(struct zstd_in *zi, void *buf, size_t len);

/* True once the stream was found cut short or damaged. */
bool zstd_in_cut(const struct zstd_in *zi);

/* Compressed bytes behind the text read so far (at the granularity of
 * the thread's chunks: for progress). */
uint64_t zstd_in_offset(const struct zstd_in *zi);

/* Stop the thread and free (the fd stays open).  Accepts NULL. */
void zstd_in_free(struct zstd_in *zi);

#endif
