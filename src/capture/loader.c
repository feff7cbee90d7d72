/*
 * loader: the user-space side of the eBPF capture.  Loads the probe with
 * the filters, fills its syscall dispatch tables, attaches the tracepoints
 * this kernel has, writes the log
 * header and the snapshot of open files, then turns ring buffer records
 * into capture log lines until told to stop (capture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "ioriot/event.h"	/* before the skeleton: its rodata's types */
#include "capture.skel.h"
#include "ioriot/capture.h"
#include "ioriot/clock.h"
#include "ioriot/log.h"
#include "calib.h"
#include "cpuring.h"
#include "emit.h"
#include "snapshot.h"

#define TRACEFS "/sys/kernel/tracing"
/* The probe never wakes the reader: it reads rings of B bytes per CPU
 * every B / POLL_DRAIN_BPS / 4 seconds, a quarter of the time the fastest
 * capture (2 M records/s of about 200 bytes, paths included) takes to
 * fill one, within these bounds. */
#define POLL_DRAIN_BPS (400ULL << 20)
#define POLL_MIN_MS 1
#define POLL_MAX_MS 100

struct loader {
	const struct capture_options *opt;
	struct capture_summary *sum;
	struct capture_log *log;
	struct outbuf *ob;		/* the log's */
	struct emitter *em;		/* events on their way to the log */
	struct capture_bpf *skel;	/* the probe */
	struct cpuring rings;		/* their reader */
	void *pos, *data;		/* the rings, mapped */
	size_t pos_len, data_len;	/* bytes of their mappings */
	unsigned int ncpu, elems;	/* CPUs, elements of a first ring */
	int tick_ms;			/* how often the rings are read */
	bool draining;			/* the final consume: take everything */
	uint64_t handled;		/* records seen, to pace clock reads */
	uint64_t start;			/* CLOCK_MONOTONIC start of recording */
	uint64_t duration;		/* how long to record */
	uint64_t deadline;		/* CLOCK_MONOTONIC end of the capture */
	struct probe_cost cost;		/* the probe's own, calib.h */
	uint32_t own_pid;		/* ioriot's */
	char p1[IORIOT_EV_PATH_MAX], p2[IORIOT_EV_PATH_MAX];
};

/* One record: held until its turn, then a log line.  Returns 0 (the
 * rings' reader goes on), or -EINTR to let the loop see a stop. */
static int handle_event(void *ctx, const void *data, size_t size)
{
	struct loader *ld = ctx;
	const struct ioriot_event *e = data;
	struct cap_event ce;

	/* The probe leaves ioriot out, but for the thread that measured
	 * its cost (calib.h): once traced, -x keeps a thread in. */
	if (size < sizeof(*e) || e->pid == ld->own_pid ||
	    size < sizeof(*e) + e->path_len[0] + e->path_len[1] ||
	    e->path_len[0] >= IORIOT_EV_PATH_MAX ||
	    e->path_len[1] >= IORIOT_EV_PATH_MAX)
		return 0;
	memcpy(ld->p1, e + 1, e->path_len[0]);
	ld->p1[e->path_len[0]] = '\0';
	memcpy(ld->p2, (const char *)(e + 1) + e->path_len[0], e->path_len[1]);
	ld->p2[e->path_len[1]] = '\0';
	if (capture_event_fields(e, ld->p1, ld->p2, &ce))
		return 0;
	if (e->flags & IORIOT_EV_PATH_CUT)
		ld->sum->paths_cut++;
	/* Released after the other CPUs' rings are read (record()). */
	emitter_push(ld->em, &ce);
	/* A long backlog: let the loop see a stop request or the end of the
	 * duration (this record is held; the rest stays queued). */
	if (!ld->draining &&
	    (stop_requested(ld->opt) ||
	     ((++ld->handled & 4095) == 0 &&
	      clock_ns(CLOCK_MONOTONIC) >= ld->deadline)))
		return -EINTR;
	return 0;
}

