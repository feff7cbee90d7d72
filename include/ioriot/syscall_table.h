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
	SK_FUTEX,	/* futex: a wait or wake, captured as ordering only:
			 * generate turns a wake and the wait it ended into
			 * a dependency (sync=); never an operation */
};

/* X(id, name, kind, v3 return key, replay name) */
#define SYSCALL_TABLE(X) \
	X(OPEN, "open", SK_OPEN, 'd', "open") \
	X(OPENAT, "openat", SK_OPEN, 'd', "openat") \
	X(OPENAT2, "openat2", SK_OPEN, 'd', "openat2") \
	X(CREAT, "creat", SK_OPEN, 'd', "creat") \
	X(CLOSE, "close", SK_CLOSE, 's', "close") \
	X(CLOSE_RANGE, "close_range", SK_CLOSE_RANGE, 's', "close_range") \
	X(READ, "read", SK_READ, 'b', "read") \
	X(PREAD64, "pread64", SK_READ, 'b', "pread64") \
	X(READV, "readv", SK_READ, 'b', "readv") \
	X(PREADV, "preadv", SK_READ, 'b', "preadv") \
	X(PREADV2, "preadv2", SK_READ, 'b', "preadv2") \
	X(WRITE, "write", SK_WRITE, 'b', "write") \
	X(PWRITE64, "pwrite64", SK_WRITE, 'b', "pwrite64") \
	X(WRITEV, "writev", SK_WRITE, 'b', "writev") \
	X(PWRITEV, "pwritev", SK_WRITE, 'b', "pwritev") \
	X(PWRITEV2, "pwritev2", SK_WRITE, 'b', "pwritev2") \
	X(LSEEK, "lseek", SK_SEEK, 'b', "lseek") \
	X(LLSEEK, "llseek", SK_SEEK, 'b', "lseek") \
	X(SENDFILE, "sendfile", SK_SENDFILE, 'b', "sendfile") \
	X(COPY_FILE_RANGE, "copy_file_range", SK_COPY_RANGE, 'b', "copy_file_range") \
	X(FSYNC, "fsync", SK_FDOP, 's', "fsync") \
	X(FDATASYNC, "fdatasync", SK_FDOP, 's', "fdatasync") \
	X(SYNC, "sync", SK_SYNC, 's', "sync") \
	X(SYNCFS, "syncfs", SK_FDOP, 's', "syncfs") \
	X(SYNC_FILE_RANGE, "sync_file_range", SK_FDOP, 's', "sync_file_range") \
	X(FALLOCATE, "fallocate", SK_FDOP, 's', "fallocate") \
	X(FTRUNCATE, "ftruncate", SK_FDOP, 's', "ftruncate") \
	X(TRUNCATE, "truncate", SK_TRUNCATE, 's', "truncate") \
	X(FADVISE64, "fadvise64", SK_FDOP, 's', "fadvise64") \
	X(READAHEAD, "readahead", SK_FDOP, 'b', "readahead") \
	X(STAT, "stat", SK_PATHOP, 's', "stat") \
	X(LSTAT, "lstat", SK_PATHOP, 's', "lstat") \
	X(FSTAT, "fstat", SK_FDOP, 's', "fstat") \
	X(NEWFSTATAT, "newfstatat", SK_STATAT, 's', "newfstatat") \
	X(FSTATAT, "fstatat", SK_STATAT, 's', "newfstatat") \
	X(STATX, "statx", SK_STATAT, 's', "statx") \
	X(STATFS, "statfs", SK_PATHOP, 's', "statfs") \
	X(STATFS64, "statfs64", SK_PATHOP, 's', "statfs") \
	X(FSTATFS, "fstatfs", SK_FDOP, 's', "fstatfs") \
	X(FSTATFS64, "fstatfs64", SK_FDOP, 's', "fstatfs") \
	X(ACCESS, "access", SK_PATHOP, 's', "access") \
	X(FACCESSAT, "faccessat", SK_PATHOP, 's', "faccessat") \
	X(FACCESSAT2, "faccessat2", SK_STATAT, 's', "faccessat2") \
	X(GETDENTS, "getdents", SK_READDIR, 'b', "getdents64") \
	X(GETDENTS64, "getdents64", SK_READDIR, 'b', "getdents64") \
	X(READDIR, "readdir", SK_READDIR, 's', "getdents64") \
	X(MKDIR, "mkdir", SK_MKDIR, 's', "mkdir") \
	X(MKDIRAT, "mkdirat", SK_MKDIR, 's', "mkdirat") \
	X(MKNOD, "mknod", SK_MKNOD, 's', "mknod") \
	X(MKNODAT, "mknodat", SK_MKNOD, 's', "mknodat") \
	X(BIND, "bind", SK_MKNOD, 's', "bind") \
	X(RMDIR, "rmdir", SK_RMDIR, 's', "rmdir") \
	X(UNLINK, "unlink", SK_UNLINK, 's', "unlink") \
	X(UNLINKAT, "unlinkat", SK_UNLINK, 's', "unlinkat") \
	X(RENAME, "rename", SK_RENAME, 's', "rename") \
	X(RENAMEAT, "renameat", SK_RENAME, 's', "renameat") \
	X(RENAMEAT2, "renameat2", SK_RENAME, 's', "renameat2") \
	X(LINK, "link", SK_LINK, 's', "link") \
	X(LINKAT, "linkat", SK_LINK, 's', "linkat") \
	X(SYMLINK, "symlink", SK_SYMLINK, 's', "symlink") \
	X(SYMLINKAT, "symlinkat", SK_SYMLINK, 's', "symlinkat") \
	X(READLINK, "readlink", SK_PATHOP, 's', "readlink") \
	X(READLINKAT, "readlinkat", SK_PATHOP, 's', "readlinkat") \
	X(CHMOD, "chmod", SK_PATHOP, 's', "chmod") \
	X(FCHMOD, "fchmod", SK_FDOP, 's', "fchmod") \
	X(FCHMODAT, "fchmodat", SK_PATHOP, 's', "fchmodat") \
	X(FCHMODAT2, "fchmodat2", SK_PATHOP, 's', "fchmodat2") \
	X(CHOWN, "chown", SK_PATHOP, 's', "chown") \
	X(CHOWN16, "chown16", SK_PATHOP, 's', "chown") \
	X(FCHOWN, "fchown", SK_FDOP, 's', "fchown") \
	X(FCHOWN16, "fchown16", SK_FDOP, 's', "fchown") \
	X(LCHOWN, "lchown", SK_PATHOP, 's', "lchown") \
	X(LCHOWN16, "lchown16", SK_PATHOP, 's', "lchown") \
	X(FCHOWNAT, "fchownat", SK_PATHOP, 's', "fchownat") \
	X(UTIMENSAT, "utimensat", SK_STATAT, 's', "utimensat") \
	X(FCNTL, "fcntl", SK_FCNTL, 's', "fcntl") \
	X(DUP, "dup", SK_DUP, 's', "dup") \
	X(DUP2, "dup2", SK_DUP, 's', "dup2") \
	X(DUP3, "dup3", SK_DUP, 's', "dup3") \
	X(CHDIR, "chdir", SK_CHDIR, 's', "chdir") \
	X(FCHDIR, "fchdir", SK_FCHDIR, 's', "fchdir") \
	X(MMAP, "mmap", SK_MMAP, 'A', "mmap") \
	X(MMAP2, "mmap2", SK_MMAP, 'A', "mmap") \
	X(MUNMAP, "munmap", SK_ADDR, 's', "munmap") \
	X(MSYNC, "msync", SK_ADDR, 's', "msync") \
	X(MREMAP, "mremap", SK_ADDR, 's', "mremap") \
	X(MADVISE, "madvise", SK_ADDR, 's', "madvise") \
	X(IO_SETUP, "io_setup", SK_AIO_SETUP, 0, "io_setup") \
	X(IO_DESTROY, "io_destroy", SK_AIO_DESTROY, 0, "io_destroy") \
	X(IO_SUBMIT, "io_submit", SK_AIO_SUBMIT, 0, "io_submit") \
	X(IO_CANCEL, "io_cancel", SK_AIO_CANCEL, 0, "io_cancel") \
	X(IO_GETEVENTS, "io_getevents", SK_AIO_GETEVENTS, 0, "io_getevents") \
	X(IO_PGETEVENTS, "io_pgetevents", SK_AIO_GETEVENTS, 0, "io_getevents") \
	X(IO_URING_SETUP, "io_uring_setup", SK_URING_SETUP, 0, "io_uring_setup") \
	X(IO_URING_ENTER, "io_uring_enter", SK_URING_ENTER, 0, "io_uring_enter") \
	X(IO_URING_REGISTER, "io_uring_register", SK_URING_REGISTER, 0, \
	  "io_uring_register") \
	X(IOCTL, "ioctl", SK_IOCTL, 0, "ioctl") \
	X(SETXATTR, "setxattr", SK_XATTR, 0, "setxattr") \
	X(LSETXATTR, "lsetxattr", SK_XATTR, 0, "lsetxattr") \
	X(FSETXATTR, "fsetxattr", SK_XATTR, 0, "fsetxattr") \
	X(SETXATTRAT, "setxattrat", SK_XATTR, 0, "setxattrat") \
	X(GETXATTR, "getxattr", SK_XATTR, 0, "getxattr") \
	X(LGETXATTR, "lgetxattr", SK_XATTR, 0, "lgetxattr") \
	X(FGETXATTR, "fgetxattr", SK_XATTR, 0, "fgetxattr") \
	X(GETXATTRAT, "getxattrat", SK_XATTR, 0, "getxattrat") \
	X(LISTXATTR, "listxattr", SK_XATTR, 0, "listxattr") \
	X(LLISTXATTR, "llistxattr", SK_XATTR, 0, "llistxattr") \
	X(FLISTXATTR, "flistxattr", SK_XATTR, 0, "flistxattr") \
	X(LISTXATTRAT, "listxattrat", SK_XATTR, 0, "listxattrat") \
	X(REMOVEXATTR, "removexattr", SK_XATTR, 0, "removexattr") \
	X(LREMOVEXATTR, "lremovexattr", SK_XATTR, 0, "lremovexattr") \
	X(FREMOVEXATTR, "fremovexattr", SK_XATTR, 0, "fremovexattr") \
	X(REMOVEXATTRAT, "removexattrat", SK_XATTR, 0, "removexattrat") \
	X(FLOCK, "flock", SK_FLOCK, 0, "flock") \
	X(SPLICE, "splice", SK_SPLICE, 0, "splice") \
	X(TEE, "tee", SK_SPLICE, 0, "tee") \
	X(EXIT_GROUP, "exit_group", SK_EXIT_GROUP, 0, "exit_group") \
	X(FORK, "fork", SK_FORK, 0, "fork") \
	X(EXEC, "exec", SK_EXEC, 0, "exec") \
	X(EXIT, "exit", SK_EXIT, 0, "exit") \
	X(OPENFD, "openfd", SK_OPENFD, 0, "openfd") \
	X(CWD, "cwd", SK_CWD, 0, "cwd") \
	X(LOST, "lost", SK_LOST, 0, "lost") \
	X(IOCB, "iocb", SK_IOCB, 0, "iocb") \
	X(IO_EVENT, "io_event", SK_IO_EVENT, 0, "io_event") \
	X(MMAP_READ, "mmap_read", SK_MAPPAGE, 0, "mmap_read") \
	X(MMAP_WRITE, "mmap_write", SK_MAPPAGE, 0, "mmap_write") \
	X(AIO_PREAD, "aio_pread", SK_AIO_DATA, 0, "aio_pread") \
	X(AIO_PWRITE, "aio_pwrite", SK_AIO_DATA, 0, "aio_pwrite") \
	X(AIO_PREADV, "aio_preadv", SK_AIO_DATA, 0, "aio_preadv") \
	X(AIO_PWRITEV, "aio_pwritev", SK_AIO_DATA, 0, "aio_pwritev") \
	X(AIO_FSYNC, "aio_fsync", SK_AIO_DONE, 0, "aio_fsync") \
	X(AIO_FDSYNC, "aio_fdsync", SK_AIO_DONE, 0, "aio_fdsync") \
	X(SQE, "sqe", SK_URING_SQE, 0, "sqe") \
	X(CQE, "cqe", SK_URING_CQE, 0, "cqe") \
	X(URING_FILE, "uring_file", SK_URING_FILE, 0, "uring_file") \
	X(URING_BUF, "uring_buf", SK_URING_BUF, 0, "uring_buf") \
	X(URING_NOP, "uring_nop", SK_URING_DONE, 0, "uring_nop") \
	X(URING_READV, "uring_readv", SK_URING_DATA, 0, "uring_readv") \
	X(URING_WRITEV, "uring_writev", SK_URING_DATA, 0, "uring_writev") \
	X(URING_FSYNC, "uring_fsync", SK_URING_DONE, 0, "uring_fsync") \
	X(URING_READ_FIXED, "uring_read_fixed", SK_URING_DATA, 0, \
	  "uring_read_fixed") \
	X(URING_WRITE_FIXED, "uring_write_fixed", SK_URING_DATA, 0, \
	  "uring_write_fixed") \
	X(URING_SYNC_FILE_RANGE, "uring_sync_file_range", SK_URING_DONE, 0, \
	  "uring_sync_file_range") \
	X(URING_FALLOCATE, "uring_fallocate", SK_URING_DONE, 0, \
	  "uring_fallocate") \
	X(URING_READ, "uring_read", SK_URING_DATA, 0, "uring_read") \
	X(URING_WRITE, "uring_write", SK_URING_DATA, 0, "uring_write") \
	X(URING_FADVISE, "uring_fadvise", SK_URING_DONE, 0, "uring_fadvise") \
	X(URING_FTRUNCATE, "uring_ftruncate", SK_URING_DONE, 0, \
	  "uring_ftruncate") \
	X(DEDUPE, "dedupe", SK_DEDUPE, 0, "dedupe") \
	X(DEDUPE_DONE, "dedupe_done", SK_DEDUPE_DONE, 0, "dedupe_done") \
	X(FUTEX, "futex", SK_FUTEX, 0, "futex")

enum sys_id {
#define SYS_ENUM(id, name, kind, v3ret, rname) SYS_##id,
	SYSCALL_TABLE(SYS_ENUM)
#undef SYS_ENUM
	SYS_COUNT
};

#endif
