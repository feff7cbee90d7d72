/*
 * rlog writer: INIT entries and operation lines (rlog.h).  An operation line
 * is reserved in the output buffer once and formatted in place.
 */
#include <string.h>

#include "ioriot/rlog.h"

void rlog_write_init(struct outbuf *ob, enum rlog_init_kind kind,
		     uint64_t size, const char *path, size_t len, int mode)
{
	outbuf_putc(ob, (char)kind);
	outbuf_putc(ob, ' ');
	if (kind == RLOG_INIT_FILE) {
		outbuf_u64(ob, size);
		outbuf_putc(ob, ' ');
	}
	outbuf_path(ob, path, len);
	if (kind == RLOG_INIT_FILE && mode != RLOG_NO_MODE) {
		outbuf_puts(ob, " mode=");
		outbuf_oct(ob, (uint64_t)mode);
	}
	outbuf_putc(ob, '\n');
}

void rlog_write_init_symlink(struct outbuf *ob, const char *path, size_t len,
			     const char *target, size_t target_len)
{
	outbuf_puts(ob, "l ");
	outbuf_path(ob, path, len);
	outbuf_puts(ob, " target=");
	outbuf_path(ob, target, target_len);
	outbuf_putc(ob, '\n');
}

void rlog_write_init_xattr(struct outbuf *ob, uint64_t size, const char *path,
			   size_t len, const char *name, size_t name_len)
{
	outbuf_puts(ob, "a ");
	outbuf_u64(ob, size);
	outbuf_putc(ob, ' ');
	outbuf_path(ob, path, len);
	outbuf_puts(ob, " name=");
	outbuf_path(ob, name, name_len);
	outbuf_putc(ob, '\n');
}

/* Bytes a line needs besides its paths: 7 columns, up to DEPS_MAX deps and
 * 40 keyed numbers, each at most 32 bytes with its key. */
#define FIXED_MAX (32 * (7 + DEPS_MAX + 40))

static inline char *key(char *p, const char *k, size_t len)
{
	*p++ = ' ';
	memcpy(p, k, len);
	return p + len;
}

#define KEY(p, k) key(p, k, sizeof(k) - 1)

void rlog_write_op(struct outbuf *ob, const struct rlog_op *op)
{
	const struct sys_info *si = sys_info(op->sys);
	uint64_t h = op->have;
	size_t need = FIXED_MAX;

	if (h & RL_PATH)
		need += 3 * (size_t)op->path_len;
	if (h & RL_PATH2)
		need += 3 * (size_t)op->path2_len;
	if (h & RL_TARGET)
		need += 3 * (size_t)op->target_len;
	if (h & RL_NAME)
		need += 3 * (size_t)op->name_len;
	if (need > sizeof(ob->buf) || !outbuf_reserve(ob, need))
		return;		/* paths are at most PATH_MAX: cannot happen */
	char *p = ob->buf + ob->len;

	p = fmt_u64(p, op->id);
	*p++ = ' ';
	p = fmt_u64(p, op->pid);
	*p++ = ':';
	p = fmt_u64(p, op->tid);
	*p++ = ' ';
	p = fmt_u64(p, op->time_ns);
	*p++ = ' ';
	p = fmt_u64(p, op->dur_ns);
	*p++ = ' ';
	if (op->deps.n == 0)
		*p++ = '-';
	for (int i = 0; i < op->deps.n; i++) {
		if (i)
			*p++ = ',';
		p = fmt_u64(p, op->deps.id[i]);
	}
	*p++ = ' ';
	memcpy(p, si->replay_name, si->replay_name_len);
	p += si->replay_name_len;
	*p++ = ' ';
	p = fmt_i64(p, op->ret);
	if (h & RL_FD)
		p = fmt_u64(KEY(p, "fd="), op->fd);
	if (h & RL_FD2)
		p = fmt_u64(KEY(p, "fd2="), op->fd2);
	if (h & RL_VFD)
		p = fmt_u64(KEY(p, "vfd="), op->vfd);
	if (h & RL_PATH)
		p = fmt_path(KEY(p, "path="), op->path, op->path_len);
	if (h & RL_PATH2)
		p = fmt_path(KEY(p, "path2="), op->path2, op->path2_len);
	if (h & RL_TARGET)
		p = fmt_path(KEY(p, "target="), op->target, op->target_len);
	if (h & RL_FLAGS)
		p = fmt_hex(KEY(p, "flags="), (uint64_t)op->flags);
	if (h & RL_MODE)
		p = fmt_oct(KEY(p, "mode="), (uint64_t)op->mode);
	if (h & RL_OFFSET)
		p = fmt_i64(KEY(p, "off="), op->offset);
	if (h & RL_OFFSET2)
		p = fmt_i64(KEY(p, "off2="), op->offset2);
	if (h & RL_WHENCE)
		p = fmt_i64(KEY(p, "whence="), op->whence);
	if (h & RL_COUNT)
		p = fmt_i64(KEY(p, "count="), op->count);
	if (h & RL_CMD)
		p = fmt_i64(KEY(p, "cmd="), op->cmd);
	if (h & RL_ARG)
		p = fmt_i64(KEY(p, "arg="), op->arg);
	if (h & RL_UID)
		p = fmt_i64(KEY(p, "uid="), op->uid);
	if (h & RL_GID)
		p = fmt_i64(KEY(p, "gid="), op->gid);
	if (h & RL_ADDR)
		p = fmt_hex(KEY(p, "addr="), op->addr);
	if (h & RL_CTX)
		p = fmt_u64(KEY(p, "ctx="), op->ctx);
	if (h & RL_TAG)
		p = fmt_u64(KEY(p, "tag="), op->tag);
	if (h & RL_MIN)
		p = fmt_i64(KEY(p, "min="), op->min);
	if (h & RL_CQ)
		p = fmt_i64(KEY(p, "cq="), op->cq);
	if (h & RL_SLOT)
		p = fmt_u64(KEY(p, "slot="), op->slot);
	if (h & RL_BUF)
		p = fmt_u64(KEY(p, "buf="), op->buf);
	if (h & RL_SQFLAGS)
		p = fmt_hex(KEY(p, "sqflags="), (uint64_t)op->sqflags);
	if (h & RL_UMASK)
		p = fmt_oct(KEY(p, "umask="), (uint64_t)op->umask);
	if (h & RL_STRIDE)
		p = fmt_u64(KEY(p, "stride="), op->stride);
	if (h & RL_NAME)
		p = fmt_path(KEY(p, "name="), op->name, op->name_len);
	if (h & RL_CPU)
		p = fmt_u64(KEY(p, "cpu="), op->cpu_ns);
	if (h & RL_PARENT) {
		p = fmt_u64(KEY(p, "parent="), op->parent >> 32);
		*p++ = ':';
		p = fmt_u64(p, op->parent & UINT32_MAX);
	}
	if (h & RL_SYNC) {
		p = fmt_u64(KEY(p, "sync="), op->sync_id);
		*p++ = ':';
		p = fmt_u64(p, op->sync_gap_ns);
	}
	if (h & RL_WAITED)
		p = fmt_u64(KEY(p, "waited="), op->waited_ns);
	if (h & RL_PROBE)
		p = fmt_u64(KEY(p, "probe="), op->probe_ns);
	if (h & RL_RUNQ)
		p = fmt_u64(KEY(p, "runq="), op->runq_ns);
	*p++ = '\n';
	ob->len = (size_t)(p - ob->buf);
}
