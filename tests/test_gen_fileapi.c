/*
 * Tests of what the generator makes of the file API beyond reads and
 * writes, from hand-built capture logs: extended attributes (operations
 * with name=, the INIT a entries of attributes from before the capture),
 * the order of file locks, the clone and dedupe ioctls, splice and tee,
 * mknod.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ioriot/generate.h"
#include "ioriot/log.h"
#include "testutil.h"

#define ERRLEN 8192
#define HEADER "#|capture_version=4|\n#|mount=/|fstype=ext4|\n"

/* Generate @capture (a log's text) in a fresh directory: the replay
 * file's text (malloc'd) and the summary in @sum. */
static char *generate(const char *capture, struct gen_summary *sum)
{
	char *dir = tu_scratch(), err[ERRLEN] = "";
	char *in = tu_write_str(dir, "t.capture", capture);
	char *out = tu_join(dir, "t.replay"), *text;
	struct gen_options opt = { .capture_path = in, .replay_path = out,
				   .name = "test", .user = "tester" };

	log_set_level(LOG_ERROR);
	ck_assert_msg(generate_run(&opt, sum, err, sizeof(err)) == 0, "%s", err);
	text = tu_read(out, NULL);
	ck_assert_ptr_nonnull(text);
	free(in);
	free(out);
	free(dir);
	return text;
}

/* Each of @want is a line, or the start of one, of @text. */
static void has_lines(const char *text, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (const char *l = text; l && *l && !found;
		     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			found = !strncmp(l, want[i], strlen(want[i]));
		ck_assert_msg(found, "no line %s in\n%s", want[i], text);
	}
}

static void lacks(const char *text, const char *what)
{
	ck_assert_msg(!strstr(text, what), "%s in\n%s", what, text);
}

/*
 * Attributes read before anything wrote them are INIT a entries after
 * their file's or directory's: with the size a read showed, one replaced
 * with the new size, one removed with size 0; not one set first, one
 * found missing, one of a file the capture made, nor (counted) one of
 * another namespace than user.
 */
START_TEST(test_xattr)
{
	struct gen_summary s;
	char *text = generate(HEADER
		"t=1;:,i=5:5;:,o=getxattr;:,p=/d/f;:,P=user.a;:,c=0;:,r=5;:,\n"
		"t=2;:,i=5:5;:,o=getxattr;:,p=/d/f;:,P=user.a;:,c=64;:,r=5;:,\n"
		"t=3;:,i=5:5;:,o=setxattr;:,p=/d/f;:,P=user.b;:,c=3;:,G=0;:,r=0;:,\n"
		"t=4;:,i=5:5;:,o=getxattr;:,p=/d/f;:,P=user.b;:,c=64;:,r=3;:,\n"
		"t=5;:,i=5:5;:,o=removexattr;:,p=/d/f;:,P=user.c;:,r=0;:,\n"
		"t=6;:,i=5:5;:,o=lsetxattr;:,p=/d/f;:,P=user.d;:,c=7;:,G=2;:,r=0;:,\n"
		"t=7;:,i=5:5;:,o=getxattr;:,p=/d/f;:,P=trusted.t;:,c=9;:,r=4;:,\n"
		"t=8;:,i=5:5;:,o=getxattr;:,p=/d/f;:,P=user.none;:,c=9;:,r=-61;:,\n"
		"t=9;:,i=5:5;:,o=listxattr;:,p=/d/f;:,c=0;:,r=30;:,\n"
		"t=10;:,i=5:5;:,o=getxattr;:,p=/d;:,P=user.a%20dir;:,c=8;:,r=2;:,\n"
		"t=11;:,i=5:5;:,o=openat;:,d=-100;:,p=/d/new;:,f=193;:,m=420;:,r=3;:,\n"
		"t=12;:,i=5:5;:,o=fsetxattr;:,d=3;:,P=user.n;:,c=1;:,G=0;:,r=0;:,\n"
		"t=13;:,i=5:5;:,o=fgetxattr;:,d=3;:,P=user.old;:,c=0;:,r=-61;:,\n"
		"t=14;:,i=5:5;:,o=getxattrat;:,d=3;:,f=4096;:,P=user.x;:,c=0;:,"
		"r=-61;:,\n"
		"t=15;:,i=5:5;:,o=fsetxattr;:,d=3;:,P=system.posix_acl_access;:,"
		"m=416;:,c=28;:,G=0;:,r=0;:,\n"
		"t=16;:,i=5:5;:,o=fgetxattr;:,d=3;:,c=0;:,r=0;:,\n"
		"t=17;:,i=5:5;:,o=close;:,d=3;:,r=0;:,\n", &s);
	static const char *const want[] = {
		"d /.ioriot/test/d\n"
		"a 2 /.ioriot/test/d name=user.a%20dir\n"
		"f 0 /.ioriot/test/d/f\n"
		"a 5 /.ioriot/test/d/f name=user.a\n"
		"a 0 /.ioriot/test/d/f name=user.c\n"
		"a 7 /.ioriot/test/d/f name=user.d\n"
		"x /.ioriot/test/d/new\n",
		"1 5:5 0 0 - getxattr 5 path=/.ioriot/test/d/f count=0 "
		"name=user.a\n",
		"3 5:5 2 0 - setxattr 0 path=/.ioriot/test/d/f count=3 arg=0 "
		"name=user.b\n",
		"5 5:5 4 0 - removexattr 0 path=/.ioriot/test/d/f name=user.c\n",
		"9 5:5 8 0 - listxattr 30 path=/.ioriot/test/d/f count=0\n",
		"12 5:5 11 0 - fsetxattr 0 fd=1 count=1 arg=0 name=user.n\n",
		"14 5:5 13 0 - getxattrat -61 fd=1 flags=0x1000 count=0 "
		"name=user.x\n",
		"15 5:5 14 0 - fsetxattr 0 fd=1 mode=0640 count=28 arg=0 "
		"name=system.posix_acl_access\n",
	};

	has_lines(text, want, sizeof(want) / sizeof(want[0]));
	/* INIT lines only: "PATH name=" */
	lacks(text, "/d/f name=user.b\n");
	lacks(text, "/d/f name=user.none\n");
	lacks(text, "/d/new name=user.n\n");
	lacks(text, "/d/new name=user.old\n");
	lacks(text, "/d/f name=trusted.t\n");
	ck_assert_uint_eq(s.init_xattrs, 4);
	ck_assert_uint_eq(s.init_xattrs_left, 1);
	/* fgetxattr without a name */
	ck_assert_uint_eq(s.filtered[GF_INCOMPLETE], 1);
	free(text);
}
END_TEST

