/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cpuring.bpf.h: the probe's side of the per-CPU rings its records travel
 * in (include/ioriot/event.h, architecture.md §4.2).  A record is built in
 * place, in the ring of the CPU the program runs on: no lock, no atomic
 * operation, no helper call, where the BPF ring buffer took a spinlock with
 * interrupts off, an atomic exchange and two helper calls per record
 * (docs/benchmarks-history.md §7.6).  A ring belongs to one program at a
 * time: programs run with preemption off, so only one that interrupted
 * another on its CPU (an io_uring completion in an interrupt, a page fault
 * while a path is read) finds the CPU's first ring busy; it writes into
 * the second.
 */
#ifndef IORIOT_CPURING_BPF_H
#define IORIOT_CPURING_BPF_H

/* BPF_F_MMAPABLE (uapi/linux/bpf.h), which the trimmed vmlinux.h lacks:
 * the reader maps the rings into its memory. */
#define RING_MAP_MMAPABLE (1U << 10)

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, RING_MAP_MMAPABLE);
	__uint(max_entries, 2);			/* the loader: two per CPU */
	__type(key, __u32);
	__type(value, struct ioriot_ring_pos);
} ring_pos SEC(".maps");

struct ring_elem {
	__u8 bytes[IORIOT_RING_ELEM];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, RING_MAP_MMAPABLE);
	__uint(max_entries, 2);			/* the loader: the rings' */
	__type(key, __u32);
	__type(value, struct ring_elem);
} ring_data SEC(".maps");

/* An event with room for two paths: what rec_begin() hands out. */
struct scratch {
	struct ioriot_event ev;
	char paths[2 * IORIOT_EV_PATH_MAX];
};

/* A record being built. */
struct rec {
	struct ioriot_ring_pos *pos;	/* its ring */
	struct ioriot_ring_rec *hdr;	/* where it starts: its event after */
	__u64 head;			/* its position */
};

#define ring_barrier() asm volatile("" ::: "memory")
/* Make the compiler forget what it knows of @x. */
#define ring_forget(x) asm volatile("" : "+r"(x))

/*
 * Room for a record of up to IORIOT_RING_REC_MAX bytes in this CPU's
 * ring, held until rec_end(), which every caller that got it calls: its
 * event, or NULL if both of the CPU's rings are busy or full (the caller
 * counts it as lost).
 */
static __always_inline struct scratch *rec_begin(struct rec *r)
{
	__u32 cpu = bpf_get_smp_processor_id();

	for (__u32 level = 0; level < 2; level++) {
		__u32 ring = cpu * 2 + level, idx;
		struct ioriot_ring_pos *pos;
		__u64 head, off;
		__u8 *elem;

		pos = bpf_map_lookup_elem(&ring_pos, &ring);
		if (!pos || pos->busy)
			continue;
		pos->busy = 1;
		ring_barrier();
		head = pos->head;
		off = head & (IORIOT_RING_ELEM - 1);
		if (off > IORIOT_RING_REC_LAST) {
			head += IORIOT_RING_ELEM - off;
			off = 0;
		}
		idx = pos->base + (__u32)((head >> IORIOT_RING_ELEM_SHIFT) &
					  (pos->elems - 1));
		elem = NULL;
		if (head + IORIOT_RING_REC_MAX - *(volatile __u64 *)&pos->tail <=
		    pos->size)
			elem = bpf_map_lookup_elem(&ring_data, &idx);
		/* The bound again, in the register the access uses: older
		 * verifiers (6.1, 5.10) lose it in the compiler's select. */
		ring_forget(off);
		if (off > IORIOT_RING_REC_LAST)
			elem = NULL;
		if (!elem) {
			ring_barrier();
			pos->busy = 0;
			continue;
		}
		r->pos = pos;
		r->head = head;
		r->hdr = (struct ioriot_ring_rec *)(elem + off);
		return (struct scratch *)(r->hdr + 1);
	}
	return NULL;
}

/* rec_begin() for a record without paths: its event, or NULL. */
static __always_inline struct ioriot_event *rec_event(struct rec *r)
{
	struct scratch *s = rec_begin(r);

	return s ? &s->ev : NULL;
}

/* Hand the reader the record of @r, with @len0 and @len1 bytes of paths
 * (each below IORIOT_EV_PATH_MAX). */
static __always_inline void rec_end(struct rec *r, __u32 len0, __u32 len1)
{
	struct ioriot_ring_pos *pos = r->pos;
	struct scratch *s = (struct scratch *)(r->hdr + 1);
	__u64 size = sizeof(*r->hdr) + sizeof(s->ev) + len0 + len1;

	s->ev.path_len[0] = (__u16)len0;
	s->ev.path_len[1] = (__u16)len1;
	size = (size + 7) & ~7ULL;
	r->hdr->len = (__u32)size;
	r->hdr->pad = 0;
	ring_barrier();
#ifdef __TARGET_ARCH_x86
	/* Stores are seen in program order: the record before its head. */
	*(volatile __u64 *)&pos->head = r->head + size;
#else
	/* A fetching atomic orders the stores before it. */
	r->head = __sync_fetch_and_add(&pos->head, r->head + size - pos->head);
#endif
	ring_barrier();
	pos->busy = 0;
}

#endif
