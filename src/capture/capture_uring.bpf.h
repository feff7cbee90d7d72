/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture_uring.bpf.h: io_uring: its three syscalls, the rings of the captured processes, and
 * the sqe, cqe, uring_file and uring_buf records from its tracepoints.
 * Part of the probe: included by capture.bpf.c at this concern's place,
 * after the state, filters and helpers it uses (inflight, wanted(),
 * rec_begin(), the SYS_ENTER/SYS_EXIT programs).
 */
#ifndef IORIOT_CAPTURE_URING_BPF_H
#define IORIOT_CAPTURE_URING_BPF_H

/*
 * io_uring.  The three syscalls have their tracepoint pairs; the requests
 * and completions come from the io_uring tracepoints, where they happen:
 * in io_uring_enter, in an SQPOLL thread, in an io-wq worker or task work.
 * io_uring_create (during io_uring_setup) notes which process created each
 * ring and its fd; a request or completion outside an io_uring_enter of
 * the capture is attributed to that process, not to the kernel thread.
 * A ring not seen created (it was there before the capture) is learnt at
 * the first io_uring_enter that submits to it.  A request's fields are
 * read from its io_kiocb (CO-RE, each kind of request only where this
 * kernel has its structure); io_uring_register's fixed files and
 * buffers from the caller's arrays at exit, up to
 * IORIOT_EV_URING_REG_MAX of them, the rest counted as lost.
 */
struct ring_owner {
	__u32 tgid, tid;
	__s32 fd;		/* the ring's fd in that process */
	__u32 pad;
};

/* Rings of the captured processes, by the kernel's struct io_ring_ctx
 * address (the key only: never read). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct ring_owner);
} rings SEC(".maps");

#define URING_ENTER_REGISTERED_RING (1u << 4)
#define URING_REGISTER_USE_REGISTERED_RING (1u << 31)
#define URING_SQE_BUFFER_SELECT (1u << 5)
#define URING_SQE_FLAGS 0x7f
#define URING_RSRC_REGISTER_SPARSE 1u

/* Where an sqe record's arguments are (the layout "edOcfA"). */
enum { SQE_RING, SQE_FD, SQE_OFF, SQE_LEN, SQE_FLAGS, SQE_DATA };

SEC("tracepoint/io_uring/io_uring_create")
int on_uring_create(struct trace_event_raw_io_uring_create *tp)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u64 key = (__u64)tp->ctx;
	struct ring_owner o = { .tgid = id >> 32, .tid = (__u32)id,
				.fd = tp->fd };

	if (!wanted(id >> 32)) {
		bpf_map_delete_elem(&rings, &key);	/* an address reused */
		return 0;
	}
	bpf_map_update_elem(&rings, &key, &o, BPF_ANY);
	return 0;
}

/* The io_uring_enter this task is in, or NULL. */
static __always_inline struct inflight *in_enter(void)
{
	struct inflight *in = inflight_get(false);

	return in && in->time_ns && in->sys == SYS_IO_URING_ENTER ? in : NULL;
}

/* The owner of ring @key; within io_uring_enter @in, a ring not known
 * yet is learnt from the call's fd (not a registered index), and an
 * enter on a registered index gets the ring's fd. */
static __always_inline struct ring_owner *ring_of(__u64 key,
						  struct inflight *in)
{
	struct ring_owner *o = bpf_map_lookup_elem(&rings, &key);

	if (!in)
		return o;
	if (!o && !(in->args[3] & URING_ENTER_REGISTERED_RING)) {
		__u64 id = bpf_get_current_pid_tgid();
		struct ring_owner n = { .tgid = id >> 32, .tid = (__u32)id,
					.fd = (__s32)in->args[0] };

		bpf_map_update_elem(&rings, &key, &n, BPF_ANY);
		o = bpf_map_lookup_elem(&rings, &key);
	}
	if (o && (in->args[3] & URING_ENTER_REGISTERED_RING)) {
		in->extra[0] = (__u64)(__s64)o->fd;
		in->flags |= IORIOT_EV_RING;
	}
	return o;
}

SEC("tracepoint/io_uring/io_uring_cqring_wait")
int on_uring_wait(struct trace_event_raw_io_uring_cqring_wait *tp)
{
	struct inflight *in = in_enter();

	if (in)
		ring_of((__u64)tp->ctx, in);
	return 0;
}

static __always_inline bool uring_vectored(__u8 op)
{
	return op == IORING_OP_READV || op == IORING_OP_WRITEV ||
	       op == IORING_OP_READV_FIXED || op == IORING_OP_WRITEV_FIXED;
}