/* Per-syscall tracepoints need tracefs; mount it if nobody has. */
static int ensure_tracefs(char *err, size_t errlen)
{
	struct stat st;

	if (stat(TRACEFS "/events/syscalls", &st) == 0)
		return 0;
	if (mount("tracefs", TRACEFS, "tracefs", 0, NULL) < 0 ||
	    stat(TRACEFS "/events/syscalls", &st) < 0) {
		snprintf(err, errlen, "%s: no syscall tracepoints (tracefs: %s)",
			 TRACEFS, strerror(errno));
		return -ENOENT;
	}
	return 0;
}

/* True if the kernel's BPF helpers include bpf_get_current_task_btf(),
 * which came (5.11) with task storage for tracing programs; the probe
 * makes the same check through CO-RE. */
static bool kernel_has_task_storage(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	bool found = false;
	int id;

	if (!btf)
		return true;	/* loading the probe will tell */
	id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	t = id > 0 ? btf__type_by_id(btf, (uint32_t)id) : NULL;
	for (int i = 0; t && i < btf_vlen(t) && !found; i++)
		found = strcmp(btf__name_by_offset(btf, btf_enum(t)[i].name_off),
			       "BPF_FUNC_get_current_task_btf") == 0;
	btf__free(btf);
	return found;
}

/* On a kernel without task storage for tracing programs (5.10 has such
 * maps for BPF LSM only, and refuses some of them) the probe keeps its
 * per-thread state in hash maps; its task storage maps, used only in code
 * the verifier never reaches there, become small hash maps. */
static int retype_task_storage(struct capture_bpf *skel)
{
	struct bpf_map *maps[] = { skel->maps.inflight, skel->maps.aio_submits };
	int rc = 0;

	if (kernel_has_task_storage())
		return 0;
	for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]) && !rc; i++)
		if (!(rc = bpf_map__set_type(maps[i], BPF_MAP_TYPE_HASH)))
			rc = bpf_map__set_max_entries(maps[i], 1);
	return rc;
}

/* Tracepoints the kernel has under one name or the other: the old name
 * (before 6.4), then the new one.  A kernel lacks one of them; only one
 * that lacks both misses it. */
static const char *const tp_renamed[][2] = {
	{ "io_uring/io_uring_submit_sqe", "io_uring/io_uring_submit_req" },
};

/* True if tracepoint @tp (SYSTEM/NAME) exists on this kernel. */
static bool tp_exists(const char *tp)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), TRACEFS "/events/%s/id", tp);
	return stat(path, &st) == 0;
}

/* The other name of tracepoint @tp, or NULL. */
static const char *tp_other_name(const char *tp)
{
	for (size_t i = 0; i < sizeof(tp_renamed) / sizeof(tp_renamed[0]); i++)
		for (int j = 0; j < 2; j++)
			if (strcmp(tp, tp_renamed[i][j]) == 0)
				return tp_renamed[i][!j];
	return NULL;
}

/* Switch off programs whose tracepoint this kernel lacks (the io_uring
 * and page fault ones; syscalls come through the raw tracepoints), named
 * in one warning; returns how many it lacks (a renamed one counts only if
 * neither name exists). */
static int disable_missing(struct capture_bpf *skel)
{
	struct bpf_program *prog;
	char names[512] = "";
	size_t len = 0;
	int missing = 0;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog), *other;

		if (strncmp(sec, "tracepoint/", 11) != 0 || tp_exists(sec + 11))
			continue;
		bpf_program__set_autoload(prog, false);
		other = tp_other_name(sec + 11);
		if (other && tp_exists(other))
			continue;
		int n = snprintf(names + len, sizeof(names) - len, "%s%s",
				 missing++ ? ", " : "", sec + 11);
		if (n > 0 && (size_t)n < sizeof(names) - len)
			len += (size_t)n;
	}
	if (missing)
		log_warn("this kernel has no tracepoints %s: not captured", names);
	return missing;
}

/* The number of syscall @name as the kernel's tracepoints spell it: its
 * own, or the one the kernel's table gives it (newstat is stat,
 * sendfile64 is sendfile); -1 if unknown. */
static int program_nr(const char *name)
{
	char base[64];
	size_t len = strlen(name);
	int nr = capture_syscall_nr(name);

	if (nr < 0 && strncmp(name, "new", 3) == 0)
		nr = capture_syscall_nr(name + 3);
	if (nr < 0 && len > 2 && len < sizeof(base) &&
	    strcmp(name + len - 2, "64") == 0) {
		memcpy(base, name, len - 2);
		base[len - 2] = '\0';
		nr = capture_syscall_nr(base);
	}
	return nr;
}

