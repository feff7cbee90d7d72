/*
 * creds: giving up root's rights before touching files other users can
 * change.  The replay drops them for the whole process (the CLI, with
 * initgroups/setgid/setuid); init drops them in each worker thread only,
 * with the raw system calls, which unlike the C library's wrappers change
 * the calling thread alone (credentials are per thread in Linux), so the
 * calling thread stays root to report progress and clean up.
 */
#ifndef IORIOT_CREDS_H
#define IORIOT_CREDS_H

#include <sys/types.h>

/*
 * Make the calling thread, and only it, @uid:@gid with no supplementary
 * group and no capability, for good.  The process is made non-dumpable
 * first, so the test user cannot ptrace a thread that shares root's fds
 * and memory.  Returns 0 or -errno (then the thread must not go on).
 */
int creds_drop_thread(uid_t uid, gid_t gid);

#endif
