/*
 * replaylimits: the bounds of what a replay file can make a replay
 * allocate or ask the kernel for (docs/replay-format.md §10), in one
 * place.  io_uring's own (ring entries, fixed files, registered buffers)
 * are in uring.h; the reader refuses a file beyond those with FILE:LINE.
 * Beyond the ones here the replay refuses the file (timelines) or answers
 * the operation with the error the kernel gives when out of that
 * resource, without allocating, and counts it in the summary's
 * over_limit (docs/stats.md): never silently.
 */
#ifndef IORIOT_REPLAYLIMITS_H
#define IORIOT_REPLAYLIMITS_H

/* Distinct PID:TID timelines of one replay file (a timeline costs about
 * 150 bytes, docs/replay-format.md §10): the replay stops with
 * "FILE:LINE: more than N timelines" at the first one beyond.  A host
 * runs at most PID_MAX_LIMIT (2^22) threads at once; a capture whose
 * threads come and go has far fewer than 2^20 in all. */
#define REPLAY_TIMELINES_MAX (1u << 20)

/* AIO and io_uring requests alive at once in one replay (queued, in
 * flight, or completed and not yet taken by their completion line): the
 * kernel's default aio-max-nr (/proc/sys/fs/aio-max-nr) and its most
 * completion entries of one ring (IORING_MAX_CQ_ENTRIES).  Beyond: the
 * request is answered -EAGAIN, what io_submit(2) says when out of
 * resources. */
#define REPLAY_ASYNC_REQUESTS_MAX (1u << 16)

/* Bytes of the buffers of those requests and of the registered io_uring
 * buffers, together, in one replay.  A read or write moves at most
 * MAX_RW_COUNT bytes (IO_RW_MAX): a longer buffer is never made.  Beyond:
 * the request is answered -EAGAIN, the registration -ENOMEM. */
#define REPLAY_ASYNC_BUF_MAX (1ull << 30)
#define IO_RW_MAX 0x7ffff000ull

/* Entries (submission plus completion) of the io_uring rings set up at
 * once in one replay: about 64 MiB of the kernel's memory, which no
 * RLIMIT_MEMLOCK bounds for root.  Beyond: io_uring_setup is answered
 * -ENOMEM, what the kernel says when it cannot allocate a ring. */
#define URING_RING_ENTRIES_MAX (1u << 20)

/* Bytes of private writable file mappings (MAP_PRIVATE with PROT_WRITE,
 * whose written pages become the replay's own anonymous memory) mapped
 * at once.  Beyond: mmap is answered -ENOMEM.  Shared and read-only
 * mappings are page cache: the kernel bounds them (vm.max_map_count
 * mappings, the address space). */
#define REPLAY_MAP_PRIVATE_MAX (1ull << 30)

/* Bytes of the replay threads' read buffers grown beyond their first
 * READ_BUF (1 MiB): beyond, a thread keeps its buffer and a longer read
 * takes several calls (the same bytes, nothing skipped). */
#define REPLAY_READ_BUFS_MAX (1ull << 30)

#endif
