/*
 * xattr: the replay of the extended attribute calls (fileops.h), each the
 * call captured: by path, by link, by fd, or its *at form (Linux 6.13,
 * by its syscall number: the C library may lack a wrapper), with the
 * captured name, sizes and flags.  Values are generated data of the
 * captured size, except a POSIX ACL of three entries (what cp -a and tar
 * set: a mode in ACL form), which the capture recorded as its mode and
 * which is built again from it, as the kernel refuses a value that is no
 * ACL.  Attributes of the namespaces that take privilege (security.*, the
 * file capabilities among them, and trusted.*) are never set or removed,
 * as root either: -EPERM, what the kernel answers a user without
 * CAP_SYS_ADMIN; reading them is left to the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fileops.h"
#include "ioriot/syscalls.h"

/* Linux 6.13; one number on every architecture. */
#ifndef SYS_setxattrat
#define SYS_setxattrat 463
#endif
#ifndef SYS_getxattrat
#define SYS_getxattrat 464
#endif
#ifndef SYS_listxattrat
#define SYS_listxattrat 465
#endif
#ifndef SYS_removexattrat
#define SYS_removexattrat 466
#endif

/* The *at calls' struct xattr_args (linux/xattr.h of 6.13). */
struct at_args {
	uint64_t value;
	uint32_t size;
	uint32_t flags;
};

#define ACL_PREFIX "system.posix_acl_"
#define ACL_SIZE (4 + 3 * 8)

/* A three-entry POSIX ACL (version 2; user, group, other with the
 * permissions of @mode; ids undefined) in @acl, little-endian. */
static void build_acl(unsigned char *acl, int64_t mode)
{
	static const unsigned char tags[3] = { 0x01, 0x04, 0x20 };

	memset(acl, 0, ACL_SIZE);
	acl[0] = 2;
	for (int i = 0; i < 3; i++) {
		unsigned char *e = acl + 4 + 8 * i;

		e[0] = tags[i];
		e[2] = (unsigned char)(mode >> (6 - 3 * i) & 7);
		memset(e + 4, 0xff, 4);
	}
}

/* Whether @name (NUL-terminated) is in a namespace that takes privilege
 * to change. */
static bool privileged_name(const char *name)
{
	return !strncmp(name, "security.", 9) || !strncmp(name, "trusted.", 8);
}

/* Whether @op sets a three-entry ACL the capture recorded as a mode. */
static bool is_acl(const struct rlog_op *op)
{
	return (op->have & RL_MODE) && op->count == ACL_SIZE &&
	       op->name_len > strlen(ACL_PREFIX) &&
	       !memcmp(op->name, ACL_PREFIX, strlen(ACL_PREFIX));
}

static int64_t result(long r)
{
	return r < 0 ? -(int64_t)errno : (int64_t)r;
}

/* The *at form: on the path, or on @fd with AT_EMPTY_PATH. */
static int64_t at_call(const struct rlog_op *op, enum xattr_op xop, int fd,
		       const void *value, void *buf, size_t size)
{
	int dfd = op->have & RL_PATH ? AT_FDCWD : fd;
	const char *path = op->have & RL_PATH ? op->path : "";
	unsigned flags = (unsigned)(op->have & RL_FLAGS ? op->flags : 0) &
			 (AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH);
	struct at_args args = { .size = (uint32_t)size };

	if (!(op->have & RL_PATH))
		flags |= AT_EMPTY_PATH;
	switch (xop) {
	case XATTR_OP_SET:
		args.value = (uint64_t)(uintptr_t)value;
		args.flags = (uint32_t)(op->have & RL_ARG ? op->arg : 0);
		return result(syscall(SYS_setxattrat, dfd, path, flags,
				      op->name, &args, sizeof(args)));
	case XATTR_OP_GET:
		args.value = (uint64_t)(uintptr_t)buf;
		return result(syscall(SYS_getxattrat, dfd, path, flags,
				      op->name, &args, sizeof(args)));
	case XATTR_OP_LIST:
		return result(syscall(SYS_listxattrat, dfd, path, flags, buf,
				      size));
	case XATTR_OP_REMOVE:
		return result(syscall(SYS_removexattrat, dfd, path, flags,
				      op->name));
	}
	return -EINVAL;
}

int64_t xattr_call(const struct rlog_op *op, int fd, const char *data,
		   char *buf, size_t cap)
{
	unsigned char acl[ACL_SIZE];
	const void *value = data;
	enum xattr_op xop;
	enum xattr_by by;
	size_t size = op->have & RL_COUNT && op->count > 0 ?
		      (size_t)op->count : 0;
	int flags = (int)(op->have & RL_ARG ? op->arg : 0);
	const char *p = op->path, *name = op->name;

	if (!sys_xattr(op->sys, &xop, &by) ||
	    (xop != XATTR_OP_LIST && !(op->have & RL_NAME)))
		return -EINVAL;
	if ((xop == XATTR_OP_SET || xop == XATTR_OP_REMOVE) &&
	    privileged_name(name))
		return -EPERM;
	if ((by == XATTR_BY_FD || (by == XATTR_BY_AT &&
				   !(op->have & RL_PATH))) ? fd < 0 :
	    !(op->have & RL_PATH))
		return -EINVAL;
	/* One byte more than an attribute may have: the kernel's E2BIG. */
	if (xop == XATTR_OP_SET && size > RLOG_XATTR_SIZE_MAX)
		size = RLOG_XATTR_SIZE_MAX + 1;
	if (xop != XATTR_OP_SET && size > cap)
		size = cap;
	if (xop == XATTR_OP_SET && is_acl(op)) {
		build_acl(acl, op->mode);
		value = acl;
	}
	if (by == XATTR_BY_AT)
		return at_call(op, xop, fd, value, size ? buf : NULL, size);
	switch (xop) {
	case XATTR_OP_SET:
		return result(by == XATTR_BY_FD ?
			      fsetxattr(fd, name, value, size, flags) :
			      by == XATTR_BY_LINK ?
			      lsetxattr(p, name, value, size, flags) :
			      setxattr(p, name, value, size, flags));
	case XATTR_OP_GET:
		return result(by == XATTR_BY_FD ?
			      fgetxattr(fd, name, size ? buf : NULL, size) :
			      by == XATTR_BY_LINK ?
			      lgetxattr(p, name, size ? buf : NULL, size) :
			      getxattr(p, name, size ? buf : NULL, size));
	case XATTR_OP_LIST:
		return result(by == XATTR_BY_FD ?
			      flistxattr(fd, size ? buf : NULL, size) :
			      by == XATTR_BY_LINK ?
			      llistxattr(p, size ? buf : NULL, size) :
			      listxattr(p, size ? buf : NULL, size));
	case XATTR_OP_REMOVE:
		return result(by == XATTR_BY_FD ? fremovexattr(fd, name) :
			      by == XATTR_BY_LINK ? lremovexattr(p, name) :
			      removexattr(p, name));
	}
	return -EINVAL;
}
