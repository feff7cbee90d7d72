/*
 * Security regression tests: the attacks of docs/architecture.md's threat
 * model, each run against the ioriot binary as root, with a local user
 * (nobody) preparing the ground or racing it.  A victim tree outside every
 * sandbox (root's files: a secret, a setuid binary, a private directory, a
 * symlink, ...: secutil.h) must keep its contents, owners, modes and
 * extended attributes whatever happens.  The sandboxes live on a
 * loop-mounted ext4 image below the test's directory.  The attacks on the
 * newer operations are in test_security_ops.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ioriot/outfile.h"
#include "secutil.h"

/* The operations of the original attack: empty the secret, make the
 * script set-user-ID, remove the link, rename the private directory. */
#define HARMFUL_OPS							\
	"1 1:1 0 10 - truncate 0 path=@/secret count=0\n"		\
	"2 1:1 10 10 - chmod 0 path=@/suid mode=04777\n"		\
	"3 1:1 20 10 - unlink 0 path=@/link\n"				\
	"4 1:1 30 10 - rename 0 path=@/private path2=@/moved\n"

static int plant_link(void *arg)
{
	char **p = arg;

	return symlink(p[0], p[1]) ? 1 : 0;
}

/*
 * Attack 1: a user links a directory of theirs named .ioriot to a root
 * directory; a replay file with user=root names a sandbox below it.
 * Refused as root without --allow-root, and with it refused as no
 * mountpoint; a real mountpoint reached through a symlink is refused too.
 */
START_TEST(test_symlinked_ioriot)
{
	SEC_NEED_MOUNT();
	char *victim = sec_make_victim("ioriot"), *before = sec_snapshot(victim);
	char *u = sec_at("u"), *link = sec_at("u/.ioriot");
	char *sb = sec_at("u/.ioriot/x");
	char *replay = sec_at("ioriot.replay"), *err, *after;
	char *plant[2] = { sec_root, link };

	/* .ioriot leads to the victim's parent; the sandbox is the victim. */
	sec_make_dir(u, SEC_NOBODY, 0755);
	free(sb);
	ck_assert(asprintf(&sb, "%s/.ioriot/victim-ioriot", u) > 0);
	ck_assert_int_eq(sec_as_nobody(plant_link, plant), 0);
	sec_write_replay(replay, "victim-ioriot", "root", sb, "", HARMFUL_OPS,
			 4);

	const char *plain[] = { "-r", replay, "-D", NULL };
	ck_assert_int_eq(sec_ioriot(plain, &err), 1);
	ck_assert_msg(strstr(err, "--allow-root"), "%s", err);
	free(err);
	const char *forced[] = { "-r", replay, "-D", "--allow-root", NULL };
	ck_assert_int_eq(sec_ioriot(forced, &err), 1);
	ck_assert_msg(strstr(err, "not a mountpoint"), "%s", err);
	free(err);
	const char *init[] = { "-R", replay, "-D", "--allow-root", NULL };
	ck_assert_int_eq(sec_ioriot(init, &err), 1);
	free(err);

	/* A real mountpoint, reached through the user's symlink. */
	char *via = sec_at("u/via"), *sb2;
	char *plant2[2] = { sec_mnt, via };
	ck_assert_int_eq(sec_as_nobody(plant_link, plant2), 0);
	ck_assert(asprintf(&sb2, "%s/.ioriot/t", via) > 0);
	sec_write_replay(replay, "t", "nobody", sb2, "d @/d\n", HARMFUL_OPS, 4);
	const char *via_init[] = { "-i", replay, NULL };
	ck_assert_int_eq(sec_ioriot(via_init, &err), 1);
	ck_assert_msg(strstr(err, "symlink"), "%s", err);
	free(err);

	after = sec_snapshot(victim);
	ck_assert_str_eq(after, before);
	free(after);
	free(sb2);
	free(via);
	free(before);
	free(victim);
	free(u);
	free(link);
	free(sb);
	free(replay);
}
END_TEST

static int swap_top(void *arg)
{
	char **p = arg;	/* .ioriot, its new name, the link target */

	return rename(p[0], p[1]) || symlink(p[2], p[0]) ? 1 : 0;
}

/*
 * Attack 4: the replay (as nobody) reaches its own sandbox only.  Below a
 * root directory of mode 0700 it still replays (root hands the sandbox to
 * the replay's jail as a bind mount, nothing else of the tree); a sandbox
 * whose .ioriot the user swapped for a symlink between init and replay (on
 * a mount whose root directory the user owns) is refused.
 */