static __always_inline bool uring_rw(__u8 op)
{
	return uring_vectored(op) || op == IORING_OP_READ ||
	       op == IORING_OP_WRITE || op == IORING_OP_READ_FIXED ||
	       op == IORING_OP_WRITE_FIXED;
}

static __always_inline bool uring_fixed_buf(__u8 op)
{
	return op == IORING_OP_READ_FIXED || op == IORING_OP_WRITE_FIXED ||
	       op == IORING_OP_READV_FIXED || op == IORING_OP_WRITEV_FIXED;
}

/* Offset, length, flags and buffer of request @req (opcode @op, sqe
 * flags @sqe_flags) into @ev, on kernels whose io_kiocb keeps them in its
 * cmd (6.0 on); what this kind of request does not have is marked
 * absent. */
static __always_inline void sqe_fields(struct ioriot_event *ev,
				       struct io_kiocb *req, __u8 op,
				       __u64 sqe_flags)
{
	__u64 absent = 1u << SQE_OFF | 1u << SQE_LEN | 1u << SQE_FLAGS;
	void *cmd = (void *)&req->cmd;

	ev->args[SQE_FD] = (__u64)(__s64)BPF_CORE_READ(req, cqe.fd);
	if (uring_rw(op) && bpf_core_type_exists(struct io_rw)) {
		struct io_rw *rw = cmd;
		__u64 len = BPF_CORE_READ(rw, len);

		ev->args[SQE_OFF] = BPF_CORE_READ(rw, kiocb.ki_pos);
		ev->args[SQE_FLAGS] = (__u32)BPF_CORE_READ(rw, flags);
		ev->args[SQE_LEN] = len;
		absent = 0;
		/* Vectored: len counts iovecs (with a selected buffer,
		 * the kernel put its length there). */
		if (uring_vectored(op) && !(sqe_flags & URING_SQE_BUFFER_SELECT) &&
		    !iov_total(BPF_CORE_READ(rw, addr), len, &ev->args[SQE_LEN]))
			absent = 1u << SQE_LEN;
		if (uring_fixed_buf(op))
			ev->extra[0] |= (__u64)BPF_CORE_READ(req, buf_index) << 16 |
					IORIOT_EV_SQE_BUF;
	} else if ((op == IORING_OP_FSYNC || op == IORING_OP_SYNC_FILE_RANGE ||
		    op == IORING_OP_FALLOCATE) && bpf_core_type_exists(struct io_sync)) {
		struct io_sync *sy = cmd;

		ev->args[SQE_OFF] = BPF_CORE_READ(sy, off);
		ev->args[SQE_LEN] = BPF_CORE_READ(sy, len);
		ev->args[SQE_FLAGS] = op == IORING_OP_FALLOCATE ?
				      (__u32)BPF_CORE_READ(sy, mode) :
				      (__u32)BPF_CORE_READ(sy, flags);
		absent = 0;
	} else if (op == IORING_OP_FADVISE && bpf_core_type_exists(struct io_fadvise)) {
		struct io_fadvise *fa = cmd;

		ev->args[SQE_OFF] = BPF_CORE_READ(fa, offset);
		ev->args[SQE_LEN] = BPF_CORE_READ(fa, len);
		ev->args[SQE_FLAGS] = BPF_CORE_READ(fa, advice);
		absent = 0;
	} else if (op == IORING_OP_FTRUNCATE && bpf_core_type_exists(struct io_ftrunc)) {
		struct io_ftrunc *ft = cmd;

		ev->args[SQE_LEN] = BPF_CORE_READ(ft, len);
		absent = 1u << SQE_OFF | 1u << SQE_FLAGS;
	} else {
		/* A nop, or not file I/O: the kind is what counts (cqe.fd is
		 * set only for requests on a file). */
		absent |= 1u << SQE_FD;
	}
	ev->extra[1] = absent;
}

/*
 * Before 6.0 (Debian 11's 5.10, which has 5.15's io_uring) the io_kiocb
 * keeps no copy of the sqe's fields: the kernel turned them into its own
 * (the offset -1 into the file position, the RWF_ flags into IOCB_ ones)
 * or dropped them.  There the sqe itself is read from the submission
 * queue: the kernel fetched the entry at its cached head and advanced the
 * head before the tracepoint fires, in io_uring_enter and in the SQPOLL
 * thread alike, and the entry stays the kernel's until the batch ends.
 * Its layout is the kernel's ABI (linux/io_uring.h), the same on every
 * kernel.
 */