/* The dependencies (DEPS column) of the first operation line of timeline
 * @tl whose operation starts with @op, into @deps (64 bytes). */
static void deps_of(const char *text, const char *tl, const char *op,
		    char *deps)
{
	char ltl[32], lop[64], ldeps[64];

	for (const char *l = text; l && *l;
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "%*u %31s %*u %*u %63s %63s", ltl, ldeps, lop) == 3 &&
		    !strcmp(ltl, tl) && !strncmp(lop, op, strlen(op))) {
			snprintf(deps, 64, "%s", ldeps);
			return;
		}
	}
	ck_abort_msg("no %s line of %s in\n%s", op, tl, text);
}

/*
 * Locks: A takes a file (flock, then an fcntl write lock), B waits for the
 * flock from t=5 to 11, C waits from t=6 to 26 (it got the lock after B);
 * A unlocks at t=8.  B's and C's requests wait for A's last lock call,
 * which had returned; A's unlock waits for neither (both were still
 * blocked), nor does C's wait for B's; B's unlock follows its own lock;
 * A's next lock call waits for B's unlock, which had returned; and no
 * operation waits for a blocking one.  The ranges of the fcntl locks are
 * written as captured.
 */
START_TEST(test_locks)
{
	struct gen_summary s;
	char deps[64];
	char *text = generate(HEADER
		"t=1;:,i=1:1;:,o=openat;:,d=-100;:,p=/d/lk;:,f=2;:,r=3;:,\n"
		"t=2;:,D=1;:,i=1:1;:,o=flock;:,d=3;:,f=2;:,r=0;:,\n"
		"t=3;:,D=1;:,i=1:1;:,o=fcntl;:,d=3;:,F=7;:,G=1;:,W=0;:,O=10;:,"
		"c=20;:,r=0;:,\n"
		"t=4;:,i=2:2;:,o=openat;:,d=-100;:,p=/d/lk;:,f=2;:,r=3;:,\n"
		"t=4;:,i=3:3;:,o=openat;:,d=-100;:,p=/d/lk;:,f=2;:,r=4;:,\n"
		"t=5;:,D=6;:,i=2:2;:,o=flock;:,d=3;:,f=2;:,r=0;:,\n"
		"t=6;:,D=20;:,i=3:3;:,o=flock;:,d=4;:,f=2;:,r=0;:,\n"
		"t=8;:,D=1;:,i=1:1;:,o=flock;:,d=3;:,f=8;:,r=0;:,\n"
		"t=12;:,D=1;:,i=2:2;:,o=flock;:,d=3;:,f=8;:,r=0;:,\n"
		"t=13;:,D=1;:,i=1:1;:,o=fcntl;:,d=3;:,F=38;:,G=2;:,W=1;:,O=-5;:,"
		"c=0;:,r=0;:,\n"
		"t=14;:,D=1;:,i=1:1;:,o=fcntl;:,d=3;:,F=6;:,G=140737488;:,r=0;:,\n"
		"t=30;:,i=3:3;:,o=close;:,d=4;:,r=0;:,\n", &s);
	static const char *const want[] = {
		"2 1:1 1 1 - flock 0 fd=1 flags=0x2\n",
		"3 1:1 2 1 - fcntl 0 fd=1 off=10 whence=0 count=20 cmd=7 arg=1\n",
		"10 1:1 12 1 9 fcntl 0 fd=1 off=-5 whence=1 count=0 cmd=38 arg=2\n",
		/* a lock command of an older capture: no struct, no address */
		"11 1:1 13 1 - fcntl 0 fd=1 cmd=6\n",
	};

	has_lines(text, want, sizeof(want) / sizeof(want[0]));
	deps_of(text, "2:2", "flock", deps);
	ck_assert_str_eq(deps, "3");
	deps_of(text, "3:3", "flock", deps);
	ck_assert_str_eq(deps, "3");
	/* the unlocks: A's was before B and C returned, B's after its own */
	ck_assert_msg(strstr(text, "\n8 1:1 7 1 - flock 0 fd=1 flags=0x8\n"),
		      "%s", text);
	ck_assert_msg(strstr(text, "\n9 2:2 11 1 - flock 0 fd=2 flags=0x8\n"),
		      "%s", text);
	deps_of(text, "3:3", "close", deps);
	ck_assert_str_eq(deps, "-");
	free(text);
}
END_TEST

