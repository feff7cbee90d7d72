/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture_mmap.bpf.h: I/O through file mappings: the table of each process's file mappings
 * (mmap, munmap, mremap) and a page record per page fault on one.
 * Part of the probe: included by capture.bpf.c at this concern's place,
 * after the state, filters and helpers it uses (inflight, wanted(),
 * rec_begin(), the SYS_ENTER/SYS_EXIT programs).
 */
#ifndef IORIOT_CAPTURE_MMAP_BPF_H
#define IORIOT_CAPTURE_MMAP_BPF_H

/*
 * I/O through file mappings: one page record per page fault of a captured
 * process on a file mapping.
 *
 * The hooks are the x86 exceptions:page_fault_user and page_fault_kernel
 * tracepoints (the kernel's faults on user addresses: read(2) into a
 * mapped file dirties it), present since Linux 3.13 and loading wherever
 * the syscall tracepoints do; a kernel without them captures the rest.
 * fentry/fexit on handle_mm_fault() would give the vma, and so anonymous
 * and file memory apart, but needs ftrace for BPF, which kernels under
 * lockdown refuse (the 6.18 kernel the tests run on refuses it with EPERM
 * and has no kprobes either); filemap_fault() is
 * not every file system's (tmpfs has its own), page_mkwrite is a
 * per-file-system method, writeback:writeback_dirty_folio names no
 * address and fires for write(2) too, and bpf_find_vma() from the fault
 * tracepoint needs the mmap_lock, which another thread's mmap holds.
 *
 * So the probe keeps its own table of each captured process's file
 * mappings (struct ioriot_maps, event.h): mmap adds one (of a file, not
 * executable, not MAP_DENYWRITE, the flag the dynamic linker maps
 * libraries with), munmap, an mmap over it and mremap cut or move them,
 * fork copies the table, exec and exit drop it; the loader seeds it from
 * /proc/PID/maps.  A fault is recorded when its address lies in one:
 * anonymous memory and libraries cost a table lookup and nothing else.
 * The error code tells the rest: a write fault on a shared mapping dirties
 * the page (a first write, or page_mkwrite of a page written back since):
 * mmap_write.  A read fault, or a write fault on a private mapping whose
 * page was not mapped yet (the file's page is read for the private copy),
 * is mmap_read.  A write fault on a present page of a private mapping
 * (copy-on-write) reads nothing of the file and is not recorded.
 *
 * The tracepoint fires when the fault is taken, before it is resolved:
 * a fault that fails (SIGBUS beyond the end of the file) is recorded too.
 * Faults the kernel makes itself through get_user_pages (MAP_POPULATE,
 * madvise(MADV_POPULATE_*), process_vm_writev) raise no exception and are
 * not seen.  Fault-around: a read fault also maps the neighbouring pages
 * that are in the page cache (filemap_map_pages), without faults, so a
 * later access to them is not seen; the replay touches the faulted pages
 * only, and its kernel maps the same neighbours (docs/capture-format.md
 * §5.4).  Cost: one record per fault, which is once per page written
 * until it is written back, and for cached files once per fault-around
 * window read.
 */
#define PF_PROT		0x1	/* X86_PF_PROT: the page was present */
#define PF_WRITE	0x2	/* X86_PF_WRITE */
#define M_SHARED	0x01
#define M_TYPE		0x0f
#define M_SHARED_VALIDATE 0x03
#define M_ANONYMOUS	0x20
#define M_DENYWRITE	0x0800
#define P_EXEC		0x4
#define PAGE_MASK_	(~(__u64)(IORIOT_EV_PAGE_SIZE - 1))

/* Mappings not followed because a process's table was full. */
__u64 maps_full = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct ioriot_maps);
} file_maps SEC(".maps");

/* An empty table, to create a process's (too large for the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ioriot_maps);
} empty_maps SEC(".maps");

/* Put @r into a free slot of @t; counted when there is none. */
static __always_inline void maps_put(struct ioriot_maps *t,
				     const struct ioriot_map_range *r)
{
	for (int i = 0; i < IORIOT_EV_MAPS; i++) {
		if (!t->r[i].end) {
			t->r[i] = *r;
			return;
		}
	}
	__sync_fetch_and_add(&maps_full, 1);
}

