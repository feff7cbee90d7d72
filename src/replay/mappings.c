/*
 * mappings: the replay's file mappings (exec.c's mmap, munmap, msync,
 * madvise and the page records mmap_read and mmap_write), found by the
 * address the captured mmap returned and the captured process.  A mapping
 * never uses MAP_FIXED and never has PROT_EXEC; a page the mapping or the
 * file no longer has (SIGBUS, SIGSEGV while touching it) ends the page
 * record short, not the replay.  Private writable mappings, whose written
 * pages become the replay's own memory, are bounded in all
 * (REPLAY_MAP_PRIVATE_MAX): beyond, an mmap is answered -ENOMEM, counted.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ioriot/replaylimits.h"
#include "ioriot/syscalls.h"
#include "exec.h"
#include "fileops.h"

/* A replay mapping, found by the address its captured mmap returned and
 * the captured process: two processes' mappings at one address (forked
 * ones map alike) are a chain under that address in exec_ctx's maps. */
struct mapping {
	char *addr;
	size_t len;
	int prot;
	size_t counted;			/* bytes taken from map_private */
	uint32_t pid;			/* the captured process's */
	struct mapping *next;		/* another process's, same address */
};


/* Where a fault while touching a page of a mapping returns to (this
 * thread's, NULL when it touches none; volatile: the signal handler
 * reads it, and no store to it may be left out or moved). */
static __thread sigjmp_buf *volatile touch_env;
static pthread_once_t touch_once = PTHREAD_ONCE_INIT;
static struct sigaction touch_old_bus, touch_old_segv;
static int touch_err;		/* -errno: the handler is not installed */


/*
 * Take the mapping of captured process @pid at captured address @key out
 * of its chain; NULL if there is none.  The head of a chain stays the
 * map's value (replacing it could need memory): when it goes, the next
 * one's fields move into it, and the struct returned is the next one's.
 * The caller unmaps and frees what is returned.  x->lock held.
 */
static struct mapping *map_unlink(struct exec_ctx *x, uint64_t key,
				  uint32_t pid)
{
	struct mapping *head = u64map_get(&x->maps, key), *m, *next, gone;

	if (head && head->pid == pid) {
		if (!(next = head->next)) {
			u64map_del(&x->maps, key);
			return head;
		}
		gone = *head;
		*head = *next;
		*next = gone;
		next->next = NULL;
		return next;
	}
	for (struct mapping *prev = head; prev && (m = prev->next);
	     prev = m) {
		if (m->pid == pid) {
			prev->next = m->next;
			m->next = NULL;
			return m;
		}
	}
	return NULL;
}

/* Unmap and free @m, its bytes given back. */
static void map_free(struct exec_ctx *x, struct mapping *m)
{
	munmap(m->addr, m->len);
	budget_give(&x->budget.map_private, m->counted);
	free(m);
}