/*
 * Clones: FICLONE's source needs its whole size (the record's s) in INIT,
 * FICLONERANGE its range; a FIDEDUPERANGE is written as a dedupe line per
 * destination, the ioctl, and a dedupe_done per destination; one whose
 * records are missing is not written; other commands are counted.
 */
START_TEST(test_clone)
{
	struct gen_summary s;
	char *text = generate(HEADER
		"t=1;:,i=5:5;:,o=openat;:,d=-100;:,p=/d/src;:,f=0;:,r=3;:,\n"
		"t=2;:,i=5:5;:,o=openat;:,d=-100;:,p=/d/dst;:,f=193;:,m=420;:,r=4;:,\n"
		"t=3;:,i=5:5;:,o=ioctl;:,d=4;:,e=3;:,F=1074041865;:,s=10000;:,r=0;:,\n"
		"t=4;:,i=5:5;:,o=openat;:,d=-100;:,p=/d/big;:,f=2;:,r=5;:,\n"
		"t=5;:,i=5:5;:,o=ioctl;:,d=4;:,e=5;:,O=65536;:,c=4096;:,Q=20000;:,"
		"F=1075876877;:,s=100000;:,r=0;:,\n"
		"t=6;:,D=0;:,i=5:5;:,o=dedupe;:,d=4;:,Q=0;:,c=4096;:,r=0;:,\n"
		"t=6;:,D=0;:,i=5:5;:,o=dedupe;:,d=5;:,Q=8192;:,c=0;:,r=1;:,\n"
		"t=6;:,i=5:5;:,o=ioctl;:,d=3;:,O=0;:,c=4096;:,F=3222836278;:,G=2;:,"
		"r=0;:,\n"
		"t=7;:,D=0;:,i=5:5;:,o=dedupe;:,d=4;:,Q=0;:,c=4096;:,r=0;:,\n"
		"t=7;:,i=5:5;:,o=ioctl;:,d=3;:,O=0;:,c=4096;:,F=3222836278;:,G=2;:,"
		"r=0;:,\n"
		"t=8;:,i=5:5;:,o=ioctl;:,d=3;:,F=21531;:,r=0;:,\n", &s);
	static const char *const want[] = {
		"f 10000 /.ioriot/test/d/src\n",
		"x /.ioriot/test/d/dst\n",
		"f 100000 /.ioriot/test/d/big\n",	/* the record's s */
		"3 5:5 2 0 - ioctl 0 fd=2 fd2=1 cmd=1074041865\n",
		"5 5:5 4 0 - ioctl 0 fd=2 fd2=3 off=65536 off2=20000 count=4096 "
		"cmd=1075876877\n",
		"6 5:5 5 0 - dedupe 0 fd=2 off2=0\n",
		"7 5:5 5 0 - dedupe 0 fd=3 off2=8192\n",
		"8 5:5 5 0 - ioctl 0 fd=1 off=0 count=4096 cmd=3222836278 arg=2\n",
		"9 5:5 5 0 - dedupe_done 0 fd=2 count=4096\n",
		"10 5:5 5 0 - dedupe_done 1 fd=3 count=0\n",
	};

	has_lines(text, want, sizeof(want) / sizeof(want[0]));
	ck_assert_uint_eq(s.ops_per_sys[SYS_IOCTL], 3);
	ck_assert_uint_eq(s.ops_per_sys[SYS_DEDUPE], 2);
	ck_assert_uint_eq(s.ops_per_sys[SYS_DEDUPE_DONE], 2);
	ck_assert_uint_eq(s.filtered[GF_INCOMPLETE], 1);
	ck_assert_uint_eq(s.filtered[GF_IOCTL], 1);
	free(text);
}
END_TEST

