/*
 * stap: capture with a compiled SystemTap module of systemtap/ioriot.stp,
 * for kernels without BPF.  Runs staprun directly (fork and execvp with an
 * argument vector, never a shell) and reads the v4 lines the module prints:
 * its header goes to the log as it is, followed by the mount table and the
 * snapshot of open files; its events go the way of the BPF capture's
 * (emit.h): back into entry-time order, their paths made absolute, the
 * path filters applied (capture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/capture.h"
#include "ioriot/clock.h"
#include "emit.h"
#include "ioriot/log.h"
#include "ioriot/textsafe.h"
#include "snapshot.h"

#define LINE_BUF (1 << 20)

/* What the module prints once its syscall probes are registered; not an
 * event, and not written to the log. */
#define ARMED_LINE "#|probes_armed|\n"

/* What the module prints at its end, a line per syscall number the
 * captured tasks called: "#|syscall_count|NR=COUNT|". */
#define COUNT_PREFIX "#|syscall_count|"

/*
 * The syscalls systemtap/ioriot.stp probes, by their x86_64 names (the
 * o= names of its lines, exec records for execve and execveat), and the
 * process calls whose effect its fork records show.  tests/test_stap.c
 * checks this list against the script.
 */
static const char *const stap_probed[] = {
	"access", "chdir", "chmod", "chown", "close", "copy_file_range",
	"creat", "dup", "dup2", "dup3", "exit_group", "faccessat",
	"faccessat2", "fadvise64", "fallocate", "fchdir", "fchmod",
	"fchmodat", "fchmodat2", "fchown", "fchownat", "fcntl", "fdatasync",
	"fgetxattr", "flistxattr", "flock", "fremovexattr", "fsetxattr",
	"fstat", "fstatfs", "fsync", "ftruncate", "getdents", "getdents64",
	"getxattr", "ioctl", "lchown", "lgetxattr", "link", "linkat",
	"listxattr", "llistxattr", "lremovexattr", "lseek", "lsetxattr",
	"lstat", "mkdir", "mkdirat", "mknod", "mknodat", "mmap", "mremap",
	"msync", "munmap", "newfstatat", "open", "openat", "pread64",
	"preadv", "preadv2", "pwrite64", "pwritev", "pwritev2", "read",
	"readahead", "readlink", "readlinkat", "readv", "removexattr",
	"rename", "renameat", "renameat2", "rmdir", "sendfile", "setxattr",
	"splice", "stat", "statfs", "statx", "symlink", "symlinkat", "sync",
	"sync_file_range", "syncfs", "tee", "truncate", "unlink", "unlinkat",
	"utimensat", "write", "writev",
	"execve", "execveat", "clone", "clone3", "fork", "vfork",
};

bool capture_stap_probes(const char *name)
{
	for (size_t i = 0; i < sizeof(stap_probed) / sizeof(stap_probed[0]); i++)
		if (!strcmp(stap_probed[i], name))
			return true;
	return false;
}

/*
 * One of the module's syscall counts, "NR=COUNT|" (the NUL-terminated
 * rest of its line after COUNT_PREFIX at @s), into @u by name: a syscall
 * the script does not probe, or the ioctls whose command it does not
 * capture (@ioctls lines were printed, all before the counts).  Returns
 * 0, -EPROTO for a malformed count, or what uncaptured_add() returns.
 */
static int stap_count(const char *s, uint64_t ioctls, struct uncaptured *u)
{
	unsigned long nr;
	unsigned long long count;
	char numbered[UNCAP_NAME_MAX];
	const char *name;
	int used = 0;

	if (sscanf(s, "%lu=%llu|%n", &nr, &count, &used) != 2 || !used ||
	    (s[used] && s[used] != '\n'))
		return -EPROTO;
	name = nr < IORIOT_UNCAP_OTHER_ABI ? capture_syscall_name((unsigned)nr)
					   : NULL;
	if (!name) {
		snprintf(numbered, sizeof(numbered), "syscall_%lu", nr);
		name = numbered;
	}
	if (!strcmp(name, "ioctl"))
		count = count > ioctls ? count - ioctls : 0;
	else if (capture_stap_probes(name))
		count = 0;
	u->known = true;
	return count ? uncaptured_add(u, name, count) : 0;
}

