/*
 * Tests of cgroup.h: a directory that is no cgroup is refused, a cgroup
 * of this host is accepted, the limit files are read (non-empty ones
 * only), and --cgroup goes with -c, -r and -R only.  Joining a cgroup with a
 * real replay is tested in the sweep suite, on loop devices.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "ioriot/cgroup.h"
#include "ioriot/cgroupsel.h"
#include "../src/cli/container.h"
#include "testutil.h"

START_TEST(test_check)
{
	char *dir = tu_scratch(), *missing = tu_join(dir, "missing");
	char err[512];
	struct statfs sf;

	err[0] = '\0';
	ck_assert_int_eq(cgroup_check(dir, err, sizeof(err)), -ENOTDIR);
	ck_assert_msg(strstr(err, "not a cgroup directory"), "%s", err);
	ck_assert_int_eq(cgroup_join(dir, err, sizeof(err)), -ENOTDIR);
	ck_assert_int_eq(cgroup_check(missing, err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, missing), "%s", err);
	/* Where this host has one, a cgroup directory passes. */
	if (statfs("/sys/fs/cgroup/unified", &sf) == 0 &&
	    sf.f_type == 0x63677270)
		ck_assert_int_eq(cgroup_check("/sys/fs/cgroup/unified", err,
					      sizeof(err)), 0);
	free(missing);
	free(dir);
}
END_TEST

/* The limit files of a directory laid out as a cgroup's. */
START_TEST(test_limits)
{
	char *dir = tu_scratch();
	struct cgroup_limits l;

	free(tu_write_str(dir, "blkio.throttle.read_iops_device",
			  "7:3 100\n7:4 200\n"));
	free(tu_write_str(dir, "blkio.throttle.write_iops_device", ""));
	free(tu_write_str(dir, "io.max", "7:3 rbps=max wbps=max riops=5 "
			  "wiops=max\n"));
	ck_assert_int_eq(cgroup_limits_read(dir, &l), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_str_eq(l.v[0].file, "io.max");
	ck_assert_str_eq(l.v[0].value, "7:3 rbps=max wbps=max riops=5 "
			 "wiops=max");
	ck_assert_str_eq(l.v[1].file, "blkio.throttle.read_iops_device");
	ck_assert_str_eq(l.v[1].value, "7:3 100\n7:4 200");
	cgroup_limits_free(&l);
	cgroup_limits_free(&l);		/* twice, and NULL, are fine */
	cgroup_limits_free(NULL);
	free(dir);
}
END_TEST

/* --cgroup goes with -c, -r and -R, nothing else. */
START_TEST(test_option)
{
	const char *args[] = { "-i", "x.replay", "--cgroup",
			       "/sys/fs/cgroup/blkio", NULL };
	char *err = NULL;

	ck_assert_int_eq(tu_run_args(args, NULL, &err), 2);
	ck_assert_msg(strstr(err, "--cgroup goes with -c (capture), -r or -R"),
		      "%s", err);
	free(err);
}
END_TEST

/*
 * The memory limit of this process's cgroups, from a /proc/PID/cgroup
 * and a tree laid out as /sys/fs/cgroup: the least of the cgroup's and
 * its ancestors' memory.max (v2, also below unified/ on a hybrid host)
 * and memory.limit_in_bytes (v1); "max" and files missing are no limit.
 */
START_TEST(test_memory_limit)
{
	char *dir = tu_scratch(), *root = tu_join(dir, "sys"), where[512];
	char *proc = tu_write_str(dir, "cgroup", "4:memory:/x/y\n0::/a/b\n"
				  "1:cpu:/c\n");
	const char *dirs[] = { "sys", "sys/a", "sys/a/b", "sys/memory",
			       "sys/memory/x", "sys/memory/x/y", "sys/unified" };
	uint64_t limit;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char *p = tu_join(dir, dirs[i]);

		ck_assert_int_eq(mkdir(p, 0755), 0);
		free(p);
	}
	/* None anywhere: no limit. */
	cgroup_memory_limit(proc, root, &limit, where, sizeof(where));
	ck_assert_uint_eq(limit, UINT64_MAX);
	ck_assert_str_eq(where, "");
	free(tu_write_str(root, "a/b/memory.max", "max\n"));
	free(tu_write_str(root, "a/memory.max", "67108864\n"));
	free(tu_write_str(root, "memory/x/y/memory.limit_in_bytes",
			  "9223372036854771712\n"));
	cgroup_memory_limit(proc, root, &limit, where, sizeof(where));
	ck_assert_uint_eq(limit, 67108864);
	ck_assert_msg(strstr(where, "/sys/a/memory.max"), "%s", where);
	/* A lower v1 limit of an ancestor wins. */
	free(tu_write_str(root, "memory/x/memory.limit_in_bytes", "8388608\n"));
	cgroup_memory_limit(proc, root, &limit, where, sizeof(where));
	ck_assert_uint_eq(limit, 8388608);
	ck_assert_msg(strstr(where, "/sys/memory/x/memory.limit_in_bytes"),
		      "%s", where);
	/* No such /proc file: no limit. */
	cgroup_memory_limit(root, root, &limit, where, sizeof(where));
	ck_assert_uint_eq(limit, UINT64_MAX);
	free(proc);
	free(root);
	free(dir);
}
END_TEST