START_TEST(test_unreachable_sandbox)
{
	SEC_NEED_MOUNT();
	char *victim = sec_make_victim("reach"), *before = sec_snapshot(victim);
	char *sb, *replay = sec_at("reach.replay"), *err, *after, *moved, *top;

	ck_assert(asprintf(&sb, "%s/.ioriot/reach", sec_mnt) > 0);
	sec_write_replay(replay, "reach", "nobody", sb, "f 5 @/f\n",
		     "1 1:1 0 10 - stat 0 path=@/f\n", 1);
	const char *init[] = { "-i", replay, NULL };
	ck_assert_msg(sec_ioriot(init, &err) == 0, "%s", err);
	free(err);

	/* root/ closed: nobody cannot reach the mount, but its sandbox is
	 * handed over. */
	ck_assert_int_eq(chmod(sec_root, 0700), 0);
	const char *rep[] = { "-r", replay, "-D", NULL };
	int rc = sec_ioriot(rep, &err);
	ck_assert_int_eq(chmod(sec_root, 0755), 0);
	ck_assert_msg(rc == 0, "%s", err);
	free(err);

	/* The mount root is the user's: .ioriot swapped for a link to the
	 * directory that holds the victim, so that the sandbox named after
	 * it is the victim. */
	ck_assert_int_eq(chown(sec_mnt, SEC_NOBODY, SEC_NOBODY), 0);
	top = tu_join(sec_mnt, ".ioriot");
	moved = tu_join(sec_mnt, "old");
	char *swap[3] = { top, moved, sec_root };
	ck_assert_int_eq(sec_as_nobody(swap_top, swap), 0);
	free(sb);
	ck_assert(asprintf(&sb, "%s/.ioriot/victim-reach", sec_mnt) > 0);
	sec_write_replay(replay, "victim-reach", "nobody", sb, "", HARMFUL_OPS,
			 4);
	rc = sec_ioriot(rep, &err);
	ck_assert_int_eq(rc, 1);
	ck_assert_msg(strstr(err, "symlink"), "%s", err);
	free(err);
	/* Init refuses it too, and does not write through it. */
	ck_assert_int_eq(sec_ioriot(init, &err), 1);
	free(err);
	ck_assert_int_eq(unlink(top), 0);
	ck_assert_int_eq(rename(moved, top), 0);
	ck_assert_int_eq(chown(sec_mnt, 0, 0), 0);

	after = sec_snapshot(victim);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	free(victim);
	free(top);
	free(moved);
	free(sb);
	free(replay);
}
END_TEST

/* Attack 6: a sandbox on a directory that is no mountpoint is refused,
 * and nothing is created there. */
START_TEST(test_not_a_mountpoint)
{
	SEC_NEED_MOUNT();
	char *plain = sec_at("plain"), *sb, *replay = sec_at("plain.replay"), *err;
	char *before, *after;

	sec_make_dir(plain, 0, 0755);
	before = sec_snapshot(plain);
	ck_assert(asprintf(&sb, "%s/.ioriot/t", plain) > 0);
	sec_write_replay(replay, "t", "nobody", sb, "d @/d\nf 4096 @/d/f\n", "",
			 0);
	const char *init[] = { "-i", replay, NULL };
	ck_assert_int_eq(sec_ioriot(init, &err), 1);
	ck_assert_msg(strstr(err, "not a mountpoint"), "%s", err);
	free(err);
	after = sec_snapshot(plain);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	free(sb);
	free(plain);
	free(replay);
}
END_TEST

/*
 * Attack 2, 5 and 7: output files.  A symlink planted where -S, --csv or
 * the generated replay file go, a FIFO, a file of the user's, and the
 * replay file itself are all refused; nothing outside changes.
 */
static int plant_fifo(void *arg)
{
	return mkfifo(arg, 0666) ? 1 : 0;
}

static int plant_file(void *arg)
{
	int fd = open(arg, O_WRONLY | O_CREAT | O_EXCL, 0644);

	return fd < 0 || close(fd) ? 1 : 0;
}

