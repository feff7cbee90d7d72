/*
 * notify: the capture's readiness told to a script (--ready-fd) and to
 * systemd (NOTIFY_SOCKET), notify.c.  Private to src/cli.
 */
#ifndef IORIOT_CLI_NOTIFY_H
#define IORIOT_CLI_NOTIFY_H

/*
 * Say "ready": "READY\n" to @ready_fd (-1: none), which is closed, and
 * "READY=1" to systemd's NOTIFY_SOCKET when it is set.  0, or the -errno
 * of the first that failed (both are tried).
 */
int notify_ready(int ready_fd);

#endif