/* Start staprun with stdout and stderr into pipes (*@out_fd, *@err_fd);
 * returns its pid or -errno. */
static pid_t spawn_staprun(const struct capture_options *opt, const char *module,
			   int *out_fd, int *err_fd)
{
	char pid_arg[32], comm_arg[64], skip_arg[48];
	const char *argv[8];
	int n = 0, pfd[2] = { -1, -1 }, efd[2] = { -1, -1 };
	pid_t child;

	argv[n++] = "staprun";
	if (opt->pid) {
		snprintf(pid_arg, sizeof(pid_arg), "%u", opt->pid);
		argv[n++] = "-x";
		argv[n++] = pid_arg;
	}
	argv[n++] = module;
	/* Module parameters: ioriot writes the log, so it is never traced. */
	snprintf(skip_arg, sizeof(skip_arg), "skip_pid=%d", (int)getpid());
	argv[n++] = skip_arg;
	if (opt->comm) {
		snprintf(comm_arg, sizeof(comm_arg), "comm=%s", opt->comm);
		argv[n++] = comm_arg;
	}
	argv[n] = NULL;
	if (log_get_level() >= LOG_INFO) {
		char line[512] = "";
		size_t used = 0;

		for (int i = 0; i < n && used < sizeof(line); i++)
			used += (size_t)snprintf(line + used, sizeof(line) - used,
						 "%s%s", i ? " " : "", argv[i]);
		log_info("capture: running %s", line);
	}
	if (pipe2(pfd, O_CLOEXEC) < 0 || pipe2(efd, O_CLOEXEC) < 0) {
		child = -errno;
		goto fail;
	}
	child = fork();
	if (child < 0) {
		child = -errno;
		goto fail;
	}
	if (child == 0) {
		if (dup2(pfd[1], 1) < 0 || dup2(efd[1], 2) < 0)
			_exit(127);
		execvp("staprun", (char *const *)argv);
		fprintf(stderr, "ioriot: staprun: %s\n", strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	close(efd[1]);
	*out_fd = pfd[0];
	*err_fd = efd[0];
	return child;
fail:
	for (int i = 0; i < 2; i++) {
		if (pfd[i] >= 0)
			close(pfd[i]);
		if (efd[i] >= 0)
			close(efd[i]);
	}
	return child;
}

/* What staprun says on stderr (its WARNING lines): events SystemTap
 * dropped, and the lines the module printed that never reached us. */
struct stap_stderr {
	char line[1024];
	size_t len;
	bool cut;		/* the line is longer than the buffer */
	uint64_t skipped;	/* "skipped probes: N" */
	uint64_t transport;	/* "There were N transport failures" */
};

/* Line @line of staprun's stderr on ours (@cut: with "..." where the rest
 * was left out).  The probe's messages may quote traced names: printed
 * through text_write(). */
static void pass_on(const char *line, bool cut)
{
	text_write(stderr, line, false);
	fputs(cut ? "...\n" : "\n", stderr);
}

/* One whole line of staprun's stderr: passed on, and its counts taken. */
static void stderr_line(struct stap_stderr *se, const char *line)
{
	const char *at;
	unsigned long long n;

	pass_on(line, false);
	if ((at = strstr(line, "skipped probes: ")) &&
	    sscanf(at, "skipped probes: %llu", &n) == 1)
		se->skipped += n;
	if ((at = strstr(line, "There were ")) &&
	    sscanf(at, "There were %llu transport failures", &n) == 1)
		se->transport += n;
}

/* Read what staprun wrote to stderr on @fd, line by line.  Returns false
 * at its end (or an error). */
static bool read_stderr(int fd, struct stap_stderr *se)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0) {
		if (se->len) {
			se->line[se->len] = '\0';
			stderr_line(se, se->line);
			se->len = 0;
		}
		return false;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			se->line[se->len] = '\0';
			if (!se->cut)
				stderr_line(se, se->line);
			else
				pass_on(se->line, true);
			se->len = 0;
			se->cut = false;
		} else if (se->len + 1 < sizeof(se->line)) {
			se->line[se->len++] = buf[i];
		} else {
			se->cut = true;
		}
	}
	return true;
}