int mapping_mmap(struct exec_ctx *x, const struct rlog_op *op, int fd,
		 int64_t *result)
{
	int prot = op->have & RL_MODE ? (int)op->mode & (PROT_READ | PROT_WRITE)
				      : PROT_READ;
	int flags = op->have & RL_FLAGS ? (int)op->flags &
		    (MAP_SHARED | MAP_PRIVATE | MAP_SHARED_VALIDATE |
		     MAP_POPULATE | MAP_NORESERVE | MAP_NONBLOCK) : MAP_SHARED;
	size_t len = op->have & RL_COUNT ? (size_t)op->count : 0;
	off_t off = op->have & RL_OFFSET ? (off_t)op->offset : 0;
	bool captured_ok = op->ret >= 0 || op->ret < -4095;
	size_t counted = (prot & PROT_WRITE) && !(flags & MAP_SHARED) ? len : 0;
	struct mapping *m, *old, *head;
	int rc = 0;
	void *a;

	if (!budget_take(&x->budget.map_private, counted,
			 REPLAY_MAP_PRIVATE_MAX)) {
		budget_refused(&x->budget);
		*result = -ENOMEM;
		return 0;
	}
	a = mmap(NULL, len, prot, flags, fd, off);
	if (a == MAP_FAILED) {
		*result = -errno;
		budget_give(&x->budget.map_private, counted);
		return 0;
	}
	if (!captured_ok) {		/* no munmap will name it */
		munmap(a, len);
		budget_give(&x->budget.map_private, counted);
		*result = (int64_t)(uintptr_t)a;
		return 0;
	}
	if (!(m = malloc(sizeof(*m)))) {
		munmap(a, len);
		budget_give(&x->budget.map_private, counted);
		return -ENOMEM;
	}
	*m = (struct mapping){ .addr = a, .len = len, .prot = prot,
			       .counted = counted, .pid = op->pid };
	pthread_mutex_lock(&x->lock);
	old = map_unlink(x, (uint64_t)op->ret, op->pid);
	head = u64map_get(&x->maps, (uint64_t)op->ret);
	if (head) {
		m->next = head->next;
		head->next = m;
	} else {
		rc = u64map_put(&x->maps, (uint64_t)op->ret, m);
	}
	pthread_mutex_unlock(&x->lock);
	if (old)
		map_free(x, old);
	if (rc) {
		map_free(x, m);
		return rc;
	}
	*result = op->ret;
	return 0;
}

/* The mapping of captured process @pid holding captured address @addr:
 * its key in *@key.  x->lock held. */
static struct mapping *map_find(struct exec_ctx *x, uint32_t pid,
				uint64_t addr, uint64_t *key)
{
	struct u64map_slot *s;
	size_t pos = 0;

	while ((s = u64map_next(&x->maps, &pos))) {
		if (addr < s->key)
			continue;
		for (struct mapping *m = s->value; m; m = m->next) {
			if (m->pid == pid && addr - s->key < m->len) {
				*key = s->key;
				return m;
			}
		}
	}
	return NULL;
}

/* The madvise advice a replay gives: those about caching, reading ahead,
 * writing back and the memory's use; never MADV_HWPOISON,
 * MADV_SOFT_OFFLINE (they take pages from the machine) nor any the
 * replay does not know. */
static bool safe_advice(int64_t advice)
{
	switch (advice) {
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL:
	case MADV_WILLNEED: case MADV_DONTNEED: case MADV_FREE:
	case MADV_REMOVE: case MADV_DONTFORK: case MADV_DOFORK:
	case MADV_MERGEABLE: case MADV_UNMERGEABLE: case MADV_HUGEPAGE:
	case MADV_NOHUGEPAGE: case MADV_DONTDUMP: case MADV_DODUMP:
	case MADV_WIPEONFORK: case MADV_KEEPONFORK: case MADV_COLD:
	case MADV_PAGEOUT: case MADV_POPULATE_READ: case MADV_POPULATE_WRITE:
		return true;
	default:
		return false;
	}
}

int64_t mapping_addr_call(struct exec_ctx *x, const struct rlog_op *op)
{
	struct mapping *m, *gone = NULL, at = { .addr = NULL };
	uint64_t key = 0;
	int64_t r;

	if (!(op->have & RL_ADDR))
		return -EINVAL;
	pthread_mutex_lock(&x->lock);
	m = map_find(x, op->pid, op->addr, &key);
	if (m)
		at = *m;
	if (m && op->sys == SYS_MUNMAP)
		gone = map_unlink(x, key, op->pid);
	pthread_mutex_unlock(&x->lock);
	if (!m)
		return -EINVAL;
	if (op->sys == SYS_MUNMAP) {
		r = neg_errno(munmap(at.addr, at.len));
		budget_give(&x->budget.map_private, at.counted);
		free(gone);
		return r;
	}
	size_t start = (size_t)(op->addr - key);
	size_t len = at.len - start;
	if (op->have & RL_COUNT && (uint64_t)op->count < len)
		len = (size_t)op->count;
	if (op->sys == SYS_MADVISE) {
		int64_t advice = op->have & RL_FLAGS ? op->flags : MADV_NORMAL;

		return safe_advice(advice) ?
		       neg_errno(madvise(at.addr + start, len, (int)advice)) :
		       -EINVAL;
	}
	return neg_errno(msync(at.addr + start, len,
			       op->have & RL_FLAGS ? (int)op->flags &
			       (MS_ASYNC | MS_SYNC | MS_INVALIDATE) : MS_SYNC));
}

