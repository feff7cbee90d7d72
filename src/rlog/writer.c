/* rlog writer: INIT entries and operation lines (rlog.h). */
#include "ioriot/rlog.h"

void rlog_write_init(struct outbuf *ob, enum rlog_init_kind kind,
		     uint64_t size, const char *path, size_t len)
{
	outbuf_putc(ob, (char)kind);
	outbuf_putc(ob, ' ');
	if (kind == RLOG_INIT_FILE) {
		outbuf_u64(ob, size);
		outbuf_putc(ob, ' ');
	}
	outbuf_path(ob, path, len);
	outbuf_putc(ob, '\n');
}

static void key(struct outbuf *ob, const char *k, size_t len)
{
	outbuf_putc(ob, ' ');
	outbuf_put(ob, k, len);
}

#define KEY(ob, k) key(ob, k, sizeof(k) - 1)

void rlog_write_op(struct outbuf *ob, const struct rlog_op *op)
{
	unsigned h = op->have;

	outbuf_u64(ob, op->id);
	outbuf_putc(ob, ' ');
	outbuf_u64(ob, op->pid);
	outbuf_putc(ob, ':');
	outbuf_u64(ob, op->tid);
	outbuf_putc(ob, ' ');
	outbuf_u64(ob, op->time_ns);
	outbuf_putc(ob, ' ');
	outbuf_u64(ob, op->dur_ns);
	outbuf_putc(ob, ' ');
	if (op->deps.n == 0)
		outbuf_putc(ob, '-');
	for (int i = 0; i < op->deps.n; i++) {
		if (i)
			outbuf_putc(ob, ',');
		outbuf_u64(ob, op->deps.id[i]);
	}
	outbuf_putc(ob, ' ');
	outbuf_puts(ob, sys_info(op->sys)->replay_name);
	outbuf_putc(ob, ' ');
	outbuf_i64(ob, op->ret);
	if (h & RL_FD) {
		KEY(ob, "fd=");
		outbuf_u64(ob, op->fd);
	}
	if (h & RL_FD2) {
		KEY(ob, "fd2=");
		outbuf_u64(ob, op->fd2);
	}
	if (h & RL_VFD) {
		KEY(ob, "vfd=");
		outbuf_u64(ob, op->vfd);
	}
	if (h & RL_PATH) {
		KEY(ob, "path=");
		outbuf_path(ob, op->path, op->path_len);
	}
	if (h & RL_PATH2) {
		KEY(ob, "path2=");
		outbuf_path(ob, op->path2, op->path2_len);
	}
	if (h & RL_TARGET) {
		KEY(ob, "target=");
		outbuf_path(ob, op->target, op->target_len);
	}
	if (h & RL_FLAGS) {
		KEY(ob, "flags=");
		outbuf_hex(ob, (uint64_t)op->flags);
	}
	if (h & RL_MODE) {
		KEY(ob, "mode=");
		outbuf_oct(ob, (uint64_t)op->mode);
	}
	if (h & RL_OFFSET) {
		KEY(ob, "off=");
		outbuf_i64(ob, op->offset);
	}
	if (h & RL_OFFSET2) {
		KEY(ob, "off2=");
		outbuf_i64(ob, op->offset2);
	}
	if (h & RL_WHENCE) {
		KEY(ob, "whence=");
		outbuf_i64(ob, op->whence);
	}
	if (h & RL_COUNT) {
		KEY(ob, "count=");
		outbuf_i64(ob, op->count);
	}
	if (h & RL_CMD) {
		KEY(ob, "cmd=");
		outbuf_i64(ob, op->cmd);
	}
	if (h & RL_ARG) {
		KEY(ob, "arg=");
		outbuf_i64(ob, op->arg);
	}
	if (h & RL_UID) {
		KEY(ob, "uid=");
		outbuf_i64(ob, op->uid);
	}
	if (h & RL_GID) {
		KEY(ob, "gid=");
		outbuf_i64(ob, op->gid);
	}
	if (h & RL_ADDR) {
		KEY(ob, "addr=");
		outbuf_hex(ob, op->addr);
	}
	outbuf_putc(ob, '\n');
}