/* Forget [@addr, @addr + @len) of @t: ranges in it go, ranges across its
 * ends are cut; a range it splits keeps both sides.  (The verifier
 * explores the loop once per slot: what one slot leaves for later is in
 * the map, t->cut, not on the stack.) */
static __always_inline void maps_cut(struct ioriot_maps *t, __u64 addr,
				     __u64 len)
{
	__u64 end = addr + ((len + IORIOT_EV_PAGE_SIZE - 1) & PAGE_MASK_);

	t->cut.end = 0;
	for (int i = 0; i < IORIOT_EV_MAPS; i++) {
		struct ioriot_map_range *m = &t->r[i];
		__u64 s = m->start, e = m->end;

		if (!e || e <= addr || s >= end)
			continue;
		if (s < addr && e > end) {
			t->cut.start = end;
			t->cut.end = e;
			t->cut.offset = m->offset + (end - s);
			t->cut.shared = m->shared;
		}
		if (s < addr) {
			m->end = addr;
		} else if (e > end) {
			m->offset += end - s;
			m->start = end;
		} else {
			m->end = 0;
		}
	}
	if (t->cut.end)
		maps_put(t, &t->cut);
}

/* The table of process @tgid, created empty if @create. */
static __always_inline struct ioriot_maps *maps_of(__u32 tgid, bool create)
{
	struct ioriot_maps *t = bpf_map_lookup_elem(&file_maps, &tgid);
	__u32 zero = 0;

	if (t || !create)
		return t;
	/* Another thread may create it meanwhile: either table will do. */
	t = bpf_map_lookup_elem(&empty_maps, &zero);
	if (t)
		bpf_map_update_elem(&file_maps, &tgid, t, BPF_NOEXIST);
	return bpf_map_lookup_elem(&file_maps, &tgid);
}

/* A result of mmap or mremap that is an address, not an errno. */
static __always_inline bool mapped(long ret)
{
	return ret >= 0 || ret < -4095;
}

SYS_ENTER(mmap)
{
	return on_enter(ctx, SYS_MMAP, 6, EX_NONE);
}

/* mmap: what was mapped there before is gone; a file mapping joins. */
SYS_EXIT(mmap)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct inflight *in = inflight_get(false);
	struct ioriot_map_range r;
	struct ioriot_maps *t;
	__u64 len, prot, flags;
	int fd;

	if (!in || !in->time_ns || in->sys != SYS_MMAP)
		return 0;
	len = in->args[1];
	prot = in->args[2];
	flags = in->args[3];
	fd = (int)in->args[4];
	r.offset = in->args[5];
	on_exit(ctx, SYS_MMAP, -1, -1, EX_NONE);
	if (!mapped(ctx->ret))
		return 0;
	bool file = fd >= 0 && !(flags & M_ANONYMOUS) && !(prot & P_EXEC) &&
		    !(flags & M_DENYWRITE);
	t = maps_of(tgid, file);
	if (!t)
		return 0;
	maps_cut(t, ctx->ret, len);
	if (!file)
		return 0;
	r.start = ctx->ret;
	r.end = ctx->ret + ((len + IORIOT_EV_PAGE_SIZE - 1) & PAGE_MASK_);
	r.shared = (flags & M_TYPE) == M_SHARED ||
		   (flags & M_TYPE) == M_SHARED_VALIDATE;
	maps_put(t, &r);
	return 0;
}

SYS_ENTER(munmap)
{
	return on_enter(ctx, SYS_MUNMAP, 2, EX_NONE);
}

SYS_EXIT(munmap)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct inflight *in = inflight_get(false);
	struct ioriot_maps *t;
	__u64 addr, len;

	if (!in || !in->time_ns || in->sys != SYS_MUNMAP)
		return 0;
	addr = in->args[0];
	len = in->args[1];
	on_exit(ctx, SYS_MUNMAP, -1, -1, EX_NONE);
	if (ctx->ret != 0 || !(t = maps_of(tgid, false)))
		return 0;
	maps_cut(t, addr, len);
	return 0;
}