struct uring_sqe_abi {
	__u8 opcode;
	__u8 flags;
	__u16 ioprio;
	__s32 fd;
	__u64 off;
	__u64 addr;
	__u32 len;
	__u32 op_flags;		/* rw_flags, fsync_flags, fadvise_advice... */
	__u64 user_data;
	__u16 buf_index;
	__u16 personality;
	__s32 splice_fd_in;
	__u64 pad[2];
};

#define URING_SETUP_SQE128 (1u << 10)

/* Into @sqe, the sqe ring @ctx's submission tracepoint is about: the
 * entry before the kernel's cached head (an index out of range was
 * dropped, never submitted); false if it cannot be read. */
static __always_inline bool consumed_sqe(struct io_ring_ctx *ctx,
					 struct uring_sqe_abi *sqe)
{
	__u32 entries = BPF_CORE_READ(ctx, sq_entries);
	__u32 head = BPF_CORE_READ(ctx, cached_sq_head) - 1;
	__u32 *array = BPF_CORE_READ(ctx, sq_array);
	struct uring_sqe_abi *sqes;
	__u32 idx;

	if (!entries || !array ||
	    bpf_probe_read_kernel(&idx, sizeof(idx), array + (head & (entries - 1))) ||
	    idx >= entries)
		return false;
	if (BPF_CORE_READ(ctx, flags) & URING_SETUP_SQE128)
		idx <<= 1;	/* 128-byte entries: two of 64 bytes each */
	sqes = (struct uring_sqe_abi *)BPF_CORE_READ(ctx, sq_sqes);
	return !bpf_probe_read_kernel(sqe, sizeof(*sqe), sqes + idx);
}

/* The fields of the request with opcode @op and @user_data that ring
 * @ctx submits, read from its sqe (kernels before 6.0), into @ev as
 * sqe_fields() takes them from the request on later kernels: the sqe's
 * flags, its fd (a fixed file's index with IOSQE_FIXED_FILE), and what the
 * kernel's prep of the request reads (fallocate: its length in addr, its
 * mode in len).  An sqe that is not the request's (its opcode or user_data
 * differ) gives nothing but the opcode, marked absent like the rest. */
static __always_inline void sqe_ring_fields(struct ioriot_event *ev,
					    struct io_ring_ctx *ctx, __u8 op,
					    __u64 user_data)
{
	__u64 absent = 1u << SQE_OFF | 1u << SQE_LEN | 1u << SQE_FLAGS;
	struct uring_sqe_abi sqe;

	if (!consumed_sqe(ctx, &sqe) || sqe.opcode != op ||
	    sqe.user_data != user_data) {
		ev->extra[1] = absent | 1u << SQE_FD;
		return;
	}
	ev->extra[0] = op | (__u64)(sqe.flags & URING_SQE_FLAGS) << 8;
	ev->args[SQE_FD] = (__u64)(__s64)sqe.fd;
	if (uring_rw(op)) {
		ev->args[SQE_OFF] = sqe.off;
		ev->args[SQE_LEN] = sqe.len;
		ev->args[SQE_FLAGS] = sqe.op_flags;
		absent = 0;
		/* Vectored: len counts iovecs (one, with a selected
		 * buffer: its length is the request's). */
		if (uring_vectored(op) &&
		    !iov_total(sqe.addr, sqe.len, &ev->args[SQE_LEN]))
			absent = 1u << SQE_LEN;
		if (uring_fixed_buf(op))
			ev->extra[0] |= (__u64)sqe.buf_index << 16 |
					IORIOT_EV_SQE_BUF;
	} else if (op == IORING_OP_FSYNC || op == IORING_OP_SYNC_FILE_RANGE ||
		   op == IORING_OP_FADVISE) {
		ev->args[SQE_OFF] = sqe.off;
		ev->args[SQE_LEN] = sqe.len;
		ev->args[SQE_FLAGS] = sqe.op_flags;
		absent = 0;
	} else if (op == IORING_OP_FALLOCATE) {
		ev->args[SQE_OFF] = sqe.off;
		ev->args[SQE_LEN] = sqe.addr;
		ev->args[SQE_FLAGS] = sqe.len;
		absent = 0;
	} else {
		absent |= 1u << SQE_FD;	/* as sqe_fields() */
	}
	ev->extra[1] = absent;
}

/* A request submitted to ring @ctx (io_kiocb @req, NULL if the tracepoint
 * has none), from either name of the tracepoint. */
