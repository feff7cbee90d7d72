/*
 * procs: the process and thread rows of operations, and the names of
 * processes: "PID PROGRAM" after the program a process exec'd, or its
 * parent's when it only forked (a capture log's exec and fork records,
 * through the generator's callbacks), else "PID".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* The row of process @pid (@tid 0), or thread @pid:@tid, made if new. */
static uint32_t row_of_id(struct an *a, struct an_table *t, uint64_t id,
			  uint32_t pid, uint32_t tid)
{
	char name[32];
	uint32_t i = an_table_find_id(t, id);

	if (i != AN_NONE)
		return i;
	char *exec_name = tid ? NULL : u64map_del(&a->exec_names, pid);
	if (exec_name) {	/* a process that exec'd before its first op */
		a->nexec_names--;
		i = an_table_id(t, id, exec_name, &a->err);
		free(exec_name);
		return i;
	}
	if (tid)
		snprintf(name, sizeof(name), "%" PRIu32 ":%" PRIu32, pid, tid);
	else
		snprintf(name, sizeof(name), "%" PRIu32, pid);
	return an_table_id(t, id, name, &a->err);
}

void an_who(struct an *a, const struct rlog_op *op, uint32_t *proc,
	    uint32_t *thread)
{
	*proc = row_of_id(a, &a->procs, op->pid, op->pid, 0);
	*thread = row_of_id(a, &a->threads, (uint64_t)op->pid << 32 | op->tid,
			    op->pid, op->tid);
}

/* Name process @pid "PID COMM" after its program @comm (@len bytes). */
static void name_process(struct an *a, uint32_t pid, const char *comm,
			 size_t len)
{
	char name[300];
	uint32_t p = an_table_find_id(&a->procs, pid);

	snprintf(name, sizeof(name), "%" PRIu32 " %.*s", pid,
		 (int)(len > 255 ? 255 : len), comm);
	if (p != AN_NONE) {
		if (an_table_rename(&a->procs, p, name))
			an_oom(a);
		return;
	}
	/* Named when its first op makes its row: a process that does none
	 * is no row.  Bounded: past the cap, later ones keep their pid. */
	char *old = u64map_get(&a->exec_names, pid), *copy;
	if (!old && a->nexec_names >= a->procs.max)
		return;
	if (!(copy = strdup(name))) {
		an_oom(a);
		return;
	}
	a->nexec_names += !old;
	an_keep(a, &a->exec_names, pid, copy);
}

void an_exec(struct an *a, uint32_t pid, const char *path, size_t len)
{
	const char *base = path;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/' && i + 1 < len)
			base = path + i + 1;
	name_process(a, pid, base, len - (size_t)(base - path));
}

void an_fork(struct an *a, uint32_t parent, uint32_t child)
{
	uint32_t p = an_table_find_id(&a->procs, parent);
	const char *name = p != AN_NONE ?
			   an_row_name(&a->procs, an_row(&a->procs, p)) :
			   u64map_get(&a->exec_names, parent);
	const char *comm = name ? strchr(name, ' ') : NULL;

	if (comm)
		name_process(a, child, comm + 1, strlen(comm + 1));
}