/*
 * A replay of 1,000 timelines (a thread each, 96 KiB: about 118 MiB with
 * the window) in a v1 memory cgroup of 64 MiB (--cgroup) is refused before
 * it starts, with both figures and the limit's file, instead of growing
 * into the OOM killer.  Needs root and the v1 memory controller.
 */
START_TEST(test_memory_refused)
{
	static const char v1[] = "/sys/fs/cgroup/memory";
	char cg[128], *dir = tu_scratch(), *mnt = tu_join(dir, "m");
	char *replay, *out = NULL, *err = NULL, *text;
	size_t len = 0, cap = 1 << 17;
	int rc;

	if (access(v1, W_OK)) {
		printf("cgroup: test memory_refused skipped: no writable %s\n",
		       v1);
		free(mnt);
		free(dir);
		return;
	}
	ck_assert(tu_mount_tmpfs(mnt));
	text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	len += (size_t)snprintf(text + len, cap - len,
		"#|replay_version=1|name=mem|user=root|\n"
		"#|source=x|capture_version=4|host=h|kernel=k|\n"
		"#|ops=1000|timelines=1000|processes=1|duration_ns=1000|\n"
		"#|sandbox=%s/.ioriot/mem|mount=%s|fstype=tmpfs|\n#INIT\n#OPS\n",
		mnt, mnt);
	for (int i = 1; i <= 1000; i++)
		len += (size_t)snprintf(text + len, cap - len,
			"%d 1:%d %d 0 - mkdirat 0 path=%s/.ioriot/mem/d%d "
			"mode=0755\n", i, i, i, mnt, i);
	len += (size_t)snprintf(text + len, cap - len, "#END|ops=1000|\n");
	ck_assert_uint_lt(len, cap);
	replay = tu_write_str(dir, "mem.replay", text);
	snprintf(cg, sizeof(cg), "%s/ioriot-test.%d", v1, (int)getpid());
	ck_assert_int_eq(mkdir(cg, 0755), 0);
	free(tu_write_str(cg, "memory.limit_in_bytes", "67108864\n"));

	const char *args[] = { "-R", replay, "-u", "root", "--allow-root",
			       "-q", "--cgroup", cg, NULL };
	rc = tu_run_args(args, &out, &err);
	ck_assert_int_eq(rmdir(cg), 0);
	ck_assert_msg(rc != 0 && strstr(err, "a thread per timeline") &&
		      strstr(err, "more than the 64.0 MiB its cgroup allows"),
		      "exit %d: %s", rc, err);
	free(out);
	free(err);
	free(text);
	free(replay);
	free(mnt);
	free(dir);
}
END_TEST

/*
 * A capture's --cgroup (cgroupsel.h): who is in a cgroup by the lines of
 * /proc/PID/cgroup: the v2 line, or the line of the v1 controller's
 * hierarchy (with other controllers beside it); the cgroup and below, not
 * a sibling whose name begins alike; a directory that is no cgroup is
 * refused.
 */