/* The syscall number of @prog if it is a syscall's entry (@exit false) or
 * exit program, a tail call target of the dispatchers; -1 otherwise, and
 * for a syscall whose number is unknown. */
static int syscall_program_nr(const struct bpf_program *prog, bool exit)
{
	const char *sec = exit ? "tp_btf/sys_exit" : "tp_btf/sys_enter";
	const char *prefix = exit ? "exit_" : "enter_";
	const char *name = bpf_program__name(prog);

	if (strcmp(bpf_program__section_name(prog), sec) != 0 ||
	    strncmp(name, prefix, strlen(prefix)) != 0)
		return -1;
	return program_nr(name + strlen(prefix));
}

/*
 * Mark for the probe the syscall numbers it captures and how: those of
 * its TRACED list (trace_specs, captured by the dispatchers themselves),
 * those with entry programs of their own (tail call targets, not attached:
 * the dispatchers are), and the process calls whose effect the process
 * records show (fork, exec).  The probe counts the others.
 */
static void mark_captured(struct capture_bpf *skel)
{
	static const char *const process_calls[] = {
		"clone", "clone3", "fork", "vfork", "execve", "execveat",
	};
	const size_t nspecs = sizeof(skel->rodata->trace_specs) /
			      sizeof(skel->rodata->trace_specs[0]);
	volatile __u8 *captured = skel->rodata->captured_nr;
	struct bpf_program *prog;
	int nr;

	for (size_t i = 0; i < nspecs; i++) {
		const struct trace_spec *t = &skel->rodata->trace_specs[i];

		nr = program_nr(t->name);
		if (nr < 0 || nr >= IORIOT_UNCAP_OTHER_ABI) {
			log_warn("%s: no syscall number known: its calls are "
				 "counted as not captured", t->name);
			continue;
		}
		skel->rodata->nr_specs[nr] = (struct nr_spec){
			.sys = t->sys, .nargs = t->nargs, .p1 = t->p1,
			.p2 = t->p2, .kind = t->kind, .traced = 1,
		};
		captured[nr] = 1;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		const char *name = bpf_program__name(prog);

		if ((strcmp(sec, "tp_btf/sys_enter") != 0 &&
		     strcmp(sec, "tp_btf/sys_exit") != 0) ||
		    strncmp(name, "on_", 3) == 0)
			continue;
		bpf_program__set_autoattach(prog, false);
		if (strncmp(name, "enter_", 6) != 0)
			continue;
		nr = syscall_program_nr(prog, false);
		if (nr >= 0 && nr < IORIOT_UNCAP_OTHER_ABI)
			captured[nr] = 1;
		else
			log_warn("%s: no syscall number known: its calls are "
				 "counted as not captured", name + 6);
	}
	for (size_t i = 0; i < sizeof(process_calls) / sizeof(process_calls[0]); i++) {
		nr = capture_syscall_nr(process_calls[i]);
		if (nr >= 0 && nr < IORIOT_UNCAP_OTHER_ABI)
			captured[nr] = 1;
	}
}

/* Put each loaded syscall program into its dispatcher's table; 0 or
 * -errno. */
static int fill_dispatch(struct capture_bpf *skel)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		for (int exit = 0; exit < 2; exit++) {
			struct bpf_map *table = exit ? skel->maps.exit_progs
						     : skel->maps.enter_progs;
			int nr = syscall_program_nr(prog, exit);
			int fd = bpf_program__fd(prog);

			if (nr < 0 || nr >= IORIOT_UNCAP_OTHER_ABI || fd < 0)
				continue;
			__u32 key = (__u32)nr;
			if (bpf_map__update_elem(table, &key, sizeof(key), &fd,
						 sizeof(fd), 0))
				return -errno;
		}
	}
	return 0;
}

/*
 * The probe's counts of syscalls it did not capture, summed over the
 * CPUs, into @u by name, sorted.  0 or -errno (@u is then unknown).
 */
