/*
 * syscall_table: the operation table itself, with no includes, so that the
 * BPF program (src/capture/capture.bpf.c) shares the enum sys_id numbering
 * with user space.  See syscalls.h for what the columns mean.
 */
#ifndef IORIOT_SYSCALL_TABLE_H
#define IORIOT_SYSCALL_TABLE_H

enum sys_kind {
	SK_OPEN,	/* path -> new fd */
	SK_CLOSE,	/* fd */
	SK_CLOSE_RANGE,	/* fd range */
	SK_DUP,		/* fd -> new fd sharing the open file */
	SK_READ,	/* data from fd (plain or at an offset) */
	SK_WRITE,	/* data to fd (plain or at an offset) */
	SK_SEEK,	/* move fd position */
	SK_READDIR,	/* directory entries from fd */
	SK_FDOP,	/* any other operation on an fd */
	SK_FCNTL,	/* fcntl: dup commands change the fd table */
	SK_PATHOP,	/* operation on an existing path */
	SK_STATAT,	/* path op, or fd op with an empty path (AT_EMPTY_PATH) */
	SK_TRUNCATE,	/* truncate(path, length) */
	SK_MKDIR,
	SK_RMDIR,
	SK_UNLINK,	/* unlinkat with AT_REMOVEDIR acts as rmdir */
	SK_RENAME,
	SK_LINK,
	SK_SYMLINK,	/* p = target (a string), P = new link path */
	SK_MKNOD,	/* a new inode at p that is no directory: mknod,
			 * mknodat, bind of a Unix socket to a path */
	SK_SENDFILE,	/* d = out fd, e = in fd */
	SK_COPY_RANGE,	/* d = in fd, e = out fd */
	SK_SYNC,	/* whole system */
	SK_CHDIR,
	SK_FCHDIR,
	SK_MMAP,
	SK_ADDR,	/* munmap, msync, mremap, madvise: by address */
	SK_AIO_SETUP,	/* io_setup: a new AIO context */
	SK_AIO_DESTROY,	/* io_destroy */
	SK_AIO_SUBMIT,	/* io_submit: the iocb records before it */
	SK_AIO_CANCEL,	/* io_cancel */
	SK_AIO_GETEVENTS,	/* io_getevents, io_pgetevents: the io_event
				 * records after it */
	SK_URING_SETUP,		/* io_uring_setup: a new ring */
	SK_URING_ENTER,		/* io_uring_enter: the sqe records before it */
	SK_URING_REGISTER,	/* io_uring_register: the uring_file or
				 * uring_buf records before it */
	/* The file API: after the AIO and io_uring calls, which the capture's
	 * path filter keeps as one range (loader.c). */
	SK_IOCTL,	/* ioctl: FICLONE, FICLONERANGE, FIDEDUPERANGE (the
			 * dedupe records before it) */
	SK_XATTR,	/* extended attributes: by path, link, fd or dirfd */
	SK_FLOCK,	/* flock */
	SK_SPLICE,	/* splice, tee: d = in fd, e = out fd */
	/* Kinds from here on are not syscalls with a result (events.c relies
	 * on this order). */
	SK_EXIT_GROUP,
	SK_FORK,	/* v4 record: new process or thread */
	SK_EXEC,	/* v4 record: exec, closes O_CLOEXEC fds */
	SK_EXIT,	/* v4 record: process exit */
	SK_OPENFD,	/* v4 record: fd open before capture started */
	SK_CWD,		/* v4 record: working directory at capture start */
	SK_LOST,	/* v4 record: events the probe lost */
	SK_IOCB,	/* v4 record: one iocb of the io_submit after it */
	SK_IO_EVENT,	/* v4 record: one completion io_getevents returned */
	SK_MAPPAGE,	/* v4 record: one page of a file mapping faulted in
			 * (read) or dirtied (write); replay: a run of such
			 * pages touched through the replay's mapping */
	SK_AIO_DATA,	/* replay: completion of an AIO read or write */
	SK_AIO_DONE,	/* replay: completion of an AIO fsync or fdatasync */
	SK_URING_SQE,	/* v4 record: one io_uring request submitted */
	SK_URING_CQE,	/* v4 record: one io_uring completion posted */
	SK_URING_FILE,	/* v4 record: one fixed file io_uring_register set */
	SK_URING_BUF,	/* v4 record: one buffer io_uring_register set */
	SK_URING_DATA,	/* replay: completion of an io_uring read or write */
	SK_URING_DONE,	/* replay: completion of another io_uring request */
	SK_DEDUPE,	/* v4 record: one destination of the FIDEDUPERANGE
			 * ioctl after it; replay: that destination queued */
	SK_DEDUPE_DONE,	/* replay: a FIDEDUPERANGE destination's result */
	SK_FUTEX,	/* futex: a wait or wake, in logs of ioriot before
			 * wake records: generate turns a wake and the wait
			 * it ended into a dependency (sync=); never an
			 * operation */
	SK_WAKE,	/* v4 record: a captured thread woke another from a
			 * sleep (--sync): a dependency (sync=) of the
			 * woken thread's next operation; never an
			 * operation */
};