START_TEST(test_capture_selection)
{
	char *dir = tu_scratch(), err[512];
	struct cgroup_sel v2 = { .ssid = -1, .rel = "/system.slice/db" };
	struct cgroup_sel v1 = { .ssid = 3, .controller = "blkio",
				 .rel = "/ct" };
	struct cgroup_sel sel;
	static const struct { const char *text; bool v2, v1; } cases[] = {
		{ "0::/system.slice/db\n", true, false },
		{ "0::/system.slice/db/worker\n", true, false },
		{ "0::/system.slice/dbx\n", false, false },
		{ "0::/\n", false, false },
		{ "7:blkio:/ct\n0::/\n", false, true },
		{ "4:cpu,cpuacct:/ct\n7:blkio:/other\n", false, false },
		{ "7:io_x,blkio:/ct/a\n", false, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *f = tu_write_str(dir, "cgroup", cases[i].text);

		ck_assert_msg(cgroup_sel_has(&v2, f) == cases[i].v2 &&
			      cgroup_sel_has(&v1, f) == cases[i].v1,
			      "case %zu: %s", i, cases[i].text);
		free(f);
	}
	ck_assert(!cgroup_sel_has(&v2, "/nonexistent/cgroup"));
	ck_assert_int_eq(cgroup_sel_resolve(dir, "/proc/self/mountinfo",
					    "/proc/cgroups", &sel, err,
					    sizeof(err)), -ENOTDIR);
	ck_assert_msg(strstr(err, "not a cgroup directory"), "%s", err);
	free(dir);
}
END_TEST

/*
 * A container's cgroup directory (--container) from its process's
 * /proc/PID/cgroup and the mount table: v2 where the process is below the
 * root, the v1 blkio hierarchy's where it is not, through each mount's
 * root; none without a mount that shows it.
 */
START_TEST(test_container_cgroup)
{
	char *dir = tu_scratch(), *v2, *v1, *hybrid, *none, *cg, err[512];
	char path[4096];

	v2 = tu_write_str(dir, "v2", "26 1 0:23 / /sys/fs/cgroup rw - cgroup2 "
			  "cgroup2 rw\n");
	v1 = tu_write_str(dir, "v1", "30 1 0:26 / /sys/fs/cgroup/blkio rw - "
			  "cgroup cgroup rw,blkio\n");
	hybrid = tu_write_str(dir, "hybrid", "30 1 0:26 / /sys/fs/cgroup/blkio "
			      "rw - cgroup cgroup rw,blkio\n31 1 0:27 / "
			      "/sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n");
	none = tu_write_str(dir, "none", "22 1 8:2 / / rw - ext4 /dev/sda rw\n");
	cg = tu_write_str(dir, "cgroup", "7:blkio:/docker/abc\n"
			  "0::/system.slice/docker-abc.scope\n");
	ck_assert_int_eq(container_cgroup_of(cg, v2, path, sizeof(path), err,
					     sizeof(err)), 0);
	ck_assert_str_eq(path, "/sys/fs/cgroup/system.slice/docker-abc.scope");
	ck_assert_int_eq(container_cgroup_of(cg, v1, path, sizeof(path), err,
					     sizeof(err)), 0);
	ck_assert_str_eq(path, "/sys/fs/cgroup/blkio/docker/abc");
	ck_assert_int_eq(container_cgroup_of(cg, hybrid, path, sizeof(path),
					     err, sizeof(err)), 0);
	ck_assert_str_eq(path, "/sys/fs/cgroup/unified/system.slice/"
			 "docker-abc.scope");
	ck_assert_int_eq(container_cgroup_of(cg, none, path, sizeof(path), err,
					     sizeof(err)), -ENOTDIR);
	free(cg);
	/* at the v2 root: the v1 hierarchy's says more */
	cg = tu_write_str(dir, "cgroup", "7:blkio:/docker/abc\n0::/\n");
	ck_assert_int_eq(container_cgroup_of(cg, hybrid, path, sizeof(path),
					     err, sizeof(err)), 0);
	ck_assert_str_eq(path, "/sys/fs/cgroup/blkio/docker/abc");
	free(cg);
	free(none);
	free(hybrid);
	free(v1);
	free(v2);
	free(dir);
}
END_TEST

Suite *cgroup_suite(void)
{
	Suite *s = suite_create("cgroup");
	TCase *tc = tcase_create("cgroup");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_check);
	tcase_add_test(tc, test_limits);
	tcase_add_test(tc, test_memory_limit);
	tcase_add_test(tc, test_memory_refused);
	tcase_add_test(tc, test_option);
	tcase_add_test(tc, test_capture_selection);
	tcase_add_test(tc, test_container_cgroup);
	suite_add_tcase(s, tc);
	return s;
}
