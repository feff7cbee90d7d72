/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture_aio.bpf.h: Linux AIO: io_setup, io_submit with its iocb records, io_getevents with
 * its io_event records, io_cancel and io_destroy.
 * Part of the probe: included by capture.bpf.c at this concern's place,
 * after the state, filters and helpers it uses (inflight, wanted(),
 * rec_begin(), the SYS_ENTER/SYS_EXIT programs).
 */
#ifndef IORIOT_CAPTURE_AIO_BPF_H
#define IORIOT_CAPTURE_AIO_BPF_H

/*
 * Linux AIO.  io_submit's entry copies up to IORIOT_EV_AIO_MAX iocbs (the
 * kernel copies them at submission; the program may reuse them after) into
 * a second task storage; its exit sends one iocb record per copy, then the
 * io_submit event itself, all with the call's entry time, so the log holds
 * the iocbs before their submit.  io_getevents' exit sends its event, then
 * one io_event record per completion it returned.  Submitted iocbs and
 * completions beyond the bound are counted as lost.
 */
struct aio_rec {
	__u64 addr;		/* the iocb's user address: its key */
	__u64 offset;
	__u64 nbytes;		/* vectored: the iovecs' total */
	__u32 fd, rw_flags;
	__u32 aio_flags, resfd;
	__u16 opcode;
	__u16 no_count;		/* vectored, too many iovecs to sum */
	__u32 pad;
};

struct aio_submit {
	__u32 n;		/* records read */
	__u32 pad;
	struct aio_rec rec[IORIOT_EV_AIO_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct aio_submit);
} aio_submits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, THREAD_MAX);
	__type(key, __u32);
	__type(value, struct aio_submit);
} aio_submits_tid SEC(".maps");

static const struct aio_submit aio_submit_zero;

#define IOCB_OP_PREADV 7
#define IOCB_OP_PWRITEV 8

/* The total length of @n iovecs at user @iov; false if more than
 * IOV_MAX_SUMMED. */
static __always_inline bool iov_total(__u64 iov, __u64 n, __u64 *total)
{
	__u64 sum = 0;

	if (n > IOV_MAX_SUMMED)
		return false;
	for (int i = 0; i < IOV_MAX_SUMMED; i++) {
		if (i >= n)
			break;
		sum += read_user_u64(iov + i * 16 + 8);
	}
	*total = sum;
	return true;
}

SYS_ENTER(io_submit)
{
	struct aio_submit *a;
	__u64 list, nr;
	__u32 n = 0;

	on_enter(ctx, SYS_IO_SUBMIT, 3, EX_NONE);
	if (!wanted(bpf_get_current_pid_tgid() >> 32))
		return 0;
	a = thread_get(&aio_submits, &aio_submits_tid, &aio_submit_zero, true);
	if (!a)
		return 0;	/* the exit counts what it has no record of */
	list = ctx->args[2];
	nr = ctx->args[1];
	for (int i = 0; i < IORIOT_EV_AIO_MAX; i++) {
		struct aio_rec *r = &a->rec[i];
		struct iocb cb;
		__u64 uptr;

		if (i >= nr)
			break;
		uptr = read_user_u64(list + i * 8);
		if (!uptr || bpf_probe_read_user(&cb, sizeof(cb), (void *)uptr))
			break;
		r->addr = uptr;
		r->offset = cb.aio_offset;
		r->nbytes = cb.aio_nbytes;
		r->fd = cb.aio_fildes;
		r->rw_flags = cb.aio_rw_flags;
		r->aio_flags = cb.aio_flags;
		r->resfd = cb.aio_resfd;
		r->opcode = cb.aio_lio_opcode;
		r->no_count = 0;
		if (cb.aio_lio_opcode == IOCB_OP_PREADV ||
		    cb.aio_lio_opcode == IOCB_OP_PWRITEV)
			r->no_count = !iov_total(cb.aio_buf, cb.aio_nbytes,
						 &r->nbytes);
		n++;
	}
	a->n = n;
	return 0;
}

SYS_EXIT(io_submit)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight *in = inflight_get(false);
	struct aio_submit *a;
	__u32 sent = 0;

	if (!in || !in->time_ns || in->sys != SYS_IO_SUBMIT)
		return 0;
	a = thread_get(&aio_submits, &aio_submits_tid, &aio_submit_zero, false);
	for (int i = 0; a && i < IORIOT_EV_AIO_MAX; i++) {
		const struct aio_rec *r = &a->rec[i];
		struct ioriot_event *ev;
		struct rec out;

		if (i >= a->n)
			break;
		ev = rec_event(&out);
		if (!ev)
			continue;	/* counted below */
		fill(ev, id, SYS_IOCB, in, 0);
		ev->dur_ns = 0;
		ev->flags = IORIOT_EV_NO_RET | IORIOT_EV_IOCB |
			    (r->no_count ? IORIOT_EV_NO_COUNT : 0);
		ev->args[0] = in->args[0];
		ev->args[1] = r->addr;
		ev->args[2] = r->fd;
		ev->args[3] = r->offset;
		ev->args[4] = r->nbytes;
		ev->args[5] = r->rw_flags;
		ev->extra[0] = r->opcode | (__u64)r->aio_flags << 16;
		ev->extra[1] = r->resfd;
		rec_end(&out, 0, 0);
		sent++;
	}
	/* Submitted iocbs without a record: lost. */
	if (ctx->ret > (long)sent)
		__sync_fetch_and_add(&lost_events, ctx->ret - sent);
	if (a)
		a->n = 0;
	return on_exit(ctx, SYS_IO_SUBMIT, -1, -1, EX_NONE);
}

/* The completions io_getevents returned, after its own event. */
static __always_inline int getevents_exit(const struct sys_ctx *ctx,
					  __u32 sys)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct inflight *in = inflight_get(false);
	struct inflight copy;
	long ret = ctx->ret;
	int sent = 0;

	if (!in || !in->time_ns || in->sys != sys)
		return 0;
	copy = *in;
	on_exit(ctx, sys, -1, -1, EX_NONE);
	for (int i = 0; i < IORIOT_EV_AIO_MAX; i++) {
		struct ioriot_event *ev;
		struct rec out;
		struct io_event e;

		if (i >= ret)
			break;
		if (bpf_probe_read_user(&e, sizeof(e),
					(void *)(copy.args[3] + i * sizeof(e))))
			break;
		ev = rec_event(&out);
		if (!ev)
			break;
		fill(ev, id, SYS_IO_EVENT, &copy, e.res);
		ev->dur_ns = 0;
		ev->args[0] = copy.args[0];
		ev->args[1] = e.obj;
		ev->args[2] = ev->args[3] = ev->args[4] = ev->args[5] = 0;
		ev->extra[0] = ev->extra[1] = 0;
		rec_end(&out, 0, 0);
		sent++;
	}
	if (ret > sent)
		__sync_fetch_and_add(&lost_events, ret - sent);
	return 0;
}

SYS_ENTER(io_getevents)
{
	return on_enter(ctx, SYS_IO_GETEVENTS, 5, EX_NONE);
}

SYS_EXIT(io_getevents)
{
	return getevents_exit(ctx, SYS_IO_GETEVENTS);
}

SYS_ENTER(io_pgetevents)
{
	return on_enter(ctx, SYS_IO_PGETEVENTS, 6, EX_NONE);
}

SYS_EXIT(io_pgetevents)
{
	return getevents_exit(ctx, SYS_IO_PGETEVENTS);
}

#endif