/*
 * The class of an operation: what it does to files, decided here once for
 * every view of it.  sys_class_of() (analyze's tables, --only-syscalls),
 * series_class_of() (the time series) and the rate caps (src/replay/rate.c)
 * each map it with a switch on the class, never on the syscall;
 * tests/test_syscalls.c checks that they agree for every id.  docs/guide.md
 * (Filters) lists the classes for users.
 *
 * The calls the views used to disagree on, and why they are where they are:
 * - sendfile is a read.  It exists to send a file to a socket: its in fd
 *   is a file read through the page cache, its out fd is usually not a
 *   file at all, so in file I/O terms it reads.
 * - copy_file_range is a copy, a write in views with one slot per call:
 *   both its fds are files and what it leaves behind is a written file;
 *   the rate caps, which can count a call twice, count it as a read and a
 *   write.
 * - splice and tee are other: tee joins two pipes and touches no file, and
 *   which side of a splice is the file (read or written) changes call by
 *   call, which a table of syscalls cannot say.
 * - readahead is a read: it reads count bytes of the file from the device
 *   into the page cache, the I/O a read would do.
 * - fadvise64 is other: advice, which may start I/O but does none itself.
 * - truncate, ftruncate, fallocate and the FICLONE ioctls are alter: they
 *   change a file's contents, size or blocks, a write to anyone splitting
 *   reads from writes, but pass no data, so a cap on bytes or data
 *   operations does not count them.
 * - msync is a sync: it writes a mapping's dirty pages back, the fsync of
 *   a mapping.
 * - dup, dup2 and dup3 are open: like open and close they change the fd
 *   table (dup2 and dup3 close the fd they replace).
 * - chdir and fchdir are meta: a path lookup, like stat.
 * - The completions of AIO and io_uring requests go by direction (reads,
 *   writes, syncs, fallocate and ftruncate as alter, nop and fadvise
 *   other); the request records (iocb, sqe) themselves are other, as their
 *   direction is their opcode's (the rate caps look it up by the opcode's
 *   completion).
 * - mmap_read and mmap_write, the pages of a mapping touched, are a read
 *   and a write; mmap and the calls by address are other.
 */
enum sys_op_class {
	OC_READ,	/* moves a file's data to the caller */
	OC_WRITE,	/* moves data into a file */
	OC_COPY,	/* moves data from one file to another */
	OC_ALTER,	/* changes a file's contents or size, passing no data */
	OC_OPEN,	/* opens or closes an fd, or makes one from another */
	OC_META,	/* reads or changes what is not data: stat, attributes,
			 * directory entries, links' content, cwd */
	OC_NAMESPACE,	/* adds, removes or renames a name: a kind of meta */
	OC_SYNC,	/* writes back what was written */
	OC_OTHER,	/* the rest: seeks, fcntl, locks, advice, mappings,
			 * AIO and io_uring set-up and requests, pipes,
			 * processes */
	OC_COUNT
};

