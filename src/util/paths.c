/* paths: lexical normalisation and checks of paths (paths.h). */
#include <errno.h>
#include <string.h>

#include "ioriot/paths.h"
#include "ioriot/textsafe.h"

long path_normalize(const char *path, size_t len, const char *cwd, char *out)
{
	size_t n = 0;		/* out[0, n) is the normalised prefix */
	size_t i = 0;

	if (len == 0 || path[0] != '/') {
		if (!cwd)
			return -EINVAL;
		n = strlen(cwd);
		if (n >= PATHMAP_MAX)
			return -ENAMETOOLONG;
		memcpy(out, cwd, n);
		if (n == 1)
			n = 0;		/* cwd "/": components append to "" */
	}
	while (i < len) {
		size_t start, clen = path_next_component(path, len, &i, &start);

		if (clen == 0 || (clen == 1 && path[start] == '.'))
			continue;
		if (clen == 2 && path[start] == '.' && path[start + 1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;	/* drop the '/' too; at root n stays 0 */
			continue;
		}
		if (n + 1 + clen >= PATHMAP_MAX)
			return -ENAMETOOLONG;
		out[n++] = '/';
		memcpy(out + n, path + start, clen);
		n += clen;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return (long)n;
}

bool test_name_valid(const char *name)
{
	size_t len = strlen(name);

	/* A leading '.' is reserved (., .., the .trash of the sandboxes). */
	if (len == 0 || len > 255 || name[0] == '.')
		return false;
	/* It names sandboxes and is printed: printable characters only
	 * (no control character, no byte that is no UTF-8). */
	for (size_t i = 0, n; i < len; i += n) {
		n = text_printable_len((const unsigned char *)name + i);
		if (!n || name[i] == ' ' || name[i] == '/')
			return false;
	}
	return true;
}

/* One pass, no copy: the replay checks every operation's paths. */
bool path_is_normal(const char *path, size_t len)
{
	size_t i = 0;

	if (!len || len >= PATHMAP_MAX || path[0] != '/')
		return false;
	if (len == 1)
		return true;
	while (i < len) {
		size_t start = ++i;	/* past the '/' */

		while (i < len && path[i] != '/')
			i++;
		/* Empty (a "//" or a trailing '/'), "." and "..". */
		if (i == start || (path[start] == '.' &&
				   (i - start == 1 ||
				    (i - start == 2 && path[start + 1] == '.'))))
			return false;
	}
	return true;
}

bool path_is_below(const char *path, size_t len, const char *root,
		   size_t root_len)
{
	if (root_len == 1 && root[0] == '/')
		return len > 0 && path[0] == '/';
	return len >= root_len && memcmp(path, root, root_len) == 0 &&
	       (len == root_len || path[root_len] == '/');
}

bool path_has_component(const char *path, size_t len, const char *name)
{
	size_t nlen = strlen(name), i = 0, start;

	while (i < len) {
		if (path_next_component(path, len, &i, &start) == nlen &&
		    memcmp(path + start, name, nlen) == 0)
			return true;
	}
	return false;
}

/* True if @path is below one of the @n prefixes. */
static bool below_any(const char *path, size_t len, const char *const *prefixes,
		      size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (path_is_below(path, len, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

bool path_filter_keeps(const struct path_filter *f, const char *path,
		       size_t len)
{
	if (!f)
		return true;
	if (below_any(path, len, f->exclude, f->nexclude))
		return false;
	return !f->ninclude || below_any(path, len, f->include, f->ninclude);
}
