/*
 * session_init: `-i` and the init half of `-R` (session.h): the replay
 * file's test user, the host's sandboxes (--map, --copies) built by
 * init_run() with a progress line, then init's summary on stdout.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "ioriot/init.h"
#include "ioriot/log.h"
#include "ioriot/paths.h"
#include "ioriot/progress.h"
#include "ioriot/rlog.h"
#include "ioriot/sandbox.h"
#include "ioriot/sandmap.h"
#include "ioriot/session.h"

/* Init's progress: the share of the data written. */
static void init_progress(void *ctx, uint64_t done, uint64_t total)
{
	if (total)
		progress_show(ctx, (double)done / (double)total, done == total,
			      "%.1f of %.1f MB", (double)done / 1e6,
			      (double)total / 1e6);
}

/* --repeat's runs: remove the sandboxes of the tests of @roots that init
 * moved to the trash, so that the runs do not fill the test mounts.  0 or
 * -errno with a message in @err. */
static int remove_trashed(char *const *roots, size_t n, char *err,
			  size_t errlen)
{
	char mnt[PATHMAP_MAX];
	const char *name;
	size_t removed, total = 0;

	for (size_t i = 0; i < n; i++) {
		int rc = sandbox_split(roots[i], mnt, &name) ? -EINVAL :
			 sandbox_remove_trashed(mnt, name, false, &removed, err,
						errlen);

		if (rc)
			return rc;
		total += removed;
	}
	log_info("init: %zu entries of the earlier runs removed from the "
		 "trash", total);
	return 0;
}

int replay_session_init(const struct replay_session_opts *o)
{
	struct init_summary sum;
	struct progress bar;
	struct init_options io = {
		.replay_path = o->replay,
		.progress = !o->quiet ? init_progress : NULL,
		.progress_ctx = &bar,
	};
	char err[PATHMAP_MAX + 256], user[256], name[256];
	char **host = NULL;
	size_t nhost = 0;
	int rc;

	if (!(io.reader = replay_session_open(o)))
		return 1;
	if (replay_session_test(o, rlog_header(io.reader), user, name, &io.uid,
				&io.gid)) {
		rlog_close(io.reader);
		return 1;
	}
	if (geteuid() != 0 && io.uid != geteuid()) {
		log_error("init creates files owned by %s: run it as root", user);
		rlog_close(io.reader);
		return 1;
	}
	if (!(host = replay_session_host_roots(o, rlog_header(io.reader),
					       &io.copies))) {
		rlog_close(io.reader);
		return 1;
	}
	io.host_roots = host;
	nhost = io.copies * rlog_header(io.reader)->nsandboxes;
	log_info("init: %s, test %s: files made as user %s (uid %u, gid %u)",
		 o->replay, name, user, (unsigned)io.uid, (unsigned)io.gid);
	for (size_t i = 0; i < nhost; i++)
		log_info("init: sandbox %s", host[i]);
	progress_start(&bar, "init");
	rc = init_run(&io, &sum, err, sizeof(err));
	progress_end(&bar);
	if (!rc && o->remove_trashed)
		rc = remove_trashed(host, nhost, err, sizeof(err));
	sandmap_roots_free(host, nhost);
	if (rc) {
		log_error("%s", err);
		return 1;
	}
	if (!o->quiet) {
		printf("Sandboxes: %llu\n", (unsigned long long)sum.sandboxes);
		printf("Directories: %llu\n", (unsigned long long)sum.dirs);
		printf("Files: %llu\n", (unsigned long long)sum.files);
		printf("Symlinks: %llu\n", (unsigned long long)sum.links);
		printf("Extended attributes: %llu\n",
		       (unsigned long long)sum.xattrs);
		printf("Bytes written: %llu\n", (unsigned long long)sum.bytes);
		printf("Paths removed: %llu\n", (unsigned long long)sum.absent);
		printf("Init time: %.3fs\n", (double)sum.duration_ns / 1e9);
	}
	return 0;
}