static int read_uncaptured(struct capture_bpf *skel, struct uncaptured *u)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *per_cpu;
	int rc = 0;

	memset(u, 0, sizeof(*u));
	if (ncpu < 0)
		return ncpu;
	per_cpu = calloc((size_t)ncpu, sizeof(*per_cpu));
	if (!per_cpu)
		return -ENOMEM;
	for (uint32_t nr = 0; nr < IORIOT_UNCAP_SLOTS && !rc; nr++) {
		const char *name = capture_syscall_name(nr);
		char numbered[UNCAP_NAME_MAX];
		uint64_t sum = 0;

		if (bpf_map__lookup_elem(skel->maps.uncaptured, &nr, sizeof(nr),
					 per_cpu, (size_t)ncpu * sizeof(*per_cpu), 0)) {
			rc = -errno;
			break;
		}
		for (int cpu = 0; cpu < ncpu; cpu++)
			sum += per_cpu[cpu];
		if (!sum)
			continue;
		if (nr == IORIOT_UNCAP_OTHER_ABI)
			name = UNCAP_OTHER_ABI;
		else if (!name) {
			snprintf(numbered, sizeof(numbered), "syscall_%u", nr);
			name = numbered;
		}
		rc = uncaptured_add(u, name, sum);
	}
	free(per_cpu);
	if (rc) {
		memset(u, 0, sizeof(*u));
		return rc;
	}
	uncaptured_sort(u);
	u->known = true;
	return 0;
}

/* libbpf's messages, its format strings passed on as they come. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int quiet_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_WARN && log_get_level() >= LOG_INFO)
		return vfprintf(stderr, fmt, ap);
	return 0;
}
#pragma GCC diagnostic pop

/* The log header: host, kernel, clock start, the probe's cost and the
 * mount table. */
static void write_header(struct outbuf *ob, const struct probe_cost *cost)
{
	struct caplog_header hdr = { .version = CAPLOG_VERSION };
	struct utsname uts;

	if (uname(&uts) == 0) {
		snprintf(hdr.host, sizeof(hdr.host), "%s", uts.nodename);
		snprintf(hdr.kernel, sizeof(hdr.kernel), "%s", uts.release);
	}
	snprintf(hdr.backend, sizeof(hdr.backend), "bpf");
	hdr.start_epoch_ns = clock_ns(CLOCK_REALTIME);
	hdr.probe_gap_ns = cost->gap_ns;
	hdr.probe_call_ns = cost->call_ns;
	hdr.mounts = mounttab_new();
	if (hdr.mounts && mounttab_load(hdr.mounts, "/proc/self/mounts"))
		log_warn("cannot read /proc/self/mounts: the log has no mount table");
	caplog_write_header(ob, &hdr);
	mounttab_free(hdr.mounts);
}

/* Write a record for events the ring buffer dropped since the last one. */
static void note_lost(struct loader *ld, struct capture_bpf *skel)
{
	uint64_t lost = __atomic_load_n(&skel->bss->lost_events, __ATOMIC_RELAXED);
	struct cap_event ev;

	if (lost <= ld->sum->lost)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.sys = SYS_LOST;
	ev.time_ns = clock_ns(CLOCK_MONOTONIC);
	ev.count = (int64_t)(lost - ld->sum->lost);
	ev.have = CAP_COUNT;
	/* After a failed write the end record still has the total. */
	if (!ld->ob->err)
		caplog_write_event(ld->ob, &ev);
	ld->sum->lost = lost;
}

/*
 * Free the probe.  Each tracepoint detach waits for RCU grace periods under
 * a kernel mutex, so freeing ~150 of them takes seconds; the log is complete
 * already, so a child holding copies of the fds does it while we return.
 */