START_TEST(test_output_files)
{
	SEC_NEED_MOUNT();
	char *victim = sec_make_victim("out"), *before = sec_snapshot(victim);
	char *pub = sec_at("pub"), *secret, *sb, *replay = sec_at("out.replay");
	char *json = sec_at("pub/run1.json"), *csv = sec_at("pub/run1.csv");
	char *fifo = sec_at("pub/fifo.json"), *mine = sec_at("pub/mine.json");
	char *gen = sec_at("pub/gen.replay"), *capture, *err, *after, *text;
	char *plant_json[2], *plant_csv[2], *plant_gen[2];

	secret = tu_join(victim, "secret");
	sec_make_dir(pub, SEC_NOBODY, 01777);
	plant_json[0] = plant_csv[0] = plant_gen[0] = secret;
	plant_json[1] = json;
	plant_csv[1] = csv;
	plant_gen[1] = gen;
	ck_assert_int_eq(sec_as_nobody(plant_link, plant_json), 0);
	ck_assert_int_eq(sec_as_nobody(plant_link, plant_csv), 0);
	ck_assert_int_eq(sec_as_nobody(plant_link, plant_gen), 0);
	ck_assert_int_eq(sec_as_nobody(plant_fifo, fifo), 0);
	ck_assert_int_eq(sec_as_nobody(plant_file, mine), 0);
	ck_assert(asprintf(&sb, "%s/.ioriot/out", sec_mnt) > 0);
	sec_write_replay(replay, "out", "nobody", sb, "d @/d\n",
		     "1 1:1 0 10 - stat 0 path=@/d\n", 1);

	const char *cases[][8] = {
		{ "-R", replay, "-S", json, NULL },
		{ "-R", replay, "--csv", csv, NULL },
		{ "-R", replay, "-S", fifo, NULL },
		{ "-R", replay, "-S", mine, NULL },
		{ "-R", replay, "-S", replay, NULL },
		{ "-R", replay, "--csv", replay, NULL },
	};
	const char *why[] = { "symlink", "symlink", "not a regular file",
			      "another user", "input", "input" };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_msg(sec_ioriot(cases[i], &err) == 1, "case %zu: %s", i,
			      err);
		ck_assert_msg(strstr(err, why[i]), "case %zu: %s", i, err);
		free(err);
	}
	text = tu_read(replay, NULL);
	ck_assert_ptr_nonnull(strstr(text, "#END|ops=1|"));
	free(text);

	/* Generate: not over a link, and never as root without -u. */
	capture = tu_write_str(sec_root, "out.capture", "#|capture_version=4|\n"
			       "#|mount=/|fstype=ext4|\n"
			       "t=0;:,D=5;:,i=7:7;:,o=stat;:,p=/x;:,r=0;:,\n");
	const char *g1[] = { "-c", capture, "-r", gen, "-n", "t", "-u",
			     "nobody", NULL };
	ck_assert_int_eq(sec_ioriot(g1, &err), 1);
	ck_assert_msg(strstr(err, "symlink"), "%s", err);
	free(err);
	const char *g2[] = { "-c", capture, "-r", replay, "-n", "t", NULL };
	unsetenv("SUDO_USER");
	ck_assert_int_eq(sec_ioriot(g2, &err), 2);
	ck_assert_msg(strstr(err, "-u USER"), "%s", err);
	free(err);

	after = sec_snapshot(victim);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	free(victim);
	free(secret);
	free(capture);
	free(pub);
	free(sb);
	free(replay);
	free(json);
	free(csv);
	free(fifo);
	free(mine);
	free(gen);
}
END_TEST

static int swap_dir(void *arg)
{
	char **p = arg;	/* the directory, its new name, the link target */

	return rename(p[0], p[1]) || symlink(p[2], p[0]) ? 1 : 0;
}

/*
 * An output ioriot made is removed (a failed replay's new -S file) from
 * the directory it was made in, never by its path: the user who owns that
 * directory swaps it for a link to a root directory holding a file of the
 * same name, which must survive.
 */
START_TEST(test_output_removed_by_fd)
{
	SEC_NEED_MOUNT();
	char *victim = sec_make_victim("rm"), *before = sec_snapshot(victim);
	char *home = sec_at("home"), *pub = sec_at("home/pub");
	char *moved = sec_at("home/old");
	char *path, *err_text, err[PATH_MAX + 256];
	int dirfd = -1, fd;

	sec_make_dir(home, SEC_NOBODY, 0755);	/* the user's: pub can be swapped */
	sec_make_dir(pub, SEC_NOBODY, 0755);
	path = tu_join(pub, "secret");		/* the victim's name */
	fd = outfile_open(path, 0644, 0, NULL, &dirfd, err, sizeof(err));
	ck_assert_msg(fd >= 0, "%s", err);
	close(fd);
	char *swap[3] = { pub, moved, victim };
	ck_assert_int_eq(sec_as_nobody(swap_dir, swap), 0);
	ck_assert_int_eq(unlinkat(dirfd, outfile_base(path), 0), 0);
	close(dirfd);
	err_text = tu_join(moved, "secret");
	ck_assert_int_ne(access(err_text, F_OK), 0);	/* ours is gone */
	char *after = sec_snapshot(victim);
	ck_assert_str_eq(after, before);
	free(after);
	free(err_text);
	free(path);
	free(home);
	free(pub);
	free(moved);
	free(before);
	free(victim);
}
END_TEST

/* The swapper of attack 3: replace every symlink of the sandbox by a hard
 * link to the victim's file, over and over, until killed. */
struct swapper {
	const char *dir;
	const char *victim_file;
};

static int swap_links(void *arg)
{
	const struct swapper *s = arg;
	char path[PATH_MAX];

	for (;;) {
		for (int i = 0; i < 2000; i++) {
			struct stat st;

			snprintf(path, sizeof(path), "%s/l%d", s->dir, i);
			if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) &&
			    unlink(path) == 0)
				link(s->victim_file, path);
		}
	}
	return 0;
}