/* SIGBUS or SIGSEGV: back to touch_pages() if it touched a page, else
 * the handler there was before (the fault comes again on return). */
static void touch_fault(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (touch_env)
		siglongjmp(*touch_env, 1);
	sigaction(sig, sig == SIGBUS ? &touch_old_bus : &touch_old_segv, NULL);
}

/* Install touch_fault() for SIGBUS and SIGSEGV; touch_err on failure. */
static void touch_install(void)
{
	struct sigaction sa = { .sa_sigaction = touch_fault,
				.sa_flags = SA_SIGINFO | SA_NODEFER };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &touch_old_bus) < 0) {
		touch_err = -errno;
		return;
	}
	if (sigaction(SIGSEGV, &sa, &touch_old_segv) < 0) {
		touch_err = -errno;
		sigaction(SIGBUS, &touch_old_bus, NULL);
	}
}

/* Touch @n pages @step bytes apart from @base, as far as @len bytes
 * from it reach: a load or a store of one byte each.  Returns the pages
 * touched before a fault (a page beyond the end of the file) stopped it. */
static uint64_t touch_pages(char *base, size_t step, size_t len, uint64_t n,
			    bool write, char byte)
{
	uint64_t fit = (len - 1) / step + 1;
	volatile uint64_t done = 0;
	sigjmp_buf env;

	if (n > fit)
		n = fit;
	/* The signal mask saved and restored: a runtime that delivers the
	 * signal through a handler of its own (ThreadSanitizer's) may leave
	 * it blocked despite SA_NODEFER, and the next fault would then kill
	 * the replay.  One rt_sigprocmask per run of pages. */
	if (sigsetjmp(env, 1)) {
		touch_env = NULL;
		return done;
	}
	touch_env = &env;
	while (done < n) {
		volatile char *p = base + done * step;

		if (write)
			*p = byte;
		else
			(void)*p;
		done++;
	}
	touch_env = NULL;
	return done;
}

int64_t mapping_pages(struct exec_ctx *x, const struct rlog_op *op)
{
	bool write = sys_canonical(op->sys) == SYS_MMAP_WRITE;
	uint64_t stride = op->have & RL_STRIDE ? op->stride : 1;
	struct mapping *m, at = { .addr = NULL };
	uint64_t key = 0, n;
	size_t start;

	if (!(op->have & RL_ADDR) || !(op->have & RL_COUNT) || op->count <= 0 ||
	    !stride || stride > SIZE_MAX / RLOG_PAGE_SIZE)
		return -EINVAL;
	pthread_mutex_lock(&x->lock);
	m = map_find(x, op->pid, op->addr, &key);
	if (m)
		at = *m;
	pthread_mutex_unlock(&x->lock);
	if (!m || !(at.prot & (write ? PROT_WRITE : PROT_READ)))
		return -EFAULT;
	/* Without the handler a page beyond the file would end the replay. */
	if (pthread_once(&touch_once, touch_install))
		return -EAGAIN;
	if (touch_err)
		return touch_err;
	start = (size_t)(op->addr - key);
	n = touch_pages(at.addr + start, (size_t)stride * RLOG_PAGE_SIZE,
			at.len - start, (uint64_t)op->count, write, x->data[0]);
	return (int64_t)n;
}

void mappings_free(struct exec_ctx *x)
{
	struct u64map_slot *s;
	size_t pos = 0;

	if (x->maps.slots) {
		while ((s = u64map_next(&x->maps, &pos))) {
			for (struct mapping *m = s->value, *next; m; m = next) {
				next = m->next;
				map_free(x, m);
			}
		}
	}
	u64map_destroy(&x->maps);
}