/* One SystemTap capture in progress. */
struct stap_run {
	const struct capture_options *opt;
	struct capture_summary *sum;
	struct capture_log *log;
	struct outbuf *ob;		/* the log's */
	struct emitter *em;
	char *lb;			/* a line to parse: LINE_BUF + 16 bytes */
	uint64_t ioctls;		/* ioctl lines the module printed */
	bool counts_bad;		/* a syscall count line was malformed */
	bool preamble;			/* mounts and snapshot written */
	bool armed;			/* the module's probes are registered */
	uint64_t unparsed;		/* lines that could not be parsed */
	uint64_t start;			/* CLOCK_MONOTONIC: staprun started */
	struct stap_stderr se;
};

/*
 * An event line the module printed (@len bytes with its newline), parsed
 * and handed to the emitter; the module's lost record, its last line, is
 * written after every event and counted.  A line ioriot cannot parse is
 * counted as lost (the first few are shown).
 */
static void put_event(struct stap_run *sr, const char *line, size_t len)
{
	struct emitter *em = sr->em;
	struct cap_event ev;
	const char *why;

	len--;				/* the newline */
	memcpy(sr->lb, line, len);
	memset(sr->lb + len, 0, 16);
	why = caplog_parse_event(sr->lb, len, &ev);
	if (why) {
		if (sr->unparsed++ < 3)
			log_warn("systemtap: %s: %.*s", why, (int)len, line);
		sr->sum->lost++;
		return;
	}
	if (ev.sys == SYS_LOST) {	/* printed by the module's end probe */
		emitter_release(em, UINT64_MAX);
		sr->sum->lost += ev.have & CAP_COUNT ? (uint64_t)ev.count : 0;
		if (!em->ob->err)
			caplog_write_event(em->ob, &ev);
		return;
	}
	sr->ioctls += ev.sys == SYS_IOCTL;
	emitter_push(em, &ev);
	emitter_release(em, em->order.newest);
}

/* After the module's header: the mount table and the snapshot. */
static int write_preamble(struct stap_run *sr)
{
	const struct capture_options *opt = sr->opt;
	struct mounttab *mt = mounttab_new();
	int rc;

	if (!mt)
		return -ENOMEM;
	/* The version and host lines came from the module. */
	rc = mounttab_load(mt, "/proc/self/mounts");
	if (!rc)
		caplog_write_mounts(sr->ob, mt);
	mounttab_free(mt);
	if (rc)
		return rc;
	/* The module's clock is the wall clock (ns since the epoch). */
	struct snapshot_options so = {
		.proc_root = "/proc", .own_pid = (uint32_t)getpid(),
		.comm = opt->comm, .time_ns = clock_ns(CLOCK_REALTIME),
		.filter = &opt->filter,
	};
	uint32_t *pids = NULL;
	size_t npids = 0;
	if (opt->pid && !(rc = snapshot_descendants("/proc", opt->pid, &pids,
						    &npids))) {
		so.pids = pids;
		so.npids = npids;
	}
	if (!rc)
		rc = snapshot_write(&so, sr->ob, &sr->em->res,
				    &sr->sum->snapshot_fds);
	free(pids);
	return rc;
}

/*
 * One whole line the module printed (@len bytes with its newline): its
 * header lines go to the log as they are, the armed line starts the
 * capture, the syscall counts are taken, events go to put_event().  The
 * snapshot is taken once the probes are armed, or at the first event
 * printed before that.  Returns 0, or -errno of the snapshot.
 */
