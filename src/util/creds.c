/* creds: per-thread privilege drop (creds.h). */
#include <errno.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ioriot/creds.h"

int creds_drop_thread(uid_t uid, gid_t gid)
{
	gid_t groups[1] = { gid };

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
	    syscall(SYS_setgroups, 1, groups) < 0 ||
	    syscall(SYS_setresgid, gid, gid, gid) < 0 ||
	    syscall(SYS_setresuid, uid, uid, uid) < 0)
		return -errno;
	/* A thread that is still root in any way must not go on. */
	if (syscall(SYS_geteuid) != (long)uid || syscall(SYS_getegid) != (long)gid)
		return -EPERM;
	return 0;
}
