/* roots: the sandbox roots held open in the jail (roots.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "roots.h"

struct exec_roots *roots_open(char *const *paths, size_t n)
{
	struct exec_roots *r = calloc(1, sizeof(*r) + n * sizeof(r->root[0]));
	int err = 0;

	if (!r)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		struct exec_root *t = &r->root[i];

		t->path = paths[i];
		t->len = strlen(paths[i]);
		t->fd = open(paths[i], O_PATH | O_DIRECTORY | O_NOFOLLOW |
			     O_CLOEXEC);
		if (t->fd < 0) {
			err = errno;
			break;
		}
		r->n = i + 1;
	}
	if (err) {
		roots_close(r);
		errno = err;
		return NULL;
	}
	return r;
}

void roots_close(struct exec_roots *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		close(r->root[i].fd);
	free(r);
}
