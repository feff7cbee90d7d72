/*
 * The fleet playbook (docs/examples/ansible/fleet.yml) run by Debian's
 * ansible-core against an inventory of three "hosts" on this machine
 * (ansible_connection=local), each with a loop mount, a working directory
 * and a test name of its own: capture while a workload writes to each
 * mount, generate, replay all with one --start-at, merge and compare.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/json.h"
#include "testutil.h"

#define HOSTS 3
/* Every host starts at or after the common start (startat_wait()), within
 * a second (a replay that slept past it, or did not wait, is off by
 * seconds); tight, within SKEW_MAX_NS, which a busy host can exceed. */
#define SKEW_MAX_NS 50000000LL		/* 50 ms */
#define SKEW_LOOSE_NS 1000000000LL

/* A shell that writes, syncs, reads and removes a file in @dir/w in a
 * loop until killed.  Its pid. */
static pid_t workload(const char *dir)
{
	char *script;
	pid_t pid;

	ck_assert(asprintf(&script, "mkdir -p %s/w; while :; do dd "
			   "if=/dev/zero of=%s/w/f bs=4096 count=16 "
			   "conv=fsync status=none; cat %s/w/f >/dev/null; "
			   "rm %s/w/f; sleep 0.02; done", dir, dir, dir,
			   dir) > 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	free(script);
	return pid;
}

/* Run ansible-playbook on @inventory with @tags; its exit status. */
static int playbook(const char *book, const char *inventory, const char *tags,
		    const char *log)
{
	pid_t pid = fork();
	int status;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		FILE *f = freopen(log, "a", stdout);

		if (!f || dup2(fileno(stdout), 2) < 0)
			_exit(127);
		execlp("ansible-playbook", "ansible-playbook", "-i", inventory,
		       "--tags", tags, book, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static json_t *load(const char *path)
{
	struct jv_error jerr;
	json_t *v = jv_load(path, &jerr);

	ck_assert_msg(v, "%s: line %u: %s", path, jerr.line, jerr.msg);
	return v;
}

static int64_t int_at(const json_t *v, const char *a,
		      const char *b)
{
	int64_t n = 0;

	if (a)
		v = json_object_get(v, a);
	ck_assert_msg(jv_int(json_object_get(v, b), &n) == 0, "%s.%s",
		      a ? a : "", b);
	return n;
}

/* The inventory: hosts h1..h3, each in both groups, its mount, directory
 * and name; the fleet directory @fleet. */
static char *inventory(const char *dir, char *const *mnt, const char *fleet)
{
	char *path = tu_join(dir, "inventory.ini");
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	for (int g = 0; g < 2; g++) {
		fprintf(f, "[%s]\n", g ? "test" : "capture");
		for (int i = 0; i < HOSTS; i++)
			fprintf(f, "h%d ioriot_dir=%s/d%d test_name=h%d "
				"capture_args='[\"--include\", \"%s\"]' "
				"replay_args='[\"-D\"]'\n", i + 1, dir, i + 1,
				i + 1, mnt[i]);
	}
	fprintf(f, "[all:vars]\nansible_connection=local\n"
		"ansible_python_interpreter=/usr/bin/python3\n"
		"ioriot_become=false\nioriot_bin=%s\nfleet_dir=%s\n"
		"capture_seconds=3\ntest_user=nobody\nstart_delay=12\n",
		tu_bin(), fleet);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

START_TEST(test_playbook)
{
	char *dir = tu_scratch(), *mnt[HOSTS], *fleet = tu_join(dir, "fleet");
	char *book, *inv, *log = tu_join(dir, "ansible.log"), *tmp, *text;
	char src[PATH_MAX];
	pid_t load_pid[HOSTS];
	json_t *merged;
	int rc;

	tmp = tu_which("ansible-playbook");
	ck_assert_msg(tmp, "no ansible-playbook: Debian's ansible-core, which "
		      "scripts/install-deps.sh installs");
	free(tmp);
	tmp = NULL;
	ck_assert_ptr_nonnull(realpath(tu_datadir(), src));
	ck_assert(asprintf(&book, "%s/../../docs/examples/ansible/fleet.yml",
			   src) > 0);
	for (int i = 0; i < HOSTS; i++) {
		char name[8];

		snprintf(name, sizeof(name), "m%d", i + 1);
		mnt[i] = tu_join(dir, name);
		ck_assert_msg(tu_mount_image(mnt[i], "mkfs.ext4", "-F", 32),
			      "loop mount %s", mnt[i]);
	}
	inv = inventory(dir, mnt, fleet);
	tmp = tu_join(dir, "ansible-tmp");
	setenv("ANSIBLE_LOCAL_TEMP", tmp, 1);
	setenv("ANSIBLE_REMOTE_TEMP", tmp, 1);
	setenv("ANSIBLE_ASYNC_DIR", tmp, 1);
	/* Fewer forks than hosts: the replays must still start together. */
	setenv("ANSIBLE_FORKS", "2", 1);
	setenv("ANSIBLE_NOCOLOR", "1", 1);
	setenv("ANSIBLE_RETRY_FILES_ENABLED", "0", 1);
	setenv("ANSIBLE_HOST_KEY_CHECKING", "0", 1);
	setenv("LC_ALL", "C.UTF-8", 1);

	for (int i = 0; i < HOSTS; i++)
		load_pid[i] = workload(mnt[i]);
	rc = playbook(book, inv, "capture", log);
	for (int i = 0; i < HOSTS; i++) {
		kill(load_pid[i], SIGKILL);
		waitpid(load_pid[i], NULL, 0);
	}
	ck_assert_msg(rc == 0, "capture: exit %d, see %s:\n%s", rc, log,
		      tu_read(log, NULL));
	rc = playbook(book, inv, "generate,replay,gather", log);
	ck_assert_msg(rc == 0, "exit %d:\n%s", rc, tu_read(log, NULL));

	/* Every host replayed, at or after the common start and within
	 * SKEW_LOOSE_NS of it, tight SKEW_MAX_NS. */
	for (int i = 0; i < HOSTS; i++) {
		char *path;
		json_t *st;
		int64_t skew;

		ck_assert(asprintf(&path, "%s/stats/h%d.json", fleet, i + 1) > 0);
		st = load(path);
		ck_assert_int_gt(int_at(st, NULL, "performed_ioops"), 0);
		skew = int_at(st, "start_at", "skew_ns");
		printf("playbook: h%d: %lld ops, start skew %lld ns\n", i + 1,
		       (long long)int_at(st, NULL, "performed_ioops"),
		       (long long)skew);
		ck_assert_msg(skew >= 0 && skew < (TU_TIGHT ? SKEW_MAX_NS :
							   SKEW_LOOSE_NS),
			      "h%d: skew %lld ns", i + 1, (long long)skew);
		json_decref(st);
		free(path);
	}
	free(fleet);
	ck_assert(asprintf(&fleet, "%s/fleet/fleet.json", dir) > 0);
	merged = load(fleet);
	ck_assert_uint_eq(jv_count(json_object_get(merged, "hosts")), HOSTS);
	ck_assert_int_lt(int_at(merged, "start_at", "spread_ns"),
			 TU_TIGHT ? SKEW_MAX_NS : SKEW_LOOSE_NS);
	json_decref(merged);
	text = tu_read(log, NULL);
	ck_assert_msg(text && strstr(text, "Compare the hosts"),
		      "no comparison in the log");
	free(text);

	for (int i = 0; i < HOSTS; i++) {
		if (umount2(mnt[i], 0) < 0)
			umount2(mnt[i], MNT_DETACH);
		free(mnt[i]);
	}
	free(tmp);
	free(inv);
	free(book);
	free(log);
	free(fleet);
	free(dir);
}
END_TEST

Suite *playbook_suite(void)
{
	Suite *s = suite_create("playbook");
	TCase *tc = tcase_create("ansible");
	TCase *tt = tu_timing_case("playbook timing");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_unchecked_fixture(tt, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tt, 300);
	tu_add_timed_test(tc, tt, test_playbook);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tt);
	return s;
}
