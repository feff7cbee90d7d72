/*
 * Tests of the capture's reorder buffer (reorder.h): events pushed in the
 * order their syscalls returned come out in the order they began, once
 * the window has passed, with their own copies of their paths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/capture/reorder.h"
#include "testutil.h"

#define WINDOW 100

/* One step: push an event that began at @time (of pid @pid), or, with
 * @release, release up to @time (UINT64_MAX: all). */
struct step {
	bool release;
	uint64_t time;
	uint32_t pid;
};

static const struct {
	const char *name;
	struct step steps[8];
	const char *want;	/* "TIME:PID ..." as handed on */
} cases[] = {
	{ "sorted on release", {
	  { false, 500, 1 }, { false, 300, 2 }, { false, 400, 3 },
	  { true, UINT64_MAX, 0 } }, "300:2 400:3 500:1" },
	{ "held for the window", {
	  { false, 300, 1 }, { false, 250, 2 }, { true, 349, 0 },
	  { false, 200, 3 }, { true, 350, 0 }, { true, UINT64_MAX, 0 } },
	  "200:3 250:2 300:1" },
	{ "window passed", {
	  { false, 300, 1 }, { true, 400, 0 }, { false, 200, 2 },
	  { true, UINT64_MAX, 0 } }, "300:1 200:2" },
	{ "equal times in arrival order", {
	  { false, 300, 1 }, { false, 300, 2 }, { false, 100, 3 },
	  { true, 50, 0 }, { true, UINT64_MAX, 0 } }, "100:3 300:1 300:2" },
};

/* The emit callback: "TIME:PID" appended to the stream @ctx. */
static void note(void *ctx, struct cap_event *ev)
{
	FILE *f = ctx;

	fprintf(f, "%s%llu:%u", ftell(f) ? " " : "",
		(unsigned long long)ev->time_ns, ev->pid);
}

/* What the note() callback wrote, in memory. */
struct order_log {
	char *out;
	size_t len;
	FILE *f;
};

static void log_open(struct order_log *l)
{
	l->out = NULL;
	l->f = open_memstream(&l->out, &l->len);
	ck_assert_ptr_nonnull(l->f);
}

/* The log of case @name must be @want; frees it. */
static void log_check(struct order_log *l, const char *name, const char *want)
{
	ck_assert_int_eq(fclose(l->f), 0);
	ck_assert_msg(!strcmp(l->out, want), "%s: '%s', expected '%s'", name,
		      l->out, want);
	free(l->out);
}

START_TEST(test_order)
{
	struct order_log log;
	struct reorder r;

	log_open(&log);
	reorder_init(&r, WINDOW);
	for (size_t i = 0; i < 8; i++) {
		const struct step *s = &cases[_i].steps[i];
		struct cap_event ev = { .time_ns = s->time, .pid = s->pid,
					.tid = s->pid, .sys = SYS_SYNC,
					.have = CAP_RET };

		if (s->release)
			reorder_release(&r, s->time, note, log.f);
		else if (s->time)
			ck_assert_int_eq(reorder_push(&r, &ev), 0);
	}
	ck_assert_uint_eq(r.n, 0);
	reorder_destroy(&r);
	log_check(&log, cases[_i].name, cases[_i].want);
}
END_TEST

/* The emit callback: the event's paths must be the ones pushed. */
static void check_paths(void *ctx, struct cap_event *ev)
{
	int *seen = ctx;

	ck_assert_str_eq(ev->path, "/a/b");
	ck_assert_uint_eq(ev->path_len, 4);
	ck_assert_str_eq(ev->path2, "/c");
	ck_assert_uint_eq(ev->path2_len, 2);
	(*seen)++;
}

/* The held copy of the paths outlives the caller's buffers. */
START_TEST(test_paths_copied)
{
	char p1[] = "/a/b", p2[] = "/c";
	struct cap_event ev = { .time_ns = 7, .pid = 1, .tid = 1,
				.sys = SYS_RENAME, .have = CAP_PATH |
				CAP_PATH2 | CAP_RET, .path = p1,
				.path_len = 4, .path2 = p2, .path2_len = 2 };
	struct reorder r;
	int seen = 0;

	reorder_init(&r, WINDOW);
	ck_assert_int_eq(reorder_push(&r, &ev), 0);
	memset(p1, 'x', 4);
	memset(p2, 'y', 2);
	reorder_release(&r, UINT64_MAX, check_paths, &seen);
	ck_assert_int_eq(seen, 1);
	reorder_destroy(&r);
}
END_TEST

/*
 * Four processes mkdir "shared" below their inherited dirfd 3: the one that
 * began first failed with EEXIST, as the one that began at 120 made it
 * first.  The success comes out first, unless the calls did not overlap,
 * named the path otherwise, or an earlier event of the creator is held.
 */
