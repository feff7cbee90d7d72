/*
 * init: prepares the sandboxes a replay file needs (`ioriot -i`, the first
 * half of `-R`).  Each sandbox <mountpoint>/.ioriot/NAME is moved to the
 * trash if it exists, created afresh owned by the test user, and filled
 * with the replay file's INIT section: directories, files of their exact
 * size written with real data (not sparse, so reads hit the disk), their
 * extended attributes (user.* names, values of the size captured), and
 * the paths that must not exist removed.  Mountpoints are done in parallel.
 */
#ifndef IORIOT_INIT_H
#define IORIOT_INIT_H

#include <stdint.h>
#include <sys/types.h>

struct rlog_reader;

struct init_options {
	const char *replay_path;
	/* The replay file already opened (its header read), which init_run()
	 * reads on and closes, whatever it returns; NULL: it opens
	 * replay_path itself. */
	struct rlog_reader *reader;
	/* Where the sandboxes are built on this host (sandmap.h): @copies
	 * sets (0 counts as 1) of one root per sandbox of the file's header,
	 * in its order; NULL: the header's own (then @copies must be 0 or
	 * 1).  Two sandboxes of the file in one host sandbox are checked
	 * for colliding paths first (sandmap_check_collisions()). */
	char *const *host_roots;
	size_t copies;
	/* The test user, who owns what init creates: as root for another
	 * user, the workers create everything as that user; otherwise it
	 * must be the caller (-EPERM). */
	uid_t uid;
	gid_t gid;
	/* Called from the calling thread with bytes written and bytes to
	 * write: once at the start, about every 100 ms, once at the end. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct init_summary {
	uint64_t sandboxes;		/* of this host, copies included */
	uint64_t dirs, files, links, bytes, absent;
	uint64_t xattrs;		/* extended attributes set */
	uint64_t duration_ns;
};

/*
 * Initialise the sandboxes of opt->replay_path.  The whole INIT section is
 * read first, so a damaged file leaves old sandboxes in place.  An x entry
 * removes a file or an empty directory (a non-empty one is an error); each
 * sandbox's file system is synced at the end.  Returns 0, or -errno with a
 * message naming the file (and line, for replay file errors) in @err; @sum
 * is filled in either case.  The replay reader's checks (rlog.h) apply, so
 * every path is inside a sandbox, and sandbox roots are checked as
 * sandbox_open() and sandbox_enter() (sandbox.h) say: a sandbox the test
 * user cannot reach fails init.
 */
int init_run(const struct init_options *opt, struct init_summary *sum,
	     char *err, size_t errlen);

#endif