/*
 * Attack 3: init creates symlinks in a directory the test user owns while
 * the user swaps each new link for a hard link to a root file.  Init must
 * never give that file to the user (it used to chown the link by name).
 * Hard links to other users' files need protected_hardlinks off, as on
 * hosts that keep the old default.
 */
START_TEST(test_init_chown_race)
{
	SEC_NEED_MOUNT();
	char *victim = sec_make_victim("race"), *before, *after, *sb, *init_text;
	char *replay = sec_at("race.replay"), *err, old[64], *dir;
	char *victim_file = tu_join(victim, "secret");
	FILE *f;
	size_t len;

	/* The victim file must be on the same file system as the links. */
	free(victim_file);
	victim_file = tu_join(sec_mnt, "root-secret");
	free(tu_write_str(sec_mnt, "root-secret", "secret on the mount\n"));
	ck_assert_int_eq(chmod(victim_file, 0600), 0);
	before = sec_snapshot(victim);
	ck_assert(asprintf(&sb, "%s/.ioriot/race", sec_mnt) > 0);
	f = open_memstream(&init_text, &len);
	fprintf(f, "d @/d\n");
	for (int i = 0; i < 2000; i++)
		fprintf(f, "l @/d/l%d target=@/d/target\n", i);
	fclose(f);
	sec_write_replay(replay, "race", "nobody", sb, init_text, "", 0);
	ck_assert(asprintf(&dir, "%s/d", sb) > 0);

	sec_sysctl_set("/proc/sys/fs/protected_hardlinks", "0", old);
	struct swapper s = { .dir = dir, .victim_file = victim_file };
	pid_t pid = sec_spawn_nobody(swap_links, &s);
	int rc = 0;
	for (int round = 0; round < 4; round++) {
		const char *init[] = { "-q", "-i", replay, NULL };
		rc |= sec_ioriot(init, &err) > 1;	/* a lost race may fail init */
		free(err);
	}
	sec_stop(pid);
	sec_sysctl_set("/proc/sys/fs/protected_hardlinks", old, NULL);

	struct stat st;
	ck_assert_int_eq(stat(victim_file, &st), 0);
	ck_assert_msg(st.st_uid == 0 && st.st_gid == 0 &&
		      (st.st_mode & 07777) == 0600,
		      "the root file became %u:%u %o", (unsigned)st.st_uid,
		      (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777));
	ck_assert_int_eq(rc, 0);
	after = sec_snapshot(victim);
	ck_assert_str_eq(after, before);
	free(after);
	free(before);
	free(victim);
	free(victim_file);
	free(init_text);
	free(sb);
	free(dir);
	free(replay);
}
END_TEST

/*
 * Attack 8: a replay stopped by SIGINT exits 130 and its statistics say
 * it was interrupted.
 */
START_TEST(test_interrupted_replay)
{
	SEC_NEED_MOUNT();
	char *sb, *replay = sec_at("stop.replay"), *json = sec_at("stop.json");
	char *ops = NULL, *text;
	size_t len;
	FILE *f = open_memstream(&ops, &len);
	int status;

	for (unsigned i = 0; i < 100; i++)	/* 10 s at -s 1 */
		fprintf(f, "%u 1:1 %u 10 - stat 0 path=@/f\n", i + 1,
			i * 100000000u);
	fclose(f);
	ck_assert(asprintf(&sb, "%s/.ioriot/stop", sec_mnt) > 0);
	sec_write_replay(replay, "stop", "nobody", sb, "f 1 @/f\n", ops, 100);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execl(tu_bin(), "ioriot", "-R", replay, "-D", "-s", "1", "-S",
		      json, NULL);
		_exit(127);
	}
	struct timespec ts = { .tv_sec = 1, .tv_nsec = 500000000 };
	nanosleep(&ts, NULL);
	kill(pid, SIGINT);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 130);
	text = tu_read(json, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(strstr(text, "\"interrupted\": true"), "%s", text);
	free(text);
	free(ops);
	free(sb);
	free(json);
	free(replay);
}
END_TEST

Suite *security_suite(void)
{
	Suite *s = suite_create("security");
	TCase *tc = tcase_create("attacks");

	tcase_add_unchecked_fixture(tc, sec_setup, sec_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_symlinked_ioriot);
	tcase_add_test(tc, test_unreachable_sandbox);
	tcase_add_test(tc, test_not_a_mountpoint);
	tcase_add_test(tc, test_output_files);
	tcase_add_test(tc, test_output_removed_by_fd);
	tcase_add_test(tc, test_init_chown_race);
	tcase_add_test(tc, test_interrupted_replay);
	suite_add_tcase(s, tc);
	return s;
}
