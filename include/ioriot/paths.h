/*
 * paths: lexical path handling shared by every module: normalisation, the
 * checks a replay file's paths must pass, and test names.  Nothing here
 * touches the file system.
 */
#ifndef IORIOT_PATHS_H
#define IORIOT_PATHS_H

#include <stdbool.h>
#include <stddef.h>

#define PATHMAP_MAX 4096	/* PATH_MAX: longer paths are rejected */
#define SANDBOX_DIR ".ioriot"	/* <mountpoint>/.ioriot/NAME */

/*
 * Normalise @path (@len bytes) into @out (PATHMAP_MAX bytes): drop empty and
 * "." components, resolve ".." against the path itself, never above "/".  A
 * relative path is resolved against @cwd (absolute, normalised) if @cwd is
 * not NULL.  Returns the length of the result, or -ENAMETOOLONG, or -EINVAL
 * for a relative path without @cwd.
 */
long path_normalize(const char *path, size_t len, const char *cwd,
		    char *out);

/*
 * The next component of @path (@len bytes) from *@pos on, skipping '/':
 * sets *@start and returns its length, 0 at the end; *@pos moves past it.
 */
static inline size_t path_next_component(const char *path, size_t len,
					 size_t *pos, size_t *start)
{
	size_t i = *pos;

	while (i < len && path[i] == '/')
		i++;
	*start = i;
	while (i < len && path[i] != '/')
		i++;
	*pos = i;
	return i - *start;
}

/* True if @path (@len bytes) is absolute and already normalised. */
bool path_is_normal(const char *path, size_t len);

/* True if @path is @root or lies below it (whole components). */
bool path_is_below(const char *path, size_t len, const char *root,
		   size_t root_len);

/* True if one component of @path is exactly @name. */
bool path_has_component(const char *path, size_t len, const char *name);

/*
 * Path prefixes (whole components) that select paths: with includes, only
 * paths below one of them; never paths below an exclude.
 */
struct path_filter {
	const char *const *include;
	size_t ninclude;
	const char *const *exclude;
	size_t nexclude;
};

/* True if @f selects @path (@len bytes).  A NULL or empty filter selects
 * everything. */
bool path_filter_keeps(const struct path_filter *f, const char *path,
		       size_t len);

/*
 * True if @name is a valid test name: non-empty, at most 255 bytes, no '/'
 * and no space, not starting with '.' (".", "..", ".trash" are reserved),
 * printable UTF-8 (no control character: textsafe.h).
 */
bool test_name_valid(const char *name);

#endif
