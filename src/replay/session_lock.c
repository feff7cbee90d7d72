/*
 * session_lock: the state and lock of the tests a command works on
 * (teststate.h), for init and replay: each sandbox root's test is locked
 * once per process and stays locked until the process ends (-R locks in
 * init and keeps the lock through its replay); init records "init", then
 * "ready"; a replay takes only a "ready" sandbox (any with --reuse) and
 * records "used".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/log.h"
#include "ioriot/paths.h"
#include "ioriot/sandbox.h"
#include "session_parts.h"

#define HELD_MAX 4096		/* sandbox roots of one command */

/* The roots this process holds the lock of, each once. */
static char *held[HELD_MAX];
static size_t nheld;

/* Whether the lock of @root is held already. */
static bool holds(const char *root)
{
	for (size_t i = 0; i < nheld; i++)
		if (!strcmp(held[i], root))
			return true;
	return false;
}

int session_tests_lock(char *const *roots, size_t n)
{
	char mnt[PATHMAP_MAX], err[PATHMAP_MAX + 256];
	const char *name;

	for (size_t i = 0; i < n; i++) {
		int fd;

		if (holds(roots[i]))
			continue;
		if (nheld == HELD_MAX || sandbox_split(roots[i], mnt, &name)) {
			log_error("%s: not a sandbox root", roots[i]);
			return 1;
		}
		fd = teststate_lock(mnt, name, err, sizeof(err));
		if (fd < 0) {
			log_error("%s", err);
			return 1;
		}
		/* The fd stays open, and with it the lock, to the end. */
		if (!(held[nheld] = strdup(roots[i]))) {
			log_error("out of memory");
			return 1;
		}
		nheld++;
	}
	return 0;
}

int session_tests_set(char *const *roots, size_t n, enum test_state st)
{
	char mnt[PATHMAP_MAX], err[PATHMAP_MAX + 256];
	const char *name;

	for (size_t i = 0; i < n; i++) {
		if (sandbox_split(roots[i], mnt, &name) ||
		    teststate_set(mnt, name, st, err, sizeof(err))) {
			log_warn("cannot record that test %s is %s: %s", roots[i],
				 teststate_name(st), err);
			return 1;
		}
	}
	return 0;
}

int session_tests_ready(char *const *roots, size_t n, bool reuse)
{
	static const char *const why[] = {
		[TEST_STATE_NONE] = "no init of this version completed there "
				    "(an older ioriot's, or made by hand)",
		[TEST_STATE_INIT] = "its init did not complete (killed, or the "
				    "disk filled): the sandbox is half built",
		[TEST_STATE_USED] = "a replay already ran in it and changed it",
	};
	char mnt[PATHMAP_MAX], err[PATHMAP_MAX + 256];
	const char *name;

	for (size_t i = 0; i < n; i++) {
		enum test_state st;

		if (sandbox_split(roots[i], mnt, &name) ||
		    teststate_get(mnt, name, &st, err, sizeof(err))) {
			log_error("%s", err);
			return 1;
		}
		if (st == TEST_STATE_READY)
			continue;
		if (!reuse) {
			log_error("%s: %s; init it anew (-i, or -R), or replay it "
				  "as it is with --reuse", roots[i], why[st]);
			return 1;
		}
		log_warn("%s: %s; replayed as it is (--reuse)", roots[i],
			 why[st]);
	}
	return 0;
}