/* X(id, name, kind, v3 return key, replay name, class) */
#define SYSCALL_TABLE(X) \
	X(OPEN, "open", SK_OPEN, 'd', "open", OC_OPEN) \
	X(OPENAT, "openat", SK_OPEN, 'd', "openat", OC_OPEN) \
	X(OPENAT2, "openat2", SK_OPEN, 'd', "openat2", OC_OPEN) \
	X(CREAT, "creat", SK_OPEN, 'd', "creat", OC_OPEN) \
	X(CLOSE, "close", SK_CLOSE, 's', "close", OC_OPEN) \
	X(CLOSE_RANGE, "close_range", SK_CLOSE_RANGE, 's', "close_range", \
	  OC_OPEN) \
	X(READ, "read", SK_READ, 'b', "read", OC_READ) \
	X(PREAD64, "pread64", SK_READ, 'b', "pread64", OC_READ) \
	X(READV, "readv", SK_READ, 'b', "readv", OC_READ) \
	X(PREADV, "preadv", SK_READ, 'b', "preadv", OC_READ) \
	X(PREADV2, "preadv2", SK_READ, 'b', "preadv2", OC_READ) \
	X(WRITE, "write", SK_WRITE, 'b', "write", OC_WRITE) \
	X(PWRITE64, "pwrite64", SK_WRITE, 'b', "pwrite64", OC_WRITE) \
	X(WRITEV, "writev", SK_WRITE, 'b', "writev", OC_WRITE) \
	X(PWRITEV, "pwritev", SK_WRITE, 'b', "pwritev", OC_WRITE) \
	X(PWRITEV2, "pwritev2", SK_WRITE, 'b', "pwritev2", OC_WRITE) \
	X(LSEEK, "lseek", SK_SEEK, 'b', "lseek", OC_OTHER) \
	X(LLSEEK, "llseek", SK_SEEK, 'b', "lseek", OC_OTHER) \
	X(SENDFILE, "sendfile", SK_SENDFILE, 'b', "sendfile", OC_READ) \
	X(COPY_FILE_RANGE, "copy_file_range", SK_COPY_RANGE, 'b', \
	  "copy_file_range", OC_COPY) \
	X(FSYNC, "fsync", SK_FDOP, 's', "fsync", OC_SYNC) \
	X(FDATASYNC, "fdatasync", SK_FDOP, 's', "fdatasync", OC_SYNC) \
	X(SYNC, "sync", SK_SYNC, 's', "sync", OC_SYNC) \
	X(SYNCFS, "syncfs", SK_FDOP, 's', "syncfs", OC_SYNC) \
	X(SYNC_FILE_RANGE, "sync_file_range", SK_FDOP, 's', "sync_file_range", \
	  OC_SYNC) \
	X(FALLOCATE, "fallocate", SK_FDOP, 's', "fallocate", OC_ALTER) \
	X(FTRUNCATE, "ftruncate", SK_FDOP, 's', "ftruncate", OC_ALTER) \
	X(TRUNCATE, "truncate", SK_TRUNCATE, 's', "truncate", OC_ALTER) \
	X(FADVISE64, "fadvise64", SK_FDOP, 's', "fadvise64", OC_OTHER) \
	X(READAHEAD, "readahead", SK_FDOP, 'b', "readahead", OC_READ) \
	X(STAT, "stat", SK_PATHOP, 's', "stat", OC_META) \
	X(LSTAT, "lstat", SK_PATHOP, 's', "lstat", OC_META) \
	X(FSTAT, "fstat", SK_FDOP, 's', "fstat", OC_META) \
	X(NEWFSTATAT, "newfstatat", SK_STATAT, 's', "newfstatat", OC_META) \
	X(FSTATAT, "fstatat", SK_STATAT, 's', "newfstatat", OC_META) \
	X(STATX, "statx", SK_STATAT, 's', "statx", OC_META) \
	X(STATFS, "statfs", SK_PATHOP, 's', "statfs", OC_META) \
	X(STATFS64, "statfs64", SK_PATHOP, 's', "statfs", OC_META) \
	X(FSTATFS, "fstatfs", SK_FDOP, 's', "fstatfs", OC_META) \
	X(FSTATFS64, "fstatfs64", SK_FDOP, 's', "fstatfs", OC_META) \
	X(ACCESS, "access", SK_PATHOP, 's', "access", OC_META) \
	X(FACCESSAT, "faccessat", SK_PATHOP, 's', "faccessat", OC_META) \
	X(FACCESSAT2, "faccessat2", SK_STATAT, 's', "faccessat2", OC_META) \
	X(GETDENTS, "getdents", SK_READDIR, 'b', "getdents64", OC_META) \
	X(GETDENTS64, "getdents64", SK_READDIR, 'b', "getdents64", OC_META) \
	X(READDIR, "readdir", SK_READDIR, 's', "getdents64", OC_META) \
	X(MKDIR, "mkdir", SK_MKDIR, 's', "mkdir", OC_NAMESPACE) \
	X(MKDIRAT, "mkdirat", SK_MKDIR, 's', "mkdirat", OC_NAMESPACE) \
	X(MKNOD, "mknod", SK_MKNOD, 's', "mknod", OC_NAMESPACE) \
	X(MKNODAT, "mknodat", SK_MKNOD, 's', "mknodat", OC_NAMESPACE) \
	X(BIND, "bind", SK_MKNOD, 's', "bind", OC_NAMESPACE) \
	X(RMDIR, "rmdir", SK_RMDIR, 's', "rmdir", OC_NAMESPACE) \
	X(UNLINK, "unlink", SK_UNLINK, 's', "unlink", OC_NAMESPACE) \
	X(UNLINKAT, "unlinkat", SK_UNLINK, 's', "unlinkat", OC_NAMESPACE) \
	X(RENAME, "rename", SK_RENAME, 's', "rename", OC_NAMESPACE) \
	X(RENAMEAT, "renameat", SK_RENAME, 's', "renameat", OC_NAMESPACE) \
	X(RENAMEAT2, "renameat2", SK_RENAME, 's', "renameat2", OC_NAMESPACE) \
	X(LINK, "link", SK_LINK, 's', "link", OC_NAMESPACE) \
	X(LINKAT, "linkat", SK_LINK, 's', "linkat", OC_NAMESPACE) \
	X(SYMLINK, "symlink", SK_SYMLINK, 's', "symlink", OC_NAMESPACE) \
	X(SYMLINKAT, "symlinkat", SK_SYMLINK, 's', "symlinkat", OC_NAMESPACE) \
	X(READLINK, "readlink", SK_PATHOP, 's', "readlink", OC_META) \
	X(READLINKAT, "readlinkat", SK_PATHOP, 's', "readlinkat", OC_META) \
	X(CHMOD, "chmod", SK_PATHOP, 's', "chmod", OC_META) \
	X(FCHMOD, "fchmod", SK_FDOP, 's', "fchmod", OC_META) \
	X(FCHMODAT, "fchmodat", SK_PATHOP, 's', "fchmodat", OC_META) \
	X(FCHMODAT2, "fchmodat2", SK_PATHOP, 's', "fchmodat2", OC_META) \
	X(CHOWN, "chown", SK_PATHOP, 's', "chown", OC_META) \
	X(CHOWN16, "chown16", SK_PATHOP, 's', "chown", OC_META) \
	X(FCHOWN, "fchown", SK_FDOP, 's', "fchown", OC_META) \
	X(FCHOWN16, "fchown16", SK_FDOP, 's', "fchown", OC_META) \
	X(LCHOWN, "lchown", SK_PATHOP, 's', "lchown", OC_META) \
	X(LCHOWN16, "lchown16", SK_PATHOP, 's', "lchown", OC_META) \
	X(FCHOWNAT, "fchownat", SK_PATHOP, 's', "fchownat", OC_META) \
	X(UTIMENSAT, "utimensat", SK_STATAT, 's', "utimensat", OC_META) \
	X(FCNTL, "fcntl", SK_FCNTL, 's', "fcntl", OC_OTHER) \
	X(DUP, "dup", SK_DUP, 's', "dup", OC_OPEN) \
	X(DUP2, "dup2", SK_DUP, 's', "dup2", OC_OPEN) \
	X(DUP3, "dup3", SK_DUP, 's', "dup3", OC_OPEN) \
	X(CHDIR, "chdir", SK_CHDIR, 's', "chdir", OC_META) \
	X(FCHDIR, "fchdir", SK_FCHDIR, 's', "fchdir", OC_META) \
	X(MMAP, "mmap", SK_MMAP, 'A', "mmap", OC_OTHER) \
	X(MMAP2, "mmap2", SK_MMAP, 'A', "mmap", OC_OTHER) \
	X(MUNMAP, "munmap", SK_ADDR, 's', "munmap", OC_OTHER) \
	X(MSYNC, "msync", SK_ADDR, 's', "msync", OC_SYNC) \
	X(MREMAP, "mremap", SK_ADDR, 's', "mremap", OC_OTHER) \
	X(MADVISE, "madvise", SK_ADDR, 's', "madvise", OC_OTHER) \
	X(IO_SETUP, "io_setup", SK_AIO_SETUP, 0, "io_setup", OC_OTHER) \
	X(IO_DESTROY, "io_destroy", SK_AIO_DESTROY, 0, "io_destroy", OC_OTHER) \
	X(IO_SUBMIT, "io_submit", SK_AIO_SUBMIT, 0, "io_submit", OC_OTHER) \
	X(IO_CANCEL, "io_cancel", SK_AIO_CANCEL, 0, "io_cancel", OC_OTHER) \
	X(IO_GETEVENTS, "io_getevents", SK_AIO_GETEVENTS, 0, "io_getevents", \
	  OC_OTHER) \
	X(IO_PGETEVENTS, "io_pgetevents", SK_AIO_GETEVENTS, 0, "io_getevents", \
	  OC_OTHER) \
	X(IO_URING_SETUP, "io_uring_setup", SK_URING_SETUP, 0, \
	  "io_uring_setup", OC_OTHER) \
	X(IO_URING_ENTER, "io_uring_enter", SK_URING_ENTER, 0, \
	  "io_uring_enter", OC_OTHER) \
	X(IO_URING_REGISTER, "io_uring_register", SK_URING_REGISTER, 0, \
	  "io_uring_register", OC_OTHER) \
	X(IOCTL, "ioctl", SK_IOCTL, 0, "ioctl", OC_ALTER) \
	X(SETXATTR, "setxattr", SK_XATTR, 0, "setxattr", OC_META) \
	X(LSETXATTR, "lsetxattr", SK_XATTR, 0, "lsetxattr", OC_META) \
	X(FSETXATTR, "fsetxattr", SK_XATTR, 0, "fsetxattr", OC_META) \
	X(SETXATTRAT, "setxattrat", SK_XATTR, 0, "setxattrat", OC_META) \
	X(GETXATTR, "getxattr", SK_XATTR, 0, "getxattr", OC_META) \
	X(LGETXATTR, "lgetxattr", SK_XATTR, 0, "lgetxattr", OC_META) \
	X(FGETXATTR, "fgetxattr", SK_XATTR, 0, "fgetxattr", OC_META) \
	X(GETXATTRAT, "getxattrat", SK_XATTR, 0, "getxattrat", OC_META) \
	X(LISTXATTR, "listxattr", SK_XATTR, 0, "listxattr", OC_META) \
	X(LLISTXATTR, "llistxattr", SK_XATTR, 0, "llistxattr", OC_META) \
	X(FLISTXATTR, "flistxattr", SK_XATTR, 0, "flistxattr", OC_META) \
	X(LISTXATTRAT, "listxattrat", SK_XATTR, 0, "listxattrat", OC_META) \
	X(REMOVEXATTR, "removexattr", SK_XATTR, 0, "removexattr", OC_META) \
	X(LREMOVEXATTR, "lremovexattr", SK_XATTR, 0, "lremovexattr", OC_META) \
	X(FREMOVEXATTR, "fremovexattr", SK_XATTR, 0, "fremovexattr", OC_META) \
	X(REMOVEXATTRAT, "removexattrat", SK_XATTR, 0, "removexattrat", \
	  OC_META) \
	X(FLOCK, "flock", SK_FLOCK, 0, "flock", OC_OTHER) \
	X(SPLICE, "splice", SK_SPLICE, 0, "splice", OC_OTHER) \
	X(TEE, "tee", SK_SPLICE, 0, "tee", OC_OTHER) \
	X(EXIT_GROUP, "exit_group", SK_EXIT_GROUP, 0, "exit_group", OC_OTHER) \
	X(FORK, "fork", SK_FORK, 0, "fork", OC_OTHER) \
	X(EXEC, "exec", SK_EXEC, 0, "exec", OC_OTHER) \
	X(EXIT, "exit", SK_EXIT, 0, "exit", OC_OTHER) \
	X(OPENFD, "openfd", SK_OPENFD, 0, "openfd", OC_OPEN) \
	X(CWD, "cwd", SK_CWD, 0, "cwd", OC_OTHER) \
	X(LOST, "lost", SK_LOST, 0, "lost", OC_OTHER) \
	X(IOCB, "iocb", SK_IOCB, 0, "iocb", OC_OTHER) \
	X(IO_EVENT, "io_event", SK_IO_EVENT, 0, "io_event", OC_OTHER) \
	X(MMAP_READ, "mmap_read", SK_MAPPAGE, 0, "mmap_read", OC_READ) \
	X(MMAP_WRITE, "mmap_write", SK_MAPPAGE, 0, "mmap_write", OC_WRITE) \
	X(AIO_PREAD, "aio_pread", SK_AIO_DATA, 0, "aio_pread", OC_READ) \
	X(AIO_PWRITE, "aio_pwrite", SK_AIO_DATA, 0, "aio_pwrite", OC_WRITE) \
	X(AIO_PREADV, "aio_preadv", SK_AIO_DATA, 0, "aio_preadv", OC_READ) \
	X(AIO_PWRITEV, "aio_pwritev", SK_AIO_DATA, 0, "aio_pwritev", OC_WRITE) \
	X(AIO_FSYNC, "aio_fsync", SK_AIO_DONE, 0, "aio_fsync", OC_SYNC) \
	X(AIO_FDSYNC, "aio_fdsync", SK_AIO_DONE, 0, "aio_fdsync", OC_SYNC) \
	X(SQE, "sqe", SK_URING_SQE, 0, "sqe", OC_OTHER) \
	X(CQE, "cqe", SK_URING_CQE, 0, "cqe", OC_OTHER) \
	X(URING_FILE, "uring_file", SK_URING_FILE, 0, "uring_file", OC_OTHER) \
	X(URING_BUF, "uring_buf", SK_URING_BUF, 0, "uring_buf", OC_OTHER) \
	X(URING_NOP, "uring_nop", SK_URING_DONE, 0, "uring_nop", OC_OTHER) \
	X(URING_READV, "uring_readv", SK_URING_DATA, 0, "uring_readv", \
	  OC_READ) \
	X(URING_WRITEV, "uring_writev", SK_URING_DATA, 0, "uring_writev", \
	  OC_WRITE) \
	X(URING_FSYNC, "uring_fsync", SK_URING_DONE, 0, "uring_fsync", \
	  OC_SYNC) \
	X(URING_READ_FIXED, "uring_read_fixed", SK_URING_DATA, 0, \
	  "uring_read_fixed", OC_READ) \
	X(URING_WRITE_FIXED, "uring_write_fixed", SK_URING_DATA, 0, \
	  "uring_write_fixed", OC_WRITE) \
	X(URING_SYNC_FILE_RANGE, "uring_sync_file_range", SK_URING_DONE, 0, \
	  "uring_sync_file_range", OC_SYNC) \
	X(URING_FALLOCATE, "uring_fallocate", SK_URING_DONE, 0, \
	  "uring_fallocate", OC_ALTER) \
	X(URING_READ, "uring_read", SK_URING_DATA, 0, "uring_read", OC_READ) \
	X(URING_WRITE, "uring_write", SK_URING_DATA, 0, "uring_write", \
	  OC_WRITE) \
	X(URING_FADVISE, "uring_fadvise", SK_URING_DONE, 0, "uring_fadvise", \
	  OC_OTHER) \
	X(URING_FTRUNCATE, "uring_ftruncate", SK_URING_DONE, 0, \
	  "uring_ftruncate", OC_ALTER) \
	X(DEDUPE, "dedupe", SK_DEDUPE, 0, "dedupe", OC_OTHER) \
	X(DEDUPE_DONE, "dedupe_done", SK_DEDUPE_DONE, 0, "dedupe_done", \
	  OC_OTHER) \
	X(FUTEX, "futex", SK_FUTEX, 0, "futex", OC_OTHER) \
	X(WAKE, "wake", SK_WAKE, 0, "wake", OC_OTHER)

enum sys_id {
#define SYS_ENUM(id, name, kind, v3ret, rname, cls) SYS_##id,
	SYSCALL_TABLE(SYS_ENUM)
#undef SYS_ENUM
	SYS_COUNT
};

#endif
