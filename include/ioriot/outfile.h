/*
 * outfile: opening the files ioriot writes (capture logs, replay files,
 * statistics, time series) so that a path another user prepared cannot
 * redirect them.  ioriot often runs as root in directories others can
 * write to (/tmp), so the last component is never followed if it is a
 * symlink, only regular files with a single link are written, and an
 * existing file is emptied only if it belongs to the caller (or, for root
 * under sudo, to the user who called sudo).  Every check is made on the
 * opened fd, so swapping the name afterwards changes nothing.
 */
#ifndef IORIOT_OUTFILE_H
#define IORIOT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum outfile_flags {
	OUTFILE_TRUNCATE = 1 << 0,	/* empty it once it passed the checks */
	OUTFILE_PRIVATE = 1 << 1,	/* mode 0600 even if it existed */
	OUTFILE_KEEP = 1 << 2,		/* refuse a file that is not empty */
};

/*
 * Open @path for writing (O_WRONLY | O_CLOEXEC), creating it with @mode
 * (less the umask) if missing.  Refused: a symlink as the last component
 * (-ELOOP), anything but a regular file (-EINVAL: a FIFO, a device, a
 * directory), a file with other hard links (-EMLINK), a file owned by
 * another user (-EPERM), the file @input when @input is not NULL
 * (-EEXIST: an output must never overwrite its own input), and with
 * OUTFILE_KEEP a file that is not empty (-EEXIST).  The file is
 * opened in its directory, opened first (O_PATH); if @dirfd is not NULL
 * that fd is handed over in *@dirfd, so that the caller can later remove
 * the file it made with unlinkat(*@dirfd, outfile_base(@path)) and never
 * by a path someone may have changed since.  A file this call created is
 * removed the same way when a check fails.  Returns the fd, or -errno
 * with "PATH: why" in @err.
 */
int outfile_open(const char *path, mode_t mode, unsigned flags,
		 const char *input, int *dirfd, char *err, size_t errlen);

/* The last component of @path (a pointer into it). */
const char *outfile_base(const char *path);

/*
 * The directory @path names a file in ("." for a bare name), opened
 * O_PATH | O_DIRECTORY: the fd, or -errno with "PATH: why" in @err.
 */
int outfile_dir(const char *path, char *err, size_t errlen);

/*
 * A new file (O_RDWR, mode 0600, never through a symlink) in directory
 * @dirfd for writing @base under another name, to be renamed over it:
 * ".BASE.PID.N", its name put in @name (@len bytes).  Returns the fd, or
 * -errno (-ENAMETOOLONG if the name does not fit).
 */
int outfile_temp(int dirfd, const char *base, char *name, size_t len);

/*
 * An unnamed file (O_RDWR, mode 0600) in directory @dirfd for writing a
 * part of @base: made with O_TMPFILE, so that nothing is left behind if
 * ioriot dies, or on file systems without it under a temporary name that
 * is removed at once.  Returns the fd or -errno.
 */
int outfile_unnamed(int dirfd, const char *base);

/*
 * Give the unnamed file @fd from outfile_unnamed() a temporary name in
 * @dirfd, as outfile_temp() names them (in @name, @len bytes), to be
 * renamed over @base.  Returns 0 or -errno: -ENOENT if the file cannot be
 * linked (made without O_TMPFILE, or neither the fd nor /proc may link
 * it), -EPERM on a file system without hard links, -ENAMETOOLONG if the
 * name does not fit.
 */
int outfile_link_temp(int dirfd, int fd, const char *base, char *name,
		      size_t len);

/*
 * The file of @head_fd's bytes followed by @body_fd's, both unnamed files
 * in @dirfd (outfile_unnamed()), under a temporary name there (put in
 * @tmp, @tmplen bytes) for a rename over @base.  If @body_fd can be linked
 * it becomes that file, its bytes moved up in place; else both parts are
 * copied into a new file.  Returns an fd of the result, positioned at its
 * end for what follows, or -errno; on an error no name is left behind.
 */
int outfile_join(int dirfd, const char *base, int head_fd, int body_fd,
		 char *tmp, size_t tmplen);

/*
 * For outputs written to a temporary name and renamed over @path: 0 if
 * @path does not exist or is a regular file of the caller's that is not
 * @input (if not NULL), else -errno with "PATH: why" in @err.  A rename
 * replaces the name, never what a symlink there points to, so this check
 * only keeps ioriot from replacing what it should not.
 */
int outfile_check_target(const char *path, const char *input, char *err,
			 size_t errlen);

/* True if @uid may own a file ioriot writes: the effective user, or for
 * root the user named by SUDO_UID. */
bool outfile_owner_ok(uid_t uid);

#endif