static const struct {
	const char *name;
	struct { uint64_t time, dur; uint32_t pid; int64_t fd, ret;
		 const char *path; } ev[4];
	const char *want;
} races[] = {
	{ "success first", { { 100, 50, 2, 3, -EEXIST, "shared" },
			     { 120, 10, 3, 3, 0, "shared" },
			     { 130, 5, 4, 3, -EEXIST, "shared" },
			     { 140, 5, 9, 3, 0, "other" } },
	  "120:3 100:2 130:4 140:9" },
	{ "no overlap", { { 100, 10, 2, 3, -EEXIST, "shared" },
			  { 120, 10, 3, 3, 0, "shared" } }, "100:2 120:3" },
	{ "another dirfd", { { 100, 50, 2, 3, -EEXIST, "shared" },
			     { 120, 10, 3, 4, 0, "shared" } }, "100:2 120:3" },
	{ "creator's earlier event held", {
	  { 100, 50, 2, 3, -EEXIST, "shared" },
	  { 110, 5, 3, 3, 0, "before" },
	  { 120, 10, 3, 3, 0, "shared" } }, "100:2 110:3 120:3" },
	{ "the earlier of two successes", {
	  { 100, 50, 2, 3, -EEXIST, "shared" },
	  { 130, 5, 3, 3, 0, "shared" },
	  { 125, 5, 5, 3, 0, "other" },
	  { 120, 5, 4, 3, 0, "shared" } }, "120:4 100:2 125:5 130:3" },
};

START_TEST(test_create_race)
{
	struct order_log log;
	struct reorder r;

	log_open(&log);
	reorder_init(&r, WINDOW);
	for (size_t i = 0; i < 4 && races[_i].ev[i].time; i++) {
		struct cap_event ev = {
			.time_ns = races[_i].ev[i].time,
			.dur_ns = races[_i].ev[i].dur,
			.pid = races[_i].ev[i].pid,
			.tid = races[_i].ev[i].pid,
			.sys = SYS_MKDIRAT,
			.have = CAP_PATH | CAP_FD | CAP_RET,
			.fd = races[_i].ev[i].fd,
			.ret = races[_i].ev[i].ret,
			.path = races[_i].ev[i].path,
			.path_len = (uint32_t)strlen(races[_i].ev[i].path),
		};

		ck_assert_int_eq(reorder_push(&r, &ev), 0);
	}
	reorder_release(&r, UINT64_MAX, note, log.f);
	reorder_destroy(&r);
	log_check(&log, races[_i].name, races[_i].want);
}
END_TEST

/* A mkdir at @time by @pid of @path with result @ret. */
static struct cap_event mkdir_event(uint64_t time, uint64_t dur, uint32_t pid,
				    const char *path, int64_t ret)
{
	return (struct cap_event){
		.time_ns = time, .dur_ns = dur, .pid = pid, .tid = pid,
		.sys = SYS_MKDIR, .have = CAP_PATH | CAP_RET, .ret = ret,
		.path = path, .path_len = (uint32_t)strlen(path) };
}

/*
 * Creates leave the index of held creates when they are released: a
 * failure that comes after its creator was handed on stays where it
 * began, and once everything is released nothing is listed.  Thousands
 * of successes and failures of a few paths, in threads of their own.
 */
START_TEST(test_creates_released)
{
	static const char *const paths[] = { "/a", "/b", "/c", "/d" };
	struct order_log log;
	struct reorder r;
	struct cap_event ev;

	log_open(&log);
	reorder_init(&r, WINDOW);
	ev = mkdir_event(120, 10, 3, "/shared", 0);
	ck_assert_int_eq(reorder_push(&r, &ev), 0);
	reorder_release(&r, 120 + WINDOW, note, log.f);
	ev = mkdir_event(100, 50, 2, "/shared", -EEXIST);
	ck_assert_int_eq(reorder_push(&r, &ev), 0);
	reorder_release(&r, UINT64_MAX, note, log.f);
	log_check(&log, "creator released", "120:3 100:2");
	ck_assert_uint_eq(r.creates.count, 0);

	log_open(&log);
	for (uint32_t i = 0; i < 4000; i++) {
		ev = mkdir_event(1000 + 10 * (uint64_t)i, 5, 10 + i % 7,
				 paths[i % 4], i % 3 ? -EEXIST : 0);
		ck_assert_int_eq(reorder_push(&r, &ev), 0);
		if (i % 50 == 49)
			reorder_release(&r, ev.time_ns, note, log.f);
	}
	ck_assert_uint_gt(r.creates.count, 0);
	reorder_release(&r, UINT64_MAX, note, log.f);
	ck_assert_uint_eq(r.creates.count, 0);
	ck_assert_int_eq(fclose(log.f), 0);
	ck_assert_uint_gt(log.len, 0);
	free(log.out);
	reorder_destroy(&r);
}
END_TEST

