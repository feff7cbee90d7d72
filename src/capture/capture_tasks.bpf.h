/* SPDX-License-Identifier: Apache-2.0 */
/*
 * capture_tasks.bpf.h: Process events (fork, exec, exit) from the scheduler's BTF tracepoints,
 * and --sync's wake records: which captured thread woke which.
 * Part of the probe: included by capture.bpf.c at this concern's place,
 * after the state, filters and helpers it uses (inflight, wanted(),
 * rec_begin(), the SYS_ENTER/SYS_EXIT programs).
 */
#ifndef IORIOT_CAPTURE_TASKS_BPF_H
#define IORIOT_CAPTURE_TASKS_BPF_H

/* A record sent from a BTF tracepoint (process events), begun in @rec:
 * NULL, counted as lost, if no ring has room. */
static __always_inline struct scratch *process_event(struct rec *rec,
						     __u32 sys, __u32 tgid,
						     __u32 tid)
{
	struct scratch *s = rec_begin(rec);

	if (!s) {
		__sync_fetch_and_add(&lost_events, 1);
		return NULL;
	}
	__builtin_memset(&s->ev, 0, sizeof(s->ev));
	s->ev.time_ns = bpf_ktime_get_ns();
	s->ev.pid = tgid;
	s->ev.tid = tid;
	s->ev.sys = sys;
	s->ev.flags = IORIOT_EV_NO_RET;
	return s;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	struct ioriot_maps *t;
	struct scratch *s;
	struct rec rec;
	__u8 yes = 1;

	/* Descendants of a traced process are traced too. */
	if (filter_tgid && ctgid != ptgid &&
	    bpf_map_lookup_elem(&tracked, &ptgid))
		bpf_map_update_elem(&tracked, &ctgid, &yes, BPF_ANY);
	if (!wanted(ptgid))
		return 0;
	/* A child has its parent's mappings. */
	if (ctgid != ptgid && (t = bpf_map_lookup_elem(&file_maps, &ptgid)))
		bpf_map_update_elem(&file_maps, &ctgid, t, BPF_ANY);
	s = process_event(&rec, SYS_FORK, ptgid, BPF_CORE_READ(parent, pid));
	if (!s)
		return 0;
	s->ev.extra[0] = ctgid;
	s->ev.extra[1] = BPF_CORE_READ(child, pid);
	s->ev.flags |= IORIOT_EV_CHILD;
	rec_end(&rec, 0, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	__u32 tgid = BPF_CORE_READ(p, tgid);
	struct scratch *s;
	struct rec rec;
	long n;

	bpf_map_delete_elem(&file_maps, &tgid);	/* a new address space */
	if (!wanted(tgid) || !(s = process_event(&rec, SYS_EXEC, tgid,
						   BPF_CORE_READ(p, pid))))
		return 0;
	s->ev.flags &= ~IORIOT_EV_NO_RET;
	s->ev.ret = 0;
	n = bpf_probe_read_kernel_str(s->paths, IORIOT_EV_PATH_MAX,
				      BPF_CORE_READ(bprm, filename));
	rec_end(&rec, n > 1 ? (__u32)(n - 1) & (IORIOT_EV_PATH_MAX - 1) : 0, 0);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit_task, struct task_struct *p)
{
	__u32 tgid = BPF_CORE_READ(p, tgid), pid = BPF_CORE_READ(p, pid);
	struct scratch *s;
	struct rec rec;

	if (!HAVE_TASK_STORAGE) {	/* the thread's state goes with it */
		bpf_map_delete_elem(&inflight_tid, &pid);
		bpf_map_delete_elem(&aio_submits_tid, &pid);
	}
	/* The process ends with its last task (signal->live reached 0 before
	 * this tracepoint); a leader leaving early ends nothing. */
	if (BPF_CORE_READ(p, signal, live.counter) != 0)
		return 0;
	bool want = wanted(tgid);
	if (filter_tgid)
		bpf_map_delete_elem(&tracked, &tgid);
	if (filter_cgroup)
		bpf_map_delete_elem(&cgroup_verdict, &tgid);
	bpf_map_delete_elem(&file_maps, &tgid);
	if (!want)
		return 0;
	s = process_event(&rec, SYS_EXIT, tgid, pid);
	if (s)
		rec_end(&rec, 0, 0);
	return 0;
}

/*
 * --sync: which thread woke which.  A captured thread that goes to sleep
 * (switched out in a sleeping state, not preempted) is marked with the
 * time; the task that wakes it sends a wake record for it (the wakee's
 * ids, the wake's time, the waker and how long the sleep lasted) if the
 * waker is a captured task's thread, not the wakee itself, and not an
 * interrupt (a device's completion or a timer, which order nothing
 * between threads).  A futex, a pipe, a unix socket, a signal, a lock:
 * whatever the wait was for, the wake says who ended it.  Generate turns
 * the wakes that ended a thread's waits between its file operations into
 * dependencies (sync=); the calls themselves are never replayed.  The
 * record also says how long the woken thread had waited for a CPU since
 * its last event (its run delay does not grow while it sleeps), so that
 * generate can tell the wait for a CPU after the wake from the one before.
 */

/* task_struct's state before Linux 5.14 renamed it __state. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

#define PF_KTHREAD_ 0x00200000	/* include/linux/sched.h */

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev)
{
	struct inflight *in;
	struct self me;
	struct irq_cpu *c = irq_cpu_get();
	long state;

	if (c) {
		c->depth = 0;
		c->since = 0;
	}
	if (preempt)
		return 0;	/* still runnable: no wait */
	if (bpf_core_field_exists(prev->__state))
		state = BPF_CORE_READ(prev, __state);
	else
		state = BPF_CORE_READ((struct task_struct___pre514 *)prev,
				      state);
	if (state == 0)
		return 0;	/* TASK_RUNNING: a yield */
	self_get(&me);		/* prev is the current task */
	if (!wanted(me.id >> 32) || !(in = inflight_of(&me, true)))
		return 0;
	in->sleep_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(on_waking, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct task_struct *waker;
	struct inflight *in;
	struct scratch *s;
	struct rec rec;
	__u64 slept, now, id;

	if (HAVE_TASK_STORAGE)
		in = bpf_task_storage_get(&inflight, p, NULL, 0);
	else
		in = bpf_map_lookup_elem(&inflight_tid, &tid);
	if (!in || !in->sleep_ns)
		return 0;
	now = bpf_ktime_get_ns();
	slept = now > in->sleep_ns ? now - in->sleep_ns : 0;
	in->sleep_ns = 0;
	id = bpf_get_current_pid_tgid();
	waker = current_task();
	if ((__u32)id == tid || in_interrupt_ctx() ||
	    BPF_CORE_READ(waker, flags) & PF_KTHREAD_ || !wanted(id >> 32))
		return 0;
	s = process_event(&rec, SYS_WAKE, BPF_CORE_READ(p, tgid), tid);
	if (!s)
		return 0;
	s->ev.time_ns = now;
	s->ev.args[0] = id;
	s->ev.args[1] = slept;
	/* What the woken thread waited for a CPU since its last event ended:
	 * its wait after this wake, which its next event's R holds as well,
	 * is the rest of that R. */
	if (HAVE_RUN_DELAY && in->mark_ns) {
		__u64 rq = BPF_CORE_READ(p, sched_info.run_delay);

		s->ev.runq_gap = rq > in->mark_rq ? rq - in->mark_rq : 0;
		s->ev.flags |= IORIOT_EV_RUNQ_GAP;
	}
	rec_end(&rec, 0, 0);
	return 0;
}

#endif