static __always_inline int uring_submit(void *ctx, void *req, __u64 user_data,
					__u8 op, __u64 flags)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight *in = in_enter();
	struct io_kiocb *r = req;
	struct ring_owner *o;
	struct ioriot_event *ev;
	struct rec out;
	__u64 sqe_flags = flags & URING_SQE_FLAGS;

	if (stopped)
		return 0;
	o = ring_of((__u64)ctx, in);
	if (!in && !o && !wanted(id >> 32))
		return 0;
	ev = rec_event(&out);
	if (!ev) {
		__sync_fetch_and_add(&lost_events, 1);
		return 0;
	}
	/* In io_uring_enter: the call's thread and entry time, so that the
	 * log holds the requests before their enter.  Else (SQPOLL) the
	 * ring's creator, now. */
	ev->time_ns = in ? in->time_ns : bpf_ktime_get_ns();
	ev->dur_ns = 0;
	ev->pid = in || !o ? id >> 32 : o->tgid;
	ev->tid = in || !o ? (__u32)id : o->tid;
	ev->sys = SYS_SQE;
	ev->flags = IORIOT_EV_NO_RET | IORIOT_EV_SQE | IORIOT_EV_ABSENT;
	ev->ret = 0;
	ev->args[SQE_RING] = o ? (__u64)(__s64)o->fd : 0;
	ev->args[SQE_FD] = ev->args[SQE_OFF] = ev->args[SQE_LEN] = 0;
	ev->args[SQE_FLAGS] = 0;
	ev->args[SQE_DATA] = user_data;
	ev->extra[0] = op | sqe_flags << 8;
	if (bpf_core_field_exists(r->cmd) && bpf_core_field_exists(r->cqe))
		sqe_fields(ev, r, op, sqe_flags);
	else
		sqe_ring_fields(ev, ctx, op, user_data);
	if (!o)
		ev->extra[1] |= 1u << SQE_RING;
	ev->path_len[0] = ev->path_len[1] = 0;
	ev->umask = 0;
	rec_end(&out, 0, 0);
	return 0;
}

SEC("tracepoint/io_uring/io_uring_submit_req")
int on_uring_submit(struct trace_event_raw_io_uring_submit_req *tp)
{
	return uring_submit(tp->ctx, tp->req, tp->user_data, tp->opcode,
			    tp->flags);
}

/* Before 6.4 (Debian 12's 6.1, Debian 11's 5.10) the tracepoint is
 * io_uring_submit_sqe, its flags 32 bits wide; the loader attaches
 * whichever the kernel has.  Upstream 5.10's has neither the request nor
 * its flags (Debian 11's has both): the sqe gives them there
 * (sqe_ring_fields()). */
struct trace_event_raw_io_uring_submit_sqe___old {
	struct trace_entry ent;
	void *ctx;
	void *req;
	unsigned long long user_data;
	u8 opcode;
	u32 flags;
} __attribute__((preserve_access_index));

SEC("tracepoint/io_uring/io_uring_submit_sqe")
int on_uring_submit_old(struct trace_event_raw_io_uring_submit_sqe___old *tp)
{
	void *req = NULL;
	__u32 flags = 0;

	if (bpf_core_field_exists(tp->req))
		req = tp->req;
	if (bpf_core_field_exists(tp->flags))
		flags = tp->flags;
	return uring_submit(tp->ctx, req, tp->user_data, tp->opcode, flags);
}

/* Where a cqe record's arguments are (the layout "eAF"). */
enum { CQE_RING, CQE_DATA, CQE_OP };

SEC("tracepoint/io_uring/io_uring_complete")
int on_uring_complete(struct trace_event_raw_io_uring_complete *tp)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u64 key = (__u64)tp->ctx;
	struct ring_owner *o = bpf_map_lookup_elem(&rings, &key);
	struct ioriot_event *ev;
	struct rec out;
	struct io_kiocb *req = NULL;

	if (stopped || (!o && !wanted(id >> 32)))
		return 0;
	ev = rec_event(&out);
	if (!ev) {
		__sync_fetch_and_add(&lost_events, 1);
		return 0;
	}
	if (bpf_core_field_exists(tp->req))
		req = tp->req;
	ev->time_ns = bpf_ktime_get_ns();
	ev->dur_ns = 0;
	ev->pid = o ? o->tgid : id >> 32;
	ev->tid = o ? o->tid : (__u32)id;
	ev->sys = SYS_CQE;
	ev->flags = IORIOT_EV_ABSENT;
	ev->ret = tp->res;
	ev->args[CQE_RING] = o ? (__u64)(__s64)o->fd : 0;
	ev->args[CQE_DATA] = tp->user_data;
	ev->args[CQE_OP] = req ? BPF_CORE_READ(req, opcode) : 0;
	ev->args[3] = ev->args[4] = ev->args[5] = 0;
	ev->extra[0] = 0;
	ev->extra[1] = (o ? 0 : 1u << CQE_RING) | (req ? 0 : 1u << CQE_OP);
	ev->path_len[0] = ev->path_len[1] = 0;
	ev->umask = 0;
	rec_end(&out, 0, 0);
	return 0;
}