static int take_line(struct stap_run *sr, const char *line, size_t len)
{
	bool arm = len == strlen(ARMED_LINE) && !memcmp(line, ARMED_LINE, len);
	bool meta = len > 2 && line[0] == '#' && line[1] == '|';
	int rc;

	if (!sr->preamble && (arm || !meta)) {
		if ((rc = write_preamble(sr)))
			return rc;
		sr->preamble = true;
		capture_log_sync(sr->log);
	}
	if (arm) {
		if (!sr->armed && sr->opt->ready)
			sr->opt->ready(sr->opt->ready_ctx);
		sr->armed = true;
	} else if (len > strlen(COUNT_PREFIX) &&
		   !memcmp(line, COUNT_PREFIX, strlen(COUNT_PREFIX))) {
		memcpy(sr->lb, line, len);
		sr->lb[len] = '\0';
		if (!sr->counts_bad &&
		    stap_count(sr->lb + strlen(COUNT_PREFIX), sr->ioctls,
			       &sr->sum->uncaptured)) {
			log_warn("systemtap: bad syscall count: %sthe log has "
				 "no uncaptured record", sr->lb);
			sr->counts_bad = true;
		}
	} else if (line[0] == '#') {
		if (!sr->ob->err)
			outbuf_put(sr->ob, line, len);
	} else {
		put_event(sr, line, len);
	}
	return 0;
}

/*
 * The end of the events: what SystemTap said it dropped (skipped probes,
 * lines lost in transport) and the lines ioriot could not parse (already
 * in the summary's count) as a lost record, and the uncaptured record's
 * counts in order.
 */
static void finish_events(struct stap_run *sr)
{
	uint64_t said = sr->se.skipped + sr->se.transport;
	uint64_t dropped = said + sr->unparsed;

	emitter_release(sr->em, UINT64_MAX);
	if (dropped) {
		struct cap_event ev = {
			.sys = SYS_LOST, .time_ns = clock_ns(CLOCK_REALTIME),
			.count = (int64_t)dropped, .have = CAP_COUNT,
		};
		if (!sr->ob->err)
			caplog_write_event(sr->ob, &ev);
		sr->sum->lost += said;
	}
	if (sr->counts_bad)
		memset(&sr->sum->uncaptured, 0, sizeof(sr->sum->uncaptured));
	uncaptured_sort(&sr->sum->uncaptured);
}

/* staprun's output: the bytes read and not yet a whole line. */
struct stap_input {
	int out, err;			/* staprun's stdout and stderr */
	bool err_open;
	char *buf;			/* LINE_BUF bytes */
	size_t have;
	bool skipping;			/* the tail of an over-long line */
};

/* The whole lines in @in's buffer to take_line(); an over-long line is
 * dropped and counted as lost.  0 or -errno of take_line(). */
static int take_lines(struct stap_run *sr, struct stap_input *in)
{
	char *line = in->buf, *nl;
	int rc;

	while ((nl = memchr(line, '\n', in->have - (size_t)(line - in->buf)))) {
		size_t len = (size_t)(nl - line) + 1;

		if (in->skipping)
			in->skipping = false;
		else if ((rc = take_line(sr, line, len)))
			return rc;
		line = nl + 1;
	}
	in->have -= (size_t)(line - in->buf);
	memmove(in->buf, line, in->have);
	if (in->have == LINE_BUF) {
		/* A line longer than the buffer: dropped up to its newline,
		 * and counted like a lost event. */
		in->have = 0;
		in->skipping = true;
		sr->sum->lost++;
	}
	return 0;
}

/*
 * Read what staprun @child prints until it ends its output; at a stop,
 * the duration's end, a failed write or a lack of memory it is sent
 * SIGINT (it then ends the session, and what the module still prints is
 * counted).  Returns 0 or -errno with a message.
 */
static int read_module(struct stap_run *sr, pid_t child, struct stap_input *in,
		       char *err, size_t errlen)
{
	const struct capture_options *opt = sr->opt;
	uint64_t duration = opt->duration_ns ? opt->duration_ns :
			    CAPTURE_DEFAULT_DURATION_NS;
	uint64_t start = sr->start, last_status = start;
	bool interrupted = false;
	int rc;

	for (;;) {
		struct pollfd p[2] = { { .fd = in->out, .events = POLLIN },
				       { .fd = in->err_open ? in->err : -1,
					 .events = POLLIN } };
		uint64_t now = clock_ns(CLOCK_MONOTONIC);

		if (!interrupted && (stop_requested(opt) || sr->ob->err ||
				     sr->em->err || now - start >= duration)) {
			kill(child, SIGINT);	/* staprun ends the session */
			interrupted = true;
		}
		capture_log_tick(sr->log, now);
		capture_log_status(sr->log, opt, sr->sum, start, duration, now,
				   &last_status);
		if (poll(p, 2, 200) < 0 && errno != EINTR) {
			rc = -errno;
			snprintf(err, errlen, "staprun output: %s", strerror(errno));
			return rc;
		}
		if (p[1].revents & (POLLIN | POLLHUP))
			in->err_open = read_stderr(in->err, &sr->se);
		if (!(p[0].revents & (POLLIN | POLLHUP)))
			continue;
		ssize_t n = read(in->out, in->buf + in->have, LINE_BUF - in->have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			snprintf(err, errlen, "staprun output: %s", strerror(errno));
			return rc;
		}
		if (n == 0)
			return 0;
		in->have += (size_t)n;
		if ((rc = take_lines(sr, in))) {
			snprintf(err, errlen, "snapshot: %s", strerror(-rc));
			return rc;
		}
	}
}

