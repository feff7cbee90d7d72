/*
 * teststate: whether a test's sandbox on a mount is being built, whole,
 * or already replayed in, and a lock that keeps two inits or replays of
 * one test apart (src/init/teststate.c; docs/guide.md, "A test's state").
 */
#ifndef IORIOT_TESTSTATE_H
#define IORIOT_TESTSTATE_H

#include <stddef.h>

enum test_state {
	TEST_STATE_NONE,	/* no record: never initialised by this
				 * version, or made by hand */
	TEST_STATE_INIT,	/* an init began and did not complete */
	TEST_STATE_READY,	/* init completed */
	TEST_STATE_USED,	/* a replay started in it */
};

/* "none", "init", "ready" or "used". */
const char *teststate_name(enum test_state st);

/*
 * Take the exclusive lock of test @name on mount @mnt, making
 * <mnt>/.ioriot/.state as needed.  Returns the lock's fd (held until it is
 * closed or the process ends), -EBUSY when another init or replay of the
 * test holds it, or -errno; with a message in @err.
 */
int teststate_lock(const char *mnt, const char *name, char *err,
		   size_t errlen);

/* The recorded state of test @name on @mnt into *@st (TEST_STATE_NONE
 * without a record).  0 or -errno with a message in @err. */
int teststate_get(const char *mnt, const char *name, enum test_state *st,
		  char *err, size_t errlen);

/* Record state @st of test @name on @mnt.  0 or -errno with a message in
 * @err. */
int teststate_set(const char *mnt, const char *name, enum test_state st,
		  char *err, size_t errlen);

#endif