SYS_ENTER(io_uring_register)
{
	return on_enter(ctx, SYS_IO_URING_REGISTER, 4, EX_NONE);
}

/* The table io_uring_register @in changed: fixed files (*@files true)
 * or buffers, from slot *@base, *@n entries at user *@arr.  False if it
 * sets none. */
static __always_inline bool reg_table(const struct inflight *in, bool *files,
				      __u64 *base, __u64 *arr, __u64 *n)
{
	__u32 opcode = (__u32)in->args[1] & ~URING_REGISTER_USE_REGISTERED_RING;
	__u64 arg = in->args[2];
	__u32 hdr[2] = { 0, 0 };	/* nr and flags, or offset */

	*files = opcode == IORING_REGISTER_FILES ||
		 opcode == IORING_REGISTER_FILES_UPDATE ||
		 opcode == IORING_REGISTER_FILES2 ||
		 opcode == IORING_REGISTER_FILES_UPDATE2;
	*base = 0;
	if (!arg)
		return false;
	switch (opcode) {
	case IORING_REGISTER_FILES: case IORING_REGISTER_BUFFERS:
		*arr = arg;
		*n = (__u32)in->args[3];
		return true;
	case IORING_REGISTER_FILES_UPDATE:	/* struct io_uring_files_update */
		bpf_probe_read_user(hdr, sizeof(hdr), (void *)arg);
		*base = hdr[0];
		*arr = read_user_u64(arg + 8);
		*n = (__u32)in->args[3];
		return true;
	case IORING_REGISTER_FILES2: case IORING_REGISTER_BUFFERS2:
		/* struct io_uring_rsrc_register: a sparse table sets none */
		bpf_probe_read_user(hdr, sizeof(hdr), (void *)arg);
		if (hdr[1] & URING_RSRC_REGISTER_SPARSE)
			return false;
		*n = hdr[0];
		*arr = read_user_u64(arg + 16);
		return true;
	case IORING_REGISTER_FILES_UPDATE2: case IORING_REGISTER_BUFFERS_UPDATE:
		/* struct io_uring_rsrc_update2 */
		bpf_probe_read_user(hdr, sizeof(hdr), (void *)arg);
		*base = hdr[0];
		*arr = read_user_u64(arg + 8);
		bpf_probe_read_user(hdr, sizeof(hdr[0]), (void *)(arg + 24));
		*n = hdr[0];
		return true;
	default:
		return false;
	}
}

/* Where uring_file and uring_buf records have their arguments (the
 * layouts "edO" and "ecO"). */
enum { REG_RING, REG_VALUE, REG_SLOT };

SYS_EXIT(io_uring_register)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight *in = inflight_get(false);
	__u64 base = 0, arr = 0, n = 0;
	__u32 sent = 0;
	bool files = false;

	if (!in || !in->time_ns || in->sys != SYS_IO_URING_REGISTER)
		return 0;
	if (ctx->ret < 0 || !reg_table(in, &files, &base, &arr, &n))
		n = 0;
	/* An update returns how many it changed. */
	if (ctx->ret > 0 && n > (__u64)ctx->ret)
		n = ctx->ret;
	for (int i = 0; i < IORIOT_EV_URING_REG_MAX; i++) {
		struct ioriot_event *ev;
		struct rec out;
		__u64 value;
		__s32 fd = -1;

		if (i >= n)
			break;
		if (files) {
			bpf_probe_read_user(&fd, sizeof(fd), (void *)(arr + i * 4));
			value = (__u64)(__s64)fd;
		} else {
			value = read_user_u64(arr + i * 16 + 8);	/* iov_len */
		}
		ev = rec_event(&out);
		if (!ev)
			break;		/* counted below */
		fill(ev, id, files ? SYS_URING_FILE : SYS_URING_BUF, in, 0);
		ev->dur_ns = 0;
		ev->flags = IORIOT_EV_NO_RET;
		ev->args[REG_RING] = in->args[0];
		ev->args[REG_VALUE] = value;
		ev->args[REG_SLOT] = base + i;
		ev->args[3] = ev->args[4] = ev->args[5] = 0;
		ev->extra[0] = ev->extra[1] = 0;
		rec_end(&out, 0, 0);
		sent++;
	}
	if (n > sent)
		__sync_fetch_and_add(&lost_events, n - sent);
	return on_exit(ctx, SYS_IO_URING_REGISTER, -1, -1, EX_NONE);
}

#endif