SYS_ENTER(mremap)
{
	return on_enter(ctx, SYS_MREMAP, 5, EX_NONE);
}

/* mremap(old, old_len, new_len, flags, new): a file mapping moves with
 * its offset (the generator does not follow it: docs). */
SYS_EXIT(mremap)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct inflight *in = inflight_get(false);
	struct ioriot_map_range r = { 0 };
	struct ioriot_maps *t;
	__u64 old, old_len, new_len;

	if (!in || !in->time_ns || in->sys != SYS_MREMAP)
		return 0;
	old = in->args[0] & PAGE_MASK_;
	old_len = in->args[1];
	new_len = in->args[2];
	on_exit(ctx, SYS_MREMAP, -1, -1, EX_NONE);
	if (!mapped(ctx->ret) || !(t = maps_of(tgid, false)))
		return 0;
	for (int i = 0; i < IORIOT_EV_MAPS; i++) {
		const struct ioriot_map_range *m = &t->r[i];

		if (m->end && old >= m->start && old < m->end) {
			r.offset = m->offset + (old - m->start);
			r.shared = m->shared;
			r.end = 1;
			break;
		}
	}
	maps_cut(t, old, old_len);
	maps_cut(t, ctx->ret, new_len);
	if (!r.end)
		return 0;
	r.start = ctx->ret;
	r.end = ctx->ret + ((new_len + IORIOT_EV_PAGE_SIZE - 1) & PAGE_MASK_);
	maps_put(t, &r);
	return 0;
}

/*
 * A page record @ev taken between two calls of its thread: the on-CPU ns
 * since the thread's last event sent, which it now is (the fault takes no
 * time of its own: D=0).  A fault inside a call (a read into a mapped
 * buffer) belongs to the call: no cpu_gap.
 */
static __always_inline void page_cpu(struct ioriot_event *ev)
{
	struct inflight *in;
	struct self me;

	self_get(&me);
	in = inflight_of(&me, false);
	if (!in || in->time_ns)
		return;
	cpu_enter(&me, in, ev->time_ns);
	cpu_exit(&me, in, ev);
}

/* A fault at @address with x86 error code @code. */
static __always_inline int on_fault(__u64 address, __u64 code)
{
	__u64 id = bpf_get_current_pid_tgid(), page = address & PAGE_MASK_;
	__u32 tgid = id >> 32;
	const struct ioriot_map_range *m = NULL;
	struct ioriot_maps *t;
	struct ioriot_event *ev;
	struct rec out;
	__u32 sys;

	if (stopped || !(t = bpf_map_lookup_elem(&file_maps, &tgid)))
		return 0;
	for (int i = 0; i < IORIOT_EV_MAPS; i++) {
		if (t->r[i].end && page >= t->r[i].start && page < t->r[i].end) {
			m = &t->r[i];
			break;
		}
	}
	if (!m)
		return 0;
	if (!(code & PF_WRITE))
		sys = SYS_MMAP_READ;
	else if (m->shared)
		sys = SYS_MMAP_WRITE;
	else if (!(code & PF_PROT))
		sys = SYS_MMAP_READ;
	else
		return 0;
	ev = rec_event(&out);
	if (!ev) {
		__sync_fetch_and_add(&lost_events, 1);
		return 0;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->time_ns = bpf_ktime_get_ns();
	ev->pid = tgid;
	ev->tid = (__u32)id;
	ev->sys = sys;
	ev->flags = IORIOT_EV_NO_RET;
	ev->args[0] = page;
	ev->args[1] = m->offset + (page - m->start);
	page_cpu(ev);
	rec_end(&out, 0, 0);
	return 0;
}

/* The record of both tracepoints, unchanged since they came (its struct
 * in vmlinux.h was renamed). */
struct fault_record {
	__u64 common;
	__u64 address, ip, error_code;
};

SEC("tracepoint/exceptions/page_fault_user")
int fault_user(struct fault_record *ctx)
{
	return on_fault(ctx->address, ctx->error_code);
}

SEC("tracepoint/exceptions/page_fault_kernel")
int fault_kernel(struct fault_record *ctx)
{
	return on_fault(ctx->address, ctx->error_code);
}

#endif