static void release_probe(struct capture_bpf *skel)
{
	int gate[2] = { -1, -1 };
	pid_t child = -1;

	if (skel && pipe2(gate, O_CLOEXEC) == 0)
		child = fork();
	/* The children leave by the raw syscall: no exit handlers (ours, a
	 * sanitizer's) may run in a copy of a possibly threaded process. */
	if (child == 0 && fork() != 0) {
		syscall(SYS_exit_group, 0);	/* the grandchild works on */
		__builtin_unreachable();
	}
	if (child == 0) {
		/* Let pipes and terminals see our end of output at once. */
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		char c;
		for (int fd = 0; null >= 0 && fd <= 2; fd++)
			dup2(null, fd);
		/* Wait until the parent has closed its copies, so that the
		 * last close, the slow one, is ours. */
		close(gate[1]);
		while (read(gate[0], &c, 1) < 0 && errno == EINTR)
			;
		capture_bpf__destroy(skel);
		syscall(SYS_exit_group, 0);
		__builtin_unreachable();
	}
	/* With the child's copies open, our closes are quick; without a
	 * child this is the slow path. */
	capture_bpf__destroy(skel);
	if (child > 0)
		waitpid(child, NULL, 0);
	if (gate[0] >= 0) {
		close(gate[0]);
		close(gate[1]);		/* EOF: the grandchild goes on */
	}
}

/* What seed_maps() needs. */
struct seed {
	struct capture_bpf *skel;
	const struct path_filter *filter;
	uint64_t unfollowed;	/* file mappings the probe does not follow */
};

/*
 * snapshot_write()'s callback: the file mappings process @pid has now
 * into the probe's table.  If an mmap of it made the table meanwhile, or
 * there is no memory for it, they are not followed (counted).
 */
static void seed_maps(void *ctx, uint32_t pid)
{
	struct seed *sd = ctx;
	struct ioriot_maps *t = calloc(1, sizeof(*t));
	uint64_t full = 0, n = 0;

	if (!t || capture_read_maps("/proc", pid, sd->filter, t, &full)) {
		free(t);
		return;		/* no memory, or the process is gone */
	}
	while (n < IORIOT_EV_MAPS && t->r[n].end)
		n++;
	if (n && bpf_map__update_elem(sd->skel->maps.file_maps, &pid,
				      sizeof(pid), t, sizeof(*t), BPF_NOEXIST))
		full += n;
	sd->unfollowed += full;
	free(t);
}

/* Mark @pids (-x PID and its descendants) as traced.  0 or -errno. */
static int track(struct capture_bpf *skel, const uint32_t *pids, size_t n)
{
	uint8_t yes = 1;

	for (size_t i = 0; i < n; i++)
		if (bpf_map__update_elem(skel->maps.tracked, &pids[i],
					 sizeof(pids[i]), &yes, sizeof(yes), BPF_ANY))
			return -errno;
	return 0;
}

/* Whether this host can run the probe: root, BTF, tracefs.  0 or -errno
 * with a message. */
static int check_host(char *err, size_t errlen)
{
	struct stat st;

	if (geteuid() != 0) {
		snprintf(err, errlen, "capture needs root (CAP_BPF, CAP_PERFMON): "
			 "run it with sudo");
		return -EPERM;
	}
	if (stat("/sys/kernel/btf/vmlinux", &st) < 0) {
		snprintf(err, errlen, "this kernel has no BTF (/sys/kernel/btf/vmlinux): "
			 "use the SystemTap backend (-m MODULE)");
		return -ENOENT;
	}
	return ensure_tracefs(err, errlen);
}

/* Map the loaded probe's rings (ld->ncpu CPUs, ld->elems elements for
 * each first ring) into ld->rings and lay them out.  Returns 0 or -errno. */
static int map_rings(struct loader *ld)
{
	struct capture_bpf *skel = ld->skel;
	long page = sysconf(_SC_PAGESIZE);
	void *pos, *data;

	ld->pos_len = 2 * ld->ncpu * sizeof(struct ioriot_ring_pos);
	ld->pos_len = (ld->pos_len + (size_t)page - 1) / (size_t)page * (size_t)page;
	ld->data_len = (size_t)ld->ncpu * (ld->elems + 1) * IORIOT_RING_ELEM;
	pos = mmap(NULL, ld->pos_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   bpf_map__fd(skel->maps.ring_pos), 0);
	if (pos == MAP_FAILED)
		return -errno;
	data = mmap(NULL, ld->data_len, PROT_READ, MAP_SHARED,
		    bpf_map__fd(skel->maps.ring_data), 0);
	if (data == MAP_FAILED) {
		int rc = -errno;

		munmap(pos, ld->pos_len);
		return rc;
	}
	ld->pos = pos;
	ld->data = data;
	cpuring_layout(pos, ld->ncpu, ld->elems);
	return cpuring_init(&ld->rings, pos, data, 2 * ld->ncpu,
			    (size_t)ld->ncpu * (ld->elems + 1));
}