/* Destroying a buffer that still holds events frees them. */
START_TEST(test_destroy_held)
{
	struct cap_event ev = { .time_ns = 5, .pid = 1, .tid = 1,
				.sys = SYS_SYNC, .have = CAP_RET };
	struct reorder r;

	reorder_init(&r, WINDOW);
	for (int i = 0; i < 2000; i++) {
		ev.time_ns = (uint64_t)(i * 7919 % 2000);
		ck_assert_int_eq(reorder_push(&r, &ev), 0);
	}
	ck_assert_uint_eq(r.n - r.head + r.late_n, 2000);
	reorder_destroy(&r);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_uint_eq(r.late_n, 0);
	ck_assert_ptr_null(r.run);
	ck_assert_ptr_null(r.late);
}
END_TEST

/* What test_chunks checks at each release: times in order, and each
 * event's path the one it was pushed with. */
struct chunk_check {
	uint64_t last;
	size_t seen;
	const char *long_path;	/* the 70,000-byte path, or NULL */
};

static void check_chunk_event(void *ctx, struct cap_event *ev)
{
	struct chunk_check *c = ctx;
	char want[32];

	ck_assert_uint_ge(ev->time_ns, c->last);
	c->last = ev->time_ns;
	c->seen++;
	if (ev->path_len > 1000) {
		ck_assert_uint_eq(ev->path_len, strlen(c->long_path));
		ck_assert(!memcmp(ev->path, c->long_path, ev->path_len));
		return;
	}
	snprintf(want, sizeof(want), "/f/%llu",
		 (unsigned long long)ev->time_ns);
	ck_assert_str_eq(ev->path, want);
}

/*
 * Items come from chunks of 64 KiB, each freed with its last item: 50,000
 * events, a few out of order and some with a path longer than a chunk
 * (SystemTap lines may hold one), released as the window moves, come out
 * in order with their paths; what is held at the end is freed (ASan).
 */
START_TEST(test_chunks)
{
	size_t long_len = 70000;
	char *long_path = malloc(long_len + 1), path[32];
	struct chunk_check check = { .long_path = long_path };
	struct cap_event ev = { .pid = 1, .tid = 1, .sys = SYS_STAT,
				.have = CAP_PATH | CAP_RET };
	struct reorder r;

	memset(long_path, 'x', long_len);
	long_path[0] = '/';
	long_path[long_len] = '\0';
	reorder_init(&r, WINDOW);
	for (uint64_t i = 0; i < 50000; i++) {
		ev.time_ns = 10 * i + (i % 97 == 0 ? 5 : 0) -
			     (i % 89 == 0 ? 15 : 0);	/* some late */
		if (i % 1000 == 500) {
			ev.path = long_path;
			ev.path_len = (uint32_t)long_len;
		} else {
			ev.path_len = (uint32_t)snprintf(path, sizeof(path),
							 "/f/%llu",
							 (unsigned long long)
							 ev.time_ns);
			ev.path = path;
		}
		ck_assert_int_eq(reorder_push(&r, &ev), 0);
		if (i % 64 == 0)
			reorder_release(&r, ev.time_ns, check_chunk_event,
					&check);
	}
	ck_assert_uint_gt(check.seen, 49000);
	ck_assert_uint_lt(check.seen, 50000);
	reorder_destroy(&r);
	free(long_path);
}
END_TEST

/* Ignores what it is handed. */
static void drop_event(void *ctx, struct cap_event *ev)
{
	(void)ctx;
	(void)ev;
}

/*
 * Events released a tick's worth at once, as the capture's reader does:
 * the chunks they emptied are kept for the next tick's events (as many as
 * still hold items, at least 8), not handed back to malloc, and the chunks
 * in all stay what one tick needs, tick after tick.
 */
START_TEST(test_spare_chunks)
{
	struct cap_event ev = { .pid = 1, .tid = 1, .sys = SYS_STAT,
				.have = CAP_PATH | CAP_RET,
				.path = "/some/path/of/a/file", .path_len = 20 };
	struct reorder r;
	size_t early = 0;

	reorder_init(&r, WINDOW);
	for (uint64_t tick = 0; tick < 10; tick++) {
		for (uint64_t i = 0; i < 20000; i++) {
			ev.time_ns = tick * 1000000 + i;
			ck_assert_int_eq(reorder_push(&r, &ev), 0);
		}
		/* Half of what is held leaves at once. */
		reorder_release(&r, tick * 1000000 + 10000 + WINDOW,
				drop_event, NULL);
		ck_assert_uint_gt(r.nspare, 8);
		if (tick == 3)
			early = r.nchunks + r.nspare;
	}
	ck_assert_uint_le(r.nchunks + r.nspare, early + 2);
	reorder_destroy(&r);
}
END_TEST

Suite *reorder_suite(void)
{
	Suite *s = suite_create("reorder");
	TCase *tc = tcase_create("reorder");

	tcase_add_loop_test(tc, test_order, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	tcase_add_test(tc, test_paths_copied);
	tcase_add_loop_test(tc, test_create_race, 0,
			    (int)(sizeof(races) / sizeof(races[0])));
	tcase_add_test(tc, test_creates_released);
	tcase_add_test(tc, test_destroy_held);
	tcase_add_test(tc, test_chunks);
	tcase_add_test(tc, test_spare_chunks);
	suite_add_tcase(s, tc);
	return s;
}
