/*
 * stap: capture with a compiled SystemTap module of systemtap/ioriot.stp,
 * for kernels without BPF.  Runs staprun directly (fork and execvp with an
 * argument vector, never a shell), reads the v4 lines the module prints and
 * writes them to the log, adding the mount table and the snapshot of open
 * files after the module's header (capture.h).
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
#include "ioriot/snapshot.h"

#define LINE_BUF (1 << 20)

/* What the module prints once its syscall probes are registered; not an
 * event, and not written to the log. */
#define ARMED_LINE "#|probes_armed|\n"

/* Start staprun with stdout into a pipe; returns its pid or -errno. */
static pid_t spawn_staprun(const struct capture_options *opt, const char *module,
			   int *out_fd)
{
	char pid_arg[32], comm_arg[64], skip_arg[48];
	const char *argv[8];
	int n = 0, pfd[2];
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
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	child = fork();
	if (child < 0) {
		int err = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (child == 0) {
		if (dup2(pfd[1], 1) < 0)
			_exit(127);
		execvp("staprun", (char *const *)argv);
		fprintf(stderr, "ioriot: staprun: %s\n", strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	*out_fd = pfd[0];
	return child;
}

/*
 * Write a line the module printed (with its newline) and count it.  Once a
 * write failed nothing more is written; on a full disk the events from then
 * on are lost to it (capture.h).
 */
static void put_line(struct outbuf *ob, struct capture_summary *sum,
		     const char *line, size_t len)
{
	bool event = capture_line_is_event(line, len), failed = ob->err != 0;

	if (!failed) {
		outbuf_put(ob, line, len);
		failed = ob->err != 0;
	}
	if (event && !failed)
		sum->events++;
	else if (event && capture_log_full(ob->err))
		sum->lost_disk_full++;
}

/* After the module's header: the mount table and the snapshot. */
static int write_preamble(const struct capture_options *opt, struct outbuf *ob,
			  struct resolver *res, struct capture_summary *sum)
{
	struct mounttab *mt = mounttab_new();
	int rc;

	if (!mt)
		return -ENOMEM;
	/* The version and host lines came from the module. */
	rc = mounttab_load(mt, "/proc/self/mounts");
	if (!rc)
		caplog_write_mounts(ob, mt);
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
		rc = snapshot_write(&so, ob, res, &sum->snapshot_fds);
	free(pids);
	return rc;
}

int capture_stap_run(const struct capture_options *opt, const char *module,
		     struct capture_summary *sum, char *err, size_t errlen)
{
	uint64_t duration = opt->duration_ns ? opt->duration_ns :
			    CAPTURE_DEFAULT_DURATION_NS;
	struct outbuf *ob = malloc(sizeof(*ob));
	char *buf = malloc(LINE_BUF);
	struct resolver res = { 0 };
	size_t have = 0;
	bool preamble = false, interrupted = false, skipping = false;
	bool armed = false;
	int in = -1, fd = -1, rc, status;
	pid_t child = -1;

	memset(sum, 0, sizeof(*sum));
	if (!ob || !buf || resolver_init(&res, "/proc")) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	if ((fd = capture_open_log(opt->output, err, errlen)) < 0) {
		rc = fd;
		goto out;
	}
	outbuf_init(ob, fd);
	child = spawn_staprun(opt, module, &in);
	if (child < 0) {
		rc = (int)child;
		snprintf(err, errlen, "starting staprun: %s", strerror(-rc));
		goto out;
	}
	uint64_t start = clock_ns(CLOCK_MONOTONIC);
	for (;;) {
		struct pollfd p = { .fd = in, .events = POLLIN };

		/* A failed write (a full disk) stops the capture too; what the
		 * module still prints is counted. */
		if (!interrupted && (stop_requested(opt) || ob->err ||
				     clock_ns(CLOCK_MONOTONIC) - start >= duration)) {
			kill(child, SIGINT);	/* staprun ends the session */
			interrupted = true;
		}
		if (poll(&p, 1, 200) < 0 && errno != EINTR) {
			rc = -errno;
			snprintf(err, errlen, "staprun output: %s", strerror(errno));
			goto out;
		}
		if (!(p.revents & (POLLIN | POLLHUP)))
			continue;
		ssize_t n = read(in, buf + have, LINE_BUF - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			snprintf(err, errlen, "staprun output: %s", strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		char *line = buf, *nl;
		while ((nl = memchr(line, '\n', have - (size_t)(line - buf)))) {
			size_t len = (size_t)(nl - line) + 1;
			if (skipping) {		/* the tail of an over-long line */
				skipping = false;
				line = nl + 1;
				continue;
			}
			bool arm = len == strlen(ARMED_LINE) &&
				   !memcmp(line, ARMED_LINE, len);
			/* The snapshot is taken once the probes are armed,
			 * or at the first event printed before that. */
			if (!preamble && (arm || !(len > 2 && line[0] == '#' &&
						   line[1] == '|'))) {
				if ((rc = write_preamble(opt, ob, &res, sum))) {
					snprintf(err, errlen, "snapshot: %s", strerror(-rc));
					goto out;
				}
				preamble = true;
			}
			if (arm && !armed && opt->ready)
				opt->ready(opt->ready_ctx);
			armed |= arm;
			if (!arm)
				put_line(ob, sum, line, len);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == LINE_BUF) {
			/* A line longer than the buffer: dropped up to its
			 * newline, and counted like a lost event. */
			have = 0;
			skipping = true;
			sum->lost++;
		}
	}
	/* A module that printed no event still gets its preamble. */
	if (!preamble && (rc = write_preamble(opt, ob, &res, sum))) {
		snprintf(err, errlen, "snapshot: %s", strerror(-rc));
		goto out;
	}
	if (waitpid(child, &status, 0) == child) {
		child = -1;
		if (!sum->events && !sum->lost_disk_full &&
		    (!WIFEXITED(status) || WEXITSTATUS(status))) {
			snprintf(err, errlen, "staprun %s failed (%s %d): is the module "
				 "built for this kernel, and are you root?", module,
				 WIFEXITED(status) ? "exit status" : "signal",
				 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
			rc = -ECHILD;
			goto out;
		}
	}
	sum->duration_ns = clock_ns(CLOCK_MONOTONIC) - start;
	rc = capture_log_finish(ob, sum, opt->output, err, errlen);
out:
	if (child > 0) {
		kill(child, SIGINT);
		waitpid(child, NULL, 0);
	}
	if (in >= 0)
		close(in);
	if (fd >= 0) {
		sum->bytes = ob->written;
		if (close(fd) < 0 && !rc) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s", opt->output, strerror(errno));
		}
	}
	resolver_destroy(&res);
	free(buf);
	free(ob);
	return rc;
}