static void unmap_rings(struct loader *ld)
{
	cpuring_fini(&ld->rings);
	if (ld->pos)
		munmap(ld->pos, ld->pos_len);
	if (ld->data)
		munmap(ld->data, ld->data_len);
}

/*
 * Open, configure (filters, the rings' sizes, the tracepoints this kernel
 * lacks left out), load and attach the probe into ld->skel.  Returns 0 or
 * -errno with a message.
 */
static int load_probe(struct loader *ld, char *err, size_t errlen)
{
	const struct capture_options *opt = ld->opt;
	struct capture_bpf *skel;
	int rc;

	libbpf_set_print(quiet_libbpf);
	skel = ld->skel = capture_bpf__open();
	if (!skel) {
		rc = -errno;
		snprintf(err, errlen, "opening the BPF probe: %s", strerror(errno));
		return rc;
	}
	skel->rodata->own_tgid = (uint32_t)getpid();
	skel->rodata->filter_tgid = opt->pid != 0;
	if (opt->comm) {
		skel->rodata->filter_comm = true;
		strncpy((char *)skel->rodata->targ_comm, opt->comm,
			sizeof(skel->rodata->targ_comm) - 1);
	}
	if (opt->cgroup) {
		skel->rodata->filter_cgroup = true;
		skel->rodata->targ_cgroup = opt->cgroup->id;
		skel->rodata->targ_cgroup_ssid = opt->cgroup->ssid;
	}
	if ((rc = bpf_map__set_max_entries(skel->maps.ring_pos, 2 * ld->ncpu)) ||
	    (rc = bpf_map__set_max_entries(skel->maps.ring_data,
					   ld->ncpu * (ld->elems + 1)))) {
		snprintf(err, errlen, "rings of %u MiB for %u CPUs: %s",
			 ld->elems, ld->ncpu, strerror(-rc));
		return rc;
	}
	if ((rc = retype_task_storage(skel))) {
		snprintf(err, errlen, "preparing the BPF probe's maps: %s",
			 strerror(-rc));
		return rc;
	}
	ld->sum->detached = disable_missing(skel);
	mark_captured(skel);
	if (!opt->sync) {	/* no wake records: the scheduler untouched */
		bpf_program__set_autoload(skel->progs.on_switch, false);
		bpf_program__set_autoload(skel->progs.on_waking, false);
	}
	if ((rc = capture_bpf__load(skel))) {
		snprintf(err, errlen, "loading the BPF probe: %s%s", strerror(-rc),
			 rc == -EPERM ? " (BPF not permitted: root with "
			 "CAP_BPF, or kernel.unprivileged_bpf_disabled?)" :
			 rc == -EINVAL ? " (the kernel may be too old for this "
			 "probe: it needs BTF, Linux 5.10 or later; use the "
			 "SystemTap backend, -m)" : "");
		return rc;
	}
	if ((rc = map_rings(ld))) {
		snprintf(err, errlen, "mapping the probe's rings (%u MiB per "
			 "CPU): %s", ld->elems + 1, strerror(-rc));
		return rc;
	}
	if ((rc = fill_dispatch(skel))) {
		snprintf(err, errlen, "the BPF probe's syscall tables: %s",
			 strerror(-rc));
		return rc;
	}
	log_info("capture: BPF probe loaded (%s), rings of %u + 1 MiB for each "
		 "of %u CPUs, read every %d ms; %d tracepoints this kernel "
		 "lacks left out",
		 opt->pid ? "-x: the process and its descendants" :
		 opt->comm ? "--comm: tasks of that name" :
		 opt->cgroup ? "--cgroup: the processes of a cgroup" :
		 "every process",
		 ld->elems, ld->ncpu, ld->tick_ms, ld->sum->detached);
	if ((rc = capture_bpf__attach(skel))) {
		snprintf(err, errlen, "attaching the BPF probe: %s", strerror(-rc));
		return rc;
	}
	log_info("capture: probe attached to the raw sys_enter and sys_exit "
		 "tracepoints");
	return 0;
}

