/*
 * notify: telling a script or systemd the exact moment a capture records
 * (--ready-fd N: "READY" and a newline written to fd N, which is then
 * closed; under systemd, where NOTIFY_SOCKET is set: "READY=1" sent to it,
 * as sd_notify(3) does, for a unit of Type=notify).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "notify.h"

/* "READY=1" to the datagram socket named by NOTIFY_SOCKET (an abstract
 * one when it starts with '@').  0, or -errno. */
static int notify_systemd(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = strlen(path);
	int fd, rc = 0;

	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, "READY=1", 7, MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int notify_ready(int ready_fd)
{
	const char *sock = getenv("NOTIFY_SOCKET");
	int rc = 0;

	if (ready_fd >= 0) {
		if (write(ready_fd, "READY\n", 6) != 6)
			rc = -errno;
		if (close(ready_fd) && !rc)
			rc = -errno;
	}
	if (sock && *sock) {
		int r = notify_systemd(sock);

		if (!rc)
			rc = r;
	}
	return rc;
}