/*
 * splice replays its file side (the pipe's fd is none the capture
 * opened), and its reads and writes count for INIT; tee, pipe to pipe,
 * and a splice between two unknown fds are not replayed.  mknod of a FIFO
 * makes opens of it O_NONBLOCK; of a device it is written (the replay
 * refuses it).
 */
START_TEST(test_splice_mknod)
{
	struct gen_summary s;
	char *text = generate(HEADER
		"t=1;:,i=5:5;:,o=openat;:,d=-100;:,p=/d/in;:,f=0;:,r=3;:,\n"
		"t=2;:,i=5:5;:,o=splice;:,d=3;:,e=8;:,O=100;:,c=500;:,f=0;:,r=500;:,\n"
		"t=3;:,i=5:5;:,o=splice;:,d=3;:,e=8;:,c=50;:,f=0;:,r=50;:,\n"
		"t=4;:,i=5:5;:,o=tee;:,d=7;:,e=10;:,c=50;:,f=0;:,r=50;:,\n"
		"t=5;:,i=5:5;:,o=splice;:,d=7;:,e=3;:,Q=4096;:,c=50;:,f=1;:,r=50;:,\n"
		"t=6;:,i=5:5;:,o=splice;:,d=7;:,e=10;:,c=50;:,f=0;:,r=50;:,\n"
		"t=7;:,i=5:5;:,o=mknod;:,p=/d/fifo;:,m=4516;:,r=0;:,\n"
		"t=8;:,i=5:5;:,o=openat;:,d=-100;:,p=/d/fifo;:,f=0;:,r=4;:,\n"
		"t=9;:,i=5:5;:,o=mknodat;:,d=-100;:,p=/d/dev;:,m=8576;:,r=0;:,\n"
		"t=10;:,i=5:5;:,o=mknodat;:,d=-100;:,p=/d/reg;:,m=33152;:,r=-17;:,\n",
		&s);
	static const char *const want[] = {
		"f 600 /.ioriot/test/d/in\n",
		"x /.ioriot/test/d/fifo\n",
		"f 0 /.ioriot/test/d/reg\n",
		"2 5:5 1 0 - splice 500 fd=1 flags=0x0 off=100 count=500\n",
		"3 5:5 2 0 - splice 50 fd=1 flags=0x0 count=50\n",
		"4 5:5 4 0 - splice 50 fd2=1 flags=0x1 off2=4096 count=50\n",
		"5 5:5 6 0 - mknod 0 path=/.ioriot/test/d/fifo mode=010644\n",
		"6 5:5 7 0 - openat 4 vfd=2 path=/.ioriot/test/d/fifo flags=0x800\n",
		"7 5:5 8 0 - mknodat 0 path=/.ioriot/test/d/dev mode=020600\n",
		"8 5:5 9 0 - mknodat -17 path=/.ioriot/test/d/reg mode=0100600\n",
	};

	has_lines(text, want, sizeof(want) / sizeof(want[0]));
	lacks(text, " tee ");
	ck_assert_uint_eq(s.filtered[GF_NOT_FILE], 1);
	ck_assert_uint_eq(s.filtered[GF_UNKNOWN_FD], 1);
	free(text);
}
END_TEST

Suite *gen_fileapi_suite(void)
{
	Suite *s = suite_create("gen_fileapi");
	TCase *tc = tcase_create("fileapi");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_add_test(tc, test_xattr);
	tcase_add_test(tc, test_locks);
	tcase_add_test(tc, test_clone);
	tcase_add_test(tc, test_splice_mknod);
	suite_add_tcase(s, tc);
	return s;
}