/*
 * With the probe attached: -x's processes tracked, the ring buffer's
 * reader, the log's header and the /proc snapshot (after attaching, so
 * nothing opened meanwhile is missed).  ld->start is the capture's start.
 * Returns 0 or -errno with a message.
 */
static int start_recording(struct loader *ld, struct seed *sd, char *err,
			   size_t errlen)
{
	const struct capture_options *opt = ld->opt;
	uint32_t *pids = NULL;
	size_t npids = 0;
	int rc;

	/* -x: the process and its descendants, found after attaching, so
	 * that the probe's fork handler tracks every later child. */
	if (opt->pid &&
	    ((rc = snapshot_descendants("/proc", opt->pid, &pids, &npids)) ||
	     (rc = track(ld->skel, pids, npids)))) {
		snprintf(err, errlen, "tracking pid %u: %s", opt->pid, strerror(-rc));
		goto out;
	}
	ld->start = clock_ns(CLOCK_MONOTONIC);
	ld->deadline = ld->start + ld->duration;
	write_header(ld->ob, &ld->cost);
	struct snapshot_options so = {
		.proc_root = "/proc", .own_pid = (uint32_t)getpid(),
		.comm = opt->comm, .cgroup = opt->cgroup, .time_ns = ld->start,
		.filter = &opt->filter,
		.each = seed_maps, .each_ctx = sd,
	};
	if (opt->pid) {
		so.pids = pids;
		so.npids = npids;
	}
	rc = snapshot_write(&so, ld->ob, &ld->em->res, &ld->sum->snapshot_fds);
	if (rc) {
		snprintf(err, errlen, "snapshot of /proc: %s", strerror(-rc));
		goto out;
	}
	capture_log_sync(ld->log);
	log_info("capture: /proc snapshot written (%llu open files); "
		 "recording into %s", (unsigned long long)ld->sum->snapshot_fds,
		 opt->output);
out:
	free(pids);
	return rc;
}

/*
 * Take the ring's records on each tick until a stop, the duration's end,
 * or a failed write or allocation (which ends the loop; its error is in
 * ld->em or ld->ob).  Returns 0 or -errno of the ring with a message.
 */
static int record(struct loader *ld, char *err, size_t errlen)
{
	uint64_t now = ld->start, last_status = ld->start, wake = ld->start;
	const uint64_t tick = (uint64_t)ld->tick_ms * 1000000;
	int rc;

	while (!stop_requested(ld->opt) && now - ld->start < ld->duration) {
		/* Nothing wakes us: we read a tick after the last read
		 * began, at once when reading took that long. */
		wake += tick;
		now = clock_ns(CLOCK_MONOTONIC);
		if (now < wake) {
			poll(NULL, 0, (int)((wake - now + 999999) / 1000000));
			now = clock_ns(CLOCK_MONOTONIC);
		} else {
			wake = now;
		}
		rc = (int)cpuring_consume(&ld->rings, handle_event, ld);
		if (rc < 0 && rc != -EINTR) {
			snprintf(err, errlen, "the probe's rings: %s",
				 strerror(-rc));
			return rc;
		}
		note_lost(ld, ld->skel);
		/* Every call that returned before @now is in, from every
		 * CPU: one still running began before the window, or comes
		 * after it.  Not so after a stop within the read: the rings
		 * are drained first (stop_recording()). */
		if (rc != -EINTR)
			emitter_release(ld->em, now);
		capture_log_tick(ld->log, now);
		capture_log_status(ld->log, ld->opt, ld->sum, ld->start,
				   ld->duration, now, &last_status);
		if (ld->em->err || ld->ob->err)
			break;
	}
	return 0;
}

/* Stop recording, take what is still in the ring, and fill the summary's
 * last counters (losses, duration, mappings, the uncaptured counts). */
