/*
 * mapcheck: generate --map's checks (mapcheck.h).
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "ioriot/log.h"
#include "ioriot/paths.h"
#include "ioriot/rlog.h"
#include "ioriot/sandbox.h"
#include "mapcheck.h"

int mapcheck_rules(const struct cli_opts *o, struct sandmap *m)
{
	char err[2 * PATHMAP_MAX];

	for (size_t i = 0; i < o->nmap; i++) {
		int fd;

		if (sandmap_add(m, o->map[i], err, sizeof(err))) {
			log_error("%s", err);
			return 1;
		}
		fd = sandbox_open_mount(m->rule[i].test, err, sizeof(err));
		if (fd < 0) {
			log_error("--map %s: %s is no mountpoint of this host: "
				  "%s", o->map[i], m->rule[i].test, err);
			return 1;
		}
		close(fd);
	}
	return 0;
}

int mapcheck_output(const struct cli_opts *o, const struct sandmap *m)
{
	char err[2 * PATHMAP_MAX], **roots = NULL;
	struct rlog_reader *r = rlog_open(o->replay, err, sizeof(err));
	const struct rlog_header *h = NULL;
	int rc = 1;

	if (!r)
		goto out;
	h = rlog_header(r);
	roots = sandmap_host_roots(m, h, 0, err, sizeof(err));
	if (!roots)
		goto out;
	if (sandmap_shared(h->sandboxes, roots, h->nsandboxes) &&
	    sandmap_check_collisions(o->replay, roots, err, sizeof(err)))
		goto out;
	rc = 0;
out:
	if (rc)
		log_error("%s: %s (init and replay refuse it so)", o->replay,
			  err);
	if (h)
		sandmap_roots_free(roots, h->nsandboxes);
	rlog_close(r);
	return rc;
}