/*
 * After staprun's output ended: the preamble if no event brought it, its
 * last warnings, and its exit status; a staprun that failed without an
 * event means the module did not run.  Returns 0 or -errno with a message.
 */
static int end_module(struct stap_run *sr, pid_t *child, const char *module,
		      struct stap_input *in, char *err, size_t errlen)
{
	const struct capture_summary *sum = sr->sum;
	int rc, status;

	if (!sr->preamble && (rc = write_preamble(sr))) {
		snprintf(err, errlen, "snapshot: %s", strerror(-rc));
		return rc;
	}
	/* staprun's last words (its warnings) come as it exits. */
	while (in->err_open)
		in->err_open = read_stderr(in->err, &sr->se);
	if (waitpid(*child, &status, 0) != *child)
		return 0;
	*child = -1;
	if (!sum->events && !sum->lost_disk_full &&
	    (!WIFEXITED(status) || WEXITSTATUS(status))) {
		snprintf(err, errlen, "staprun %s failed (%s %d): is the module "
			 "built for this kernel, and are you root?", module,
			 WIFEXITED(status) ? "exit status" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -ECHILD;
	}
	return 0;
}

int capture_stap_run(const struct capture_options *opt, const char *module,
		     struct capture_summary *sum, char *err, size_t errlen)
{
	struct stap_run sr = { .opt = opt, .sum = sum };
	struct stap_input in = { .out = -1, .err = -1, .err_open = true };
	pid_t child = -1;
	int rc;

	memset(sum, 0, sizeof(*sum));
	sr.lb = malloc(LINE_BUF + 16);
	in.buf = malloc(LINE_BUF);
	if (!in.buf || !sr.lb) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if (!(sr.log = capture_log_open(opt, err, errlen))) {
		rc = -errno;
		goto out;
	}
	sr.ob = &sr.log->ob;
	if (!(sr.em = emitter_new(&opt->filter, sum, sr.ob))) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	child = spawn_staprun(opt, module, &in.out, &in.err);
	if (child < 0) {
		rc = (int)child;
		snprintf(err, errlen, "starting staprun: %s", strerror(-rc));
		goto out;
	}
	sr.start = clock_ns(CLOCK_MONOTONIC);
	if ((rc = read_module(&sr, child, &in, err, errlen)) ||
	    (rc = end_module(&sr, &child, module, &in, err, errlen)))
		goto out;
	finish_events(&sr);
	sum->duration_ns = clock_ns(CLOCK_MONOTONIC) - sr.start;
	/* A log that misses events for want of memory gets no end record. */
	if ((rc = sr.em->err))
		snprintf(err, errlen, "%s: %s", opt->output, strerror(-rc));
	else
		rc = capture_log_end(sr.log, sum, err, errlen);
out:
	if (child > 0) {
		kill(child, SIGINT);
		waitpid(child, NULL, 0);
	}
	if (in.out >= 0)
		close(in.out);
	if (in.err >= 0)
		close(in.err);
	if (sr.log) {
		int closed;

		if (!sum->bytes)
			sum->bytes = capture_log_bytes(sr.log);
		closed = capture_log_close(sr.log);
		if (closed && !rc) {
			rc = closed;
			snprintf(err, errlen, "%s: %s", opt->output, strerror(-rc));
		}
	}
	emitter_free(sr.em);
	free(sr.lb);
	free(in.buf);
	return rc;
}
