/*
 * gen.h: state shared by the generator's driver (generate.c) and its
 * per-event logic (events.c).  Private to src/generate.
 */
#ifndef IORIOT_GEN_INTERNAL_H
#define IORIOT_GEN_INTERNAL_H

#include "ioriot/caplog.h"
#include "ioriot/generate.h"
#include "ioriot/nstree.h"
#include "ioriot/outbuf.h"
#include "ioriot/pathmap.h"
#include "ioriot/procs.h"
#include "ioriot/rlog.h"
#include "ioriot/u64map.h"

/* A path of the current event, normalised, rewritten and modelled. */
struct resolved {
	char norm[PATHMAP_MAX];
	size_t norm_len;
	char sandbox[PATHMAP_MAX];
	size_t sandbox_len;
	struct node *node;
	const struct mount_entry *mount;
};

struct gen {
	struct gen_summary *sum;
	struct pathmap pm;
	struct nstree *ns;
	struct procs procs;
	struct u64map timelines;	/* pid << 32 | tid -> non-NULL */
	bool *mount_used;		/* per pm.mounts entry */
	struct outbuf *ops;		/* operation lines (temporary file) */
	uint64_t next_id;
	uint64_t next_vfd;
	int err;			/* first -errno (ENOMEM) seen */
	const struct cap_event *ev;	/* the event being handled */
	struct resolved path[2];
};

/* Handle one event: update the model and write its operations. */
void gen_event(struct gen *g, const struct cap_event *ev);

/* procs release callback: the last reference to @ofd is gone. */
void gen_release(void *ctx, struct ofd *ofd);

#endif
