/*
 * xattr: the replay of the extended attribute calls (fileops.h), each the
 * call captured: by path, by link, by fd, or its *at form (Linux 6.13,
 * by its syscall number: the C library may lack a wrapper), with the
 * captured name, sizes and flags.  Values are generated data of the
 * captured size, except POSIX ACLs, which the kernel refuses unless they
 * are ACLs: one of three entries (what cp -a and tar set: a mode in ACL
 * form), which the capture recorded as its mode, is built again from it;
 * a longer one of the captured size is built with named users and the
 * mask.  Attributes of the namespaces that take privilege (security.*, the
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
#define ACL_ENTRIES_MAX 32	/* longer ones stay generated data */
#define ACL_SIZE(n) (4 + 8 * (size_t)(n))

/* linux/posix_acl.h's tags */
enum { ACL_USER_OBJ = 0x01, ACL_USER = 0x02, ACL_GROUP_OBJ = 0x04,
       ACL_MASK = 0x10, ACL_OTHER = 0x20 };

/* Entry @i of @acl: @tag, @perm, @id (little-endian). */
static void acl_entry(unsigned char *acl, int i, unsigned tag, unsigned perm,
		      uint32_t id)
{
	unsigned char *e = acl + 4 + 8 * i;

	e[0] = (unsigned char)tag;
	e[1] = 0;
	e[2] = (unsigned char)perm;
	e[3] = 0;
	for (int b = 0; b < 4; b++)
		e[4 + b] = (unsigned char)(id >> (8 * b));
}

/*
 * A valid POSIX ACL (version 2) of @n entries in @acl: user, group and
 * other with the permissions of @mode (0644 when the capture has none);
 * with more than three, named users 100000, 100001, ... (read) and the
 * mask (read and write) between them, as setfacl writes them.
 */
static void build_acl(unsigned char *acl, int n, int64_t mode)
{
	int i = 0;

	memset(acl, 0, ACL_SIZE(n));
	acl[0] = 2;
	acl_entry(acl, i++, ACL_USER_OBJ, (unsigned)(mode >> 6 & 7), UINT32_MAX);
	for (int u = 0; u < n - 4; u++)
		acl_entry(acl, i++, ACL_USER, 4, 100000u + (uint32_t)u);
	acl_entry(acl, i++, ACL_GROUP_OBJ, (unsigned)(mode >> 3 & 7),
		  UINT32_MAX);
	if (n > 3)
		acl_entry(acl, i++, ACL_MASK, 6, UINT32_MAX);
	acl_entry(acl, i, ACL_OTHER, (unsigned)(mode & 7), UINT32_MAX);
}

/* Whether @name (NUL-terminated) is in a namespace that takes privilege
 * to change. */
static bool privileged_name(const char *name)
{
	return !strncmp(name, "security.", 9) || !strncmp(name, "trusted.", 8);
}

/* The entries of the ACL @op sets, 0 if it sets none this builds: a
 * name system.posix_acl_..., a size of 4 + 8n, 3 <= n <= ACL_ENTRIES_MAX. */
static int acl_entries(const struct rlog_op *op)
{
	if (!(op->have & RL_COUNT) || op->count < (int64_t)ACL_SIZE(3) ||
	    op->count > (int64_t)ACL_SIZE(ACL_ENTRIES_MAX) ||
	    (op->count - 4) % 8 || op->name_len <= strlen(ACL_PREFIX) ||
	    memcmp(op->name, ACL_PREFIX, strlen(ACL_PREFIX)))
		return 0;
	return (int)((op->count - 4) / 8);
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
	unsigned char acl[ACL_SIZE(ACL_ENTRIES_MAX)];
	const void *value = data;
	int entries;
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
	if (xop == XATTR_OP_SET && (entries = acl_entries(op))) {
		build_acl(acl, entries, op->have & RL_MODE ? op->mode : 0644);
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