static void stop_recording(struct loader *ld, const struct seed *sd)
{
	struct capture_bpf *skel = ld->skel;
	struct capture_summary *sum = ld->sum;
	int rc;

	__atomic_store_n(&skel->bss->stopped, true, __ATOMIC_SEQ_CST);
	ld->draining = true;
	if (cpuring_consume(&ld->rings, handle_event, ld) == -EPROTO)
		log_warn("the probe's rings hold a record that is not one: "
			 "the rest of its ring is not in the log");
	emitter_release(ld->em, UINT64_MAX);
	note_lost(ld, skel);
	sum->duration_ns = clock_ns(CLOCK_MONOTONIC) - ld->start;
	sum->maps_unfollowed = sd->unfollowed +
			       __atomic_load_n(&skel->bss->maps_full, __ATOMIC_RELAXED);
	if ((rc = read_uncaptured(skel, &sum->uncaptured)))
		log_warn("reading the counts of syscalls not captured: %s: the "
			 "log has no uncaptured record", strerror(-rc));
}

int capture_run(const struct capture_options *opt, struct capture_summary *sum,
		char *err, size_t errlen)
{
	uint64_t ring = opt->ring_bytes ? opt->ring_bytes :
			CAPTURE_DEFAULT_RING_BYTES;
	int ncpu = libbpf_num_possible_cpus();
	uint64_t poll_ms, bare_ns;
	struct loader *ld = calloc(1, sizeof(*ld));
	struct seed sd = { 0 };
	int rc;

	memset(sum, 0, sizeof(*sum));
	if (!ld) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	ld->opt = opt;
	ld->sum = sum;
	ld->own_pid = (uint32_t)getpid();
	ld->duration = opt->duration_ns ? opt->duration_ns :
		       CAPTURE_DEFAULT_DURATION_NS;
	if (ncpu <= 0) {
		snprintf(err, errlen, "counting the CPUs: %s", strerror(-ncpu));
		rc = ncpu < 0 ? ncpu : -EINVAL;
		goto out;
	}
	ld->ncpu = (unsigned int)ncpu;
	ld->elems = cpuring_elems(ring, ld->ncpu);
	poll_ms = (uint64_t)ld->elems * IORIOT_RING_ELEM * 1000 /
		  POLL_DRAIN_BPS / 4;
	ld->tick_ms = poll_ms < POLL_MIN_MS ? POLL_MIN_MS :
		      poll_ms > POLL_MAX_MS ? POLL_MAX_MS : (int)poll_ms;
	if ((rc = check_host(err, errlen)))
		goto out;
	if (!(ld->log = capture_log_open(opt, err, errlen))) {
		rc = -errno;
		goto out;
	}
	ld->ob = &ld->log->ob;
	if (!(ld->em = emitter_new(&opt->filter, sum, ld->ob))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	bare_ns = calib_bare_ns();
	if ((rc = load_probe(ld, err, errlen)))
		goto out;
	/* What the probe adds to the gaps --think replays: measured before
	 * the header is written, kept out by generate (capture-format §4.2). */
	if ((rc = calib_measure(&ld->skel->bss->calib_id, &ld->rings,
				handle_event, ld, bare_ns, &ld->cost)))
		log_warn("measuring the probe's own cost: %s: the log does not "
			 "say it, and --think replays it in the gaps",
			 strerror(-rc));
	sd = (struct seed){ .skel = ld->skel, .filter = &opt->filter };
	if ((rc = start_recording(ld, &sd, err, errlen)))
		goto out;
	if (opt->ready)
		opt->ready(opt->ready_ctx);
	if ((rc = record(ld, err, errlen)))
		goto out;
	stop_recording(ld, &sd);
	/* A log that misses events for want of memory gets no end record. */
	rc = ld->em->err;
	if (rc)
		snprintf(err, errlen, "%s: %s", opt->output, strerror(-rc));
	else
		rc = capture_log_end(ld->log, sum, err, errlen);
out:
	if (ld && ld->log) {
		int closed;

		if (!sum->bytes)
			sum->bytes = capture_log_bytes(ld->log);
		closed = capture_log_close(ld->log);
		if (closed && !rc) {
			rc = closed;
			snprintf(err, errlen, "%s: %s", opt->output, strerror(-rc));
		}
	}
	if (ld) {
		unmap_rings(ld);
		release_probe(ld->skel);
		emitter_free(ld->em);
		free(ld);
	}
	return rc;
}
