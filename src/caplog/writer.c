/*
 * caplog writer: writes capture log v4 (docs/capture-format.md).  Only the
 * fields an event has are written; paths and header values are %XX-escaped.
 */
#include <string.h>

#include "ioriot/caplog.h"

void caplog_write_header(struct outbuf *ob, const struct caplog_header *hdr)
{
	outbuf_puts(ob, "#|capture_version=4|\n#|");
	outbuf_meta(ob, "host", hdr->host);
	outbuf_meta(ob, "kernel", hdr->kernel);
	outbuf_meta(ob, "backend", hdr->backend);
	outbuf_puts(ob, "start_epoch_ns=");
	outbuf_u64(ob, hdr->start_epoch_ns);
	outbuf_puts(ob, "|");
	if (hdr->probe_gap_ns || hdr->probe_call_ns) {
		outbuf_meta_u64(ob, "probe_gap_ns", hdr->probe_gap_ns);
		outbuf_meta_u64(ob, "probe_call_ns", hdr->probe_call_ns);
	}
	outbuf_putc(ob, '\n');
	if (hdr->mounts)
		caplog_write_mounts(ob, hdr->mounts);
}

void caplog_write_mounts(struct outbuf *ob, const struct mounttab *mt)
{
	for (size_t i = 0; i < mt->n; i++) {
		const struct mount_entry *m = &mt->v[i];

		outbuf_puts(ob, "#|mount=");
		outbuf_path(ob, m->dir, m->dir_len);
		outbuf_puts(ob, "|");
		outbuf_meta(ob, "fstype", m->fstype);
		outbuf_putc(ob, '\n');
	}
}

void caplog_write_end(struct outbuf *ob, const struct caplog_end *end)
{
	outbuf_puts(ob, "#|end|");
	outbuf_meta_u64(ob, "events", end->events);
	outbuf_meta_u64(ob, "lost", end->lost);
	outbuf_meta_u64(ob, "lost_disk_full", end->lost_disk_full);
	outbuf_meta_u64(ob, "filtered", end->filtered);
	outbuf_meta_u64(ob, "paths_cut", end->paths_cut);
	outbuf_meta_u64(ob, "snapshot_fds", end->snapshot_fds);
	outbuf_meta_u64(ob, "missing_tracepoints", end->missing_tracepoints);
	if (end->maps_unfollowed)
		outbuf_meta_u64(ob, "maps_unfollowed", end->maps_unfollowed);
	outbuf_meta_u64(ob, "duration_ns", end->duration_ns);
	if (end->error[0])
		outbuf_meta(ob, "error", end->error);
	outbuf_putc(ob, '\n');
}

static void num_field(struct outbuf *ob, char key, int64_t v)
{
	char k[2] = { key, '=' };

	outbuf_put(ob, k, 2);
	outbuf_i64(ob, v);
	outbuf_put(ob, ";:,", 3);
}

static void ids_field(struct outbuf *ob, char key, uint32_t pid, uint32_t tid)
{
	char k[2] = { key, '=' };

	outbuf_put(ob, k, 2);
	outbuf_u64(ob, pid);
	outbuf_putc(ob, ':');
	outbuf_u64(ob, tid);
	outbuf_put(ob, ";:,", 3);
}

static void path_field(struct outbuf *ob, char key, const char *path,
		       size_t len)
{
	char k[2] = { key, '=' };

	outbuf_put(ob, k, 2);
	outbuf_path(ob, path, len);
	outbuf_put(ob, ";:,", 3);
}

void caplog_write_event(struct outbuf *ob, const struct cap_event *ev)
{
	const struct sys_info *si = sys_info(ev->sys);
	unsigned h = ev->have;

	num_field(ob, 't', (int64_t)ev->time_ns);
	if (h & CAP_DUR)
		num_field(ob, 'D', (int64_t)ev->dur_ns);
	ids_field(ob, 'i', ev->pid, ev->tid);
	outbuf_puts(ob, "o=");
	outbuf_puts(ob, si->name);
	outbuf_put(ob, ";:,", 3);
	if (h & CAP_FD)
		num_field(ob, 'd', ev->fd);
	if (h & CAP_FD2)
		num_field(ob, 'e', ev->fd2);
	if (h & CAP_PATH)
		path_field(ob, 'p', ev->path, ev->path_len);
	if (h & CAP_PATH2)
		path_field(ob, 'P', ev->path2, ev->path2_len);
	if (h & CAP_FLAGS)
		num_field(ob, 'f', ev->flags);
	if (h & CAP_MODE)
		num_field(ob, 'm', ev->mode);
	if (h & CAP_OFFSET)
		num_field(ob, 'O', ev->offset);
	if (h & CAP_OFFSET2)
		num_field(ob, 'Q', ev->offset2);
	if (h & CAP_WHENCE)
		num_field(ob, 'W', ev->whence);
	if (h & CAP_COUNT)
		num_field(ob, 'c', ev->count);
	if (h & CAP_CMD)
		num_field(ob, 'F', ev->cmd);
	if (h & CAP_ARG)
		num_field(ob, 'G', ev->arg);
	if (h & CAP_UID)
		num_field(ob, 'U', ev->uid);
	if (h & CAP_SIZE)
		num_field(ob, 's', ev->size);
	if (h & CAP_UMASK)
		num_field(ob, 'u', ev->umask);
	if (h & CAP_CPU)
		num_field(ob, 'C', (int64_t)ev->cpu_ns);
	/* X only where it is not all of D: a line with C and without X
	 * was on a CPU for the whole call. */
	if ((h & CAP_CPU_CALL) && (!(h & CAP_CPU) || ev->cpu_call_ns != ev->dur_ns))
		num_field(ob, 'X', (int64_t)ev->cpu_call_ns);
	if (ev->folded)
		num_field(ob, 'K', (int64_t)ev->folded);
	/* No R of 0: most events waited for no CPU. */
	if ((h & CAP_RUNQ) && ev->runq_ns)
		num_field(ob, 'R', (int64_t)ev->runq_ns);
	if (h & CAP_ADDR)
		num_field(ob, 'a', (int64_t)ev->addr);
	if (h & CAP_ADDR2)
		num_field(ob, 'A', (int64_t)ev->addr2);
	if (h & CAP_BUF)
		num_field(ob, 'B', ev->buf_index);
	if (h & CAP_CHILD)
		ids_field(ob, 'k', ev->child_pid, ev->child_tid);
	if (h & CAP_RET)
		num_field(ob, 'r', ev->ret);
	outbuf_putc(ob, '\n');
}
