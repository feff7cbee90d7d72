/*
 * Tests of series.h: the class of every syscall, samples from cumulative
 * counters, the CSV file (golden), the Graphite lines against a listener of
 * our own and against a real carbon-cache on loopback, a server that is
 * down or does not answer, scripts/ioriot-plot on two runs, and the
 * Prometheus textfile (promfile.h) read by python3-prometheus-client.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "ioriot/clock.h"
#include "ioriot/promfile.h"
#include "ioriot/series.h"
#include "testutil.h"

#define NS 1000000000ULL
/* How long carbon-cache may take to store what it got: a safety net for
 * a daemon that never does, not a timing check (the case's timeout, 60 s,
 * leaves room for its start, up to 15 s, and a replay besides). */
#define CARBON_WAIT_NS (20 * NS)

/* Whether @prog is an executable in PATH. */
static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	bool found = false;

	copy = strdup(path ? path : "/usr/bin:/bin");
	ck_assert_ptr_nonnull(copy);
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *p = tu_join(dir, prog);

		found = !access(p, X_OK);
		free(p);
	}
	free(copy);
	return found;
}

/* A listening TCP socket on 127.0.0.1:@port (0: any free port), the port
 * in *@port; @backlog as for listen(). */
static int listen_on(unsigned short *port, int backlog)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(*port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	socklen_t len = sizeof(a);
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
				    sizeof(one)), 0);
	ck_assert_msg(!bind(fd, (struct sockaddr *)&a, sizeof(a)), "bind: %s",
		      strerror(errno));
	ck_assert_int_eq(listen(fd, backlog), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* A port nothing listens on right now. */
static unsigned short free_port(void)
{
	unsigned short port = 0;

	close(listen_on(&port, 1));
	return port;
}

/* Accept one connection on @lfd and read from it until @want bytes came or
 * 2 s passed; returns what came, NUL-terminated. */
static char *receive(int lfd, size_t want)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };
	char *buf = calloc(1, want + 1);
	size_t got = 0;
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + 2 * NS;
	int fd;

	ck_assert_ptr_nonnull(buf);
	ck_assert_msg(poll(&p, 1, 2000) == 1, "no connection came");
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	p.fd = fd;
	while (got < want && clock_ns(CLOCK_MONOTONIC) < end) {
		ssize_t n;

		if (poll(&p, 1, 100) != 1)
			continue;
		n = read(fd, buf + got, want - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	return buf;
}

/* The histogram bucket of @ns. */
#define B(ns) replay_hist_bucket(ns)

/* A sample of @ops reads of 1024 ns (1.040 us, their bucket's value),
 * ending at @t_s. */
static struct series_sample reads(double t_s, uint64_t ops)
{
	struct series_sample smp = {
		.t_ns = (uint64_t)(t_s * 1e9),
		.interval_ns = NS,
		.rd_bytes = ops * 4096,
	};

	smp.cls[SC_READ].ops = ops;
	smp.cls[SC_READ].lat[B(1024)] = ops;
	return smp;
}

/* Every syscall has a class, every class has a syscall, and a few that
 * matter are where they belong. */
START_TEST(test_classes)
{
	unsigned used[SC_COUNT] = { 0 };
	static const struct { enum sys_id id; enum series_class c; } want[] = {
		{ SYS_READ, SC_READ }, { SYS_PREADV2, SC_READ },
		{ SYS_READAHEAD, SC_READ },
		{ SYS_PWRITE64, SC_WRITE }, { SYS_FTRUNCATE, SC_WRITE },
		{ SYS_TRUNCATE, SC_WRITE }, { SYS_COPY_FILE_RANGE, SC_WRITE },
		{ SYS_OPENAT, SC_OPEN }, { SYS_CLOSE, SC_OPEN },
		{ SYS_DUP3, SC_OPEN }, { SYS_OPENFD, SC_OPEN },
		{ SYS_NEWFSTATAT, SC_META }, { SYS_FSTAT, SC_META },
		{ SYS_GETDENTS64, SC_META }, { SYS_READLINK, SC_META },
		{ SYS_FCHOWN, SC_META }, { SYS_UTIMENSAT, SC_META },
		{ SYS_RENAMEAT2, SC_NAMESPACE }, { SYS_UNLINK, SC_NAMESPACE },
		{ SYS_MKDIRAT, SC_NAMESPACE }, { SYS_SYMLINK, SC_NAMESPACE },
		{ SYS_FSYNC, SC_SYNC }, { SYS_SYNC, SC_SYNC },
		{ SYS_MSYNC, SC_SYNC }, { SYS_SYNC_FILE_RANGE, SC_SYNC },
		{ SYS_LSEEK, SC_OTHER }, { SYS_FCNTL, SC_OTHER },
		{ SYS_MMAP, SC_OTHER }, { SYS_FADVISE64, SC_OTHER },
	};

	for (int id = 0; id < SYS_COUNT; id++) {
		enum series_class c = series_class_of(id);

		ck_assert_msg(c < SC_COUNT, "%s has no class",
			      sys_info(id)->name);
		used[c]++;
	}
	for (int c = 0; c < SC_COUNT; c++) {
		ck_assert_msg(used[c], "class %s is empty",
			      series_class_name(c));
		ck_assert_str_ne(series_class_name(c), "?");
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(series_class_of(want[i].id) == want[i].c,
			      "%s is %s, not %s", sys_info(want[i].id)->name,
			      series_class_name(series_class_of(want[i].id)),
			      series_class_name(want[i].c));
	ck_assert_str_eq(series_class_name(SC_COUNT), "?");
}
END_TEST

/* A sample from two cumulative snapshots holds only their difference. */
START_TEST(test_sample_add)
{
	static struct replay_sys_stats prev[SYS_COUNT], now[SYS_COUNT];
	struct series_sample smp = { 0 };

	prev[SYS_READ] = (struct replay_sys_stats){ .ops = 5, .bytes = 500 };
	prev[SYS_READ].lat[3] = 5;
	now[SYS_READ] = (struct replay_sys_stats){ .ops = 8, .bytes = 800 };
	now[SYS_READ].lat[3] = 6;
	now[SYS_READ].lat[9] = 2;
	now[SYS_PREAD64] = (struct replay_sys_stats){ .ops = 1, .bytes = 10 };
	now[SYS_PREAD64].lat[4] = 1;
	now[SYS_WRITE] = (struct replay_sys_stats){ .ops = 2, .bytes = 20 };
	now[SYS_WRITE].lat[5] = 2;
	now[SYS_COPY_FILE_RANGE] = (struct replay_sys_stats){ .ops = 1,
							       .bytes = 7 };
	now[SYS_COPY_FILE_RANGE].lat[5] = 1;
	now[SYS_FSYNC] = (struct replay_sys_stats){ .ops = 1 };
	now[SYS_FSYNC].lat[20] = 1;
	series_sample_add(&smp, now, prev);
	ck_assert_uint_eq(smp.cls[SC_READ].ops, 4);
	ck_assert_uint_eq(smp.cls[SC_READ].lat[3], 1);
	ck_assert_uint_eq(smp.cls[SC_READ].lat[4], 1);
	ck_assert_uint_eq(smp.cls[SC_READ].lat[9], 2);
	ck_assert_uint_eq(smp.cls[SC_WRITE].ops, 3);
	ck_assert_uint_eq(smp.cls[SC_WRITE].lat[5], 3);
	ck_assert_uint_eq(smp.cls[SC_SYNC].ops, 1);
	ck_assert_uint_eq(smp.cls[SC_SYNC].lat[20], 1);
	ck_assert_uint_eq(smp.cls[SC_OPEN].ops, 0);
	/* Copies count as read and as written. */
	ck_assert_uint_eq(smp.rd_bytes, 300 + 10 + 7);
	ck_assert_uint_eq(smp.wr_bytes, 20 + 7);
	/* Without @prev, everything so far; it adds to what is there. */
	series_sample_add(&smp, prev, NULL);
	ck_assert_uint_eq(smp.cls[SC_READ].ops, 9);
	ck_assert_uint_eq(smp.rd_bytes, 817);
}
END_TEST

static const char golden[] =
	"time_s,interval_s,ops_per_s,read_mb_per_s,write_mb_per_s,"
	"p50_us,p99_us,max_us,"
	"read_ops_per_s,read_p50_us,read_p99_us,read_max_us,"
	"write_ops_per_s,write_p50_us,write_p99_us,write_max_us,"
	"open_ops_per_s,open_p50_us,open_p99_us,open_max_us,"
	"meta_ops_per_s,meta_p50_us,meta_p99_us,meta_max_us,"
	"namespace_ops_per_s,namespace_p50_us,namespace_p99_us,"
	"namespace_max_us,"
	"sync_ops_per_s,sync_p50_us,sync_p99_us,sync_max_us,"
	"other_ops_per_s,other_p50_us,other_p99_us,other_max_us,"
	"run_p50_us,run_p95_us,run_p99_us,run_max_us,"
	"dev_sda_util_pct,dev_sda_r_await_ms,dev_sda_w_await_ms,"
	"dev_dm_0_util_pct,dev_dm_0_r_await_ms,dev_dm_0_w_await_ms,"
	"loadavg1\n"
	/* 3 reads (2 at 1.024 us, 1 at 4.096 us) and 1 sync (1048.576 us)
	 * in 1 s, reported as their buckets' values (1/64 above a power of
	 * two); sda busy, dm.0 idle. */
	"1.000,1.000,4.000,2.000,1.000,1.040,1064.960,1064.960,"
	"3.000,1.040,4.160,4.160,"
	"0.000,,,,0.000,,,,0.000,,,,0.000,,,,"
	"1.000,1064.960,1064.960,1064.960,"
	"0.000,,,,"
	"1.040,1064.960,1064.960,1064.960,"
	"12.500,0.500,2.250,0.000,0.000,0.000,0.50\n"
	/* Half a second with no operation: empty latencies; the run's
	 * percentiles stay. */
	"1.500,0.500,0.000,0.000,0.000,,,,"
	"0.000,,,,0.000,,,,0.000,,,,0.000,,,,0.000,,,,0.000,,,,0.000,,,,"
	"1.040,1064.960,1064.960,1064.960,"
	"0.000,0.000,0.000,0.000,0.000,0.000,0.75\n"
	/* 2 writes of 5 MB in 2 s at 32.768 us (33.280), dm.0 busy, sda
	 * not listed: the run now has 6 operations. */
	"3.500,2.000,1.000,0.000,5.000,33.280,33.280,33.280,"
	"0.000,,,,1.000,33.280,33.280,33.280,"
	"0.000,,,,0.000,,,,0.000,,,,0.000,,,,0.000,,,,"
	"4.160,1064.960,1064.960,1064.960,"
	"0.000,0.000,0.000,100.000,0.125,8.000,1.25\n";

START_TEST(test_csv_golden)
{
	char *dir = tu_scratch();
	char *csv = tu_join(dir, "run.csv");
	const char *devs[] = { "sda", "dm.0" };
	struct series_config cfg = {
		.csv_path = csv, .devices = devs, .ndevices = 2,
		.test_name = "golden",
	};
	struct disk_figures sda = {
		.name = "sda", .util_pct = 12.5, .rd_await_ms = 0.5,
		.wr_await_ms = 2.25,
	};
	struct disk_figures dm = {
		.name = "dm.0", .util_pct = 100, .rd_await_ms = 0.125,
		.wr_await_ms = 8,
	};
	struct series_sample a = {
		.t_ns = NS, .interval_ns = NS, .rd_bytes = 2000000,
		.wr_bytes = 1000000, .disks = &sda, .ndisks = 1,
		.loadavg1 = 0.5,
	};
	struct series_sample b = {
		.t_ns = 3 * NS / 2, .interval_ns = NS / 2, .loadavg1 = 0.75,
	};
	struct series_sample c = {
		.t_ns = 7 * NS / 2, .interval_ns = 2 * NS,
		.wr_bytes = 10000000, .disks = &dm, .ndisks = 1,
		.loadavg1 = 1.25,
	};
	char err[256];
	struct series *s;
	char *text;

	a.cls[SC_READ].ops = 3;
	a.cls[SC_READ].lat[B(1024)] = 2;
	a.cls[SC_READ].lat[B(4096)] = 1;
	a.cls[SC_SYNC].ops = 1;
	a.cls[SC_SYNC].lat[B(1 << 20)] = 1;
	c.cls[SC_WRITE].ops = 2;
	c.cls[SC_WRITE].lat[B(32768)] = 2;
	s = series_open(&cfg, err, sizeof(err));
	ck_assert_msg(s, "series_open: %s", err);
	/* The header is there as soon as the file is open. */
	text = tu_read(csv, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, "time_s,interval_s,ops_per_s,read_mb_per_s,"
			 "write_mb_per_s,p50_us,p99_us,max_us,read_ops_per_s,"
			 "read_p50_us,read_p99_us,read_max_us,write_ops_per_s,"
			 "write_p50_us,write_p99_us,write_max_us,"
			 "open_ops_per_s,open_p50_us,open_p99_us,open_max_us,"
			 "meta_ops_per_s,meta_p50_us,meta_p99_us,meta_max_us,"
			 "namespace_ops_per_s,namespace_p50_us,"
			 "namespace_p99_us,namespace_max_us,sync_ops_per_s,"
			 "sync_p50_us,sync_p99_us,sync_max_us,other_ops_per_s,"
			 "other_p50_us,other_p99_us,other_max_us,run_p50_us,"
			 "run_p95_us,run_p99_us,run_max_us,dev_sda_util_pct,"
			 "dev_sda_r_await_ms,dev_sda_w_await_ms,"
			 "dev_dm_0_util_pct,dev_dm_0_r_await_ms,"
			 "dev_dm_0_w_await_ms,loadavg1\n");
	free(text);
	ck_assert_int_eq(series_write(s, &a), 0);
	ck_assert_int_eq(series_write(s, &b), 0);
	ck_assert_int_eq(series_write(s, &c), 0);
	/* Each row is in the file once written. */
	text = tu_read(csv, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, golden);
	free(text);
	ck_assert_uint_eq(series_graphite_failures(s), 0);
	ck_assert_int_eq(series_close(s), 0);
	ck_assert_int_eq(series_close(NULL), 0);
	free(csv);
	free(dir);
}
END_TEST

/* Bad arguments and unwritable files: NULL, errno and a message. */
START_TEST(test_open_errors)
{
	char *dir = tu_scratch();
	char *csv = tu_join(dir, "no/such/dir.csv");
	struct series_config cfg = { .csv_path = csv };
	struct series_sample smp = { .t_ns = NS, .interval_ns = NS };
	struct series *s;
	char err[256];

	errno = 0;
	ck_assert_ptr_null(series_open(&cfg, err, sizeof(err)));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "no/such/dir.csv"));
	cfg = (struct series_config){ .graphite = "localhost" };
	ck_assert_ptr_null(series_open(&cfg, err, sizeof(err)));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "HOST:PORT"));
	cfg.graphite = ":2003";
	ck_assert_ptr_null(series_open(&cfg, err, sizeof(err)));
	ck_assert_int_eq(errno, EINVAL);
	cfg.graphite = "127.0.0.1:no-such-service";
	ck_assert_ptr_null(series_open(&cfg, err, sizeof(err)));
	ck_assert_int_eq(errno, EINVAL);
	cfg = (struct series_config){ .ndevices = 1 };
	ck_assert_ptr_null(series_open(&cfg, err, sizeof(err)));
	ck_assert_int_eq(errno, EINVAL);
	/* Neither CSV nor Graphite: a writer that writes nothing. */
	cfg = (struct series_config){ 0 };
	s = series_open(&cfg, err, sizeof(err));
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(series_write(s, &smp), 0);
	smp.ndisks = 1;
	ck_assert_int_eq(series_write(s, &smp), -EINVAL);
	smp.ndisks = 0;
	smp.interval_ns = 0;
	ck_assert_int_eq(series_write(s, &smp), -EINVAL);
	ck_assert_int_eq(series_close(s), 0);
	/* Only a regular file is written: not a device, not a FIFO. */
	cfg.csv_path = "/dev/full";
	s = series_open(&cfg, err, sizeof(err));
	ck_assert_ptr_null(s);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
	free(csv);
	free(dir);
}
END_TEST

static const char lines[] =
	"ioriot.my_test.ops_per_s 2.000 1700000002\n"
	"ioriot.my_test.read_mb_per_s 0.008 1700000002\n"
	"ioriot.my_test.write_mb_per_s 0.000 1700000002\n"
	"ioriot.my_test.p50_us 1.040 1700000002\n"
	"ioriot.my_test.p99_us 1.040 1700000002\n"
	"ioriot.my_test.max_us 1.040 1700000002\n"
	"ioriot.my_test.class.read.ops_per_s 2.000 1700000002\n"
	"ioriot.my_test.class.read.p50_us 1.040 1700000002\n"
	"ioriot.my_test.class.read.p99_us 1.040 1700000002\n"
	"ioriot.my_test.class.read.max_us 1.040 1700000002\n"
	"ioriot.my_test.class.write.ops_per_s 0.000 1700000002\n"
	"ioriot.my_test.class.open.ops_per_s 0.000 1700000002\n"
	"ioriot.my_test.class.meta.ops_per_s 0.000 1700000002\n"
	"ioriot.my_test.class.namespace.ops_per_s 0.000 1700000002\n"
	"ioriot.my_test.class.sync.ops_per_s 0.000 1700000002\n"
	"ioriot.my_test.class.other.ops_per_s 0.000 1700000002\n"
	"ioriot.my_test.disk.dm_0.util_pct 50.000 1700000002\n"
	"ioriot.my_test.disk.dm_0.r_per_s 2.000 1700000002\n"
	"ioriot.my_test.disk.dm_0.w_per_s 0.000 1700000002\n"
	"ioriot.my_test.disk.dm_0.read_mb_per_s 0.008 1700000002\n"
	"ioriot.my_test.disk.dm_0.write_mb_per_s 0.000 1700000002\n"
	"ioriot.my_test.disk.dm_0.r_await_ms 0.250 1700000002\n"
	"ioriot.my_test.disk.dm_0.w_await_ms 0.000 1700000002\n"
	"ioriot.my_test.loadavg1 0.250 1700000002\n";

/* The exact plaintext lines, with the default prefix from a test name
 * with a dot and a device name with a dot. */
START_TEST(test_graphite_lines)
{
	unsigned short port = 0;
	int lfd = listen_on(&port, 8);
	char addr[32], err[256];
	struct series_config cfg = {
		.graphite = addr, .test_name = "my.test",
		.start_unix_ns = 1700000000 * NS,
	};
	struct disk_figures dm = {
		.name = "dm.0", .util_pct = 50, .rd_per_s = 2,
		.rd_mb_per_s = 0.008192, .rd_await_ms = 0.25,
	};
	struct series_sample smp = reads(2.5, 2);
	struct series *s;
	char *got;

	smp.disks = &dm;
	smp.ndisks = 1;
	smp.loadavg1 = 0.25;
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	s = series_open(&cfg, err, sizeof(err));
	ck_assert_msg(s, "series_open: %s", err);
	ck_assert_int_eq(series_write(s, &smp), 0);
	ck_assert_uint_eq(series_graphite_failures(s), 0);
	got = receive(lfd, strlen(lines));
	ck_assert_str_eq(got, lines);
	free(got);
	ck_assert_int_eq(series_close(s), 0);
	close(lfd);
}
END_TEST

/* A prefix is kept as given, but for bytes Graphite cannot take. */
START_TEST(test_graphite_prefix)
{
	unsigned short port = 0;
	int lfd = listen_on(&port, 8);
	char addr[32], err[256];
	struct series_config cfg = {
		.graphite = addr, .prefix = ".lab.host 1/ioriot.",
		.test_name = "ignored", .start_unix_ns = 1000 * NS,
	};
	struct series_sample smp = reads(1, 0);
	const char *want = "lab.host_1_ioriot.ops_per_s 0.000 1001\n";
	struct series *s;
	char *got;

	/* localhost may be ::1 first, where nothing listens: the next
	 * address is tried. */
	snprintf(addr, sizeof(addr), "localhost:%u", port);
	s = series_open(&cfg, err, sizeof(err));
	ck_assert_msg(s, "series_open: %s", err);
	ck_assert_int_eq(series_write(s, &smp), 0);
	got = receive(lfd, strlen(want));
	ck_assert_str_eq(got, want);
	free(got);
	ck_assert_int_eq(series_close(s), 0);
	close(lfd);
}
END_TEST

/* A server that is down costs an interval, counted, never an error; the
 * next interval connects again. */
START_TEST(test_graphite_down)
{
	unsigned short port = free_port();
	char addr[32], err[256];
	struct series_config cfg = { .graphite = addr, .test_name = "t" };
	struct series_sample smp = reads(1, 1);
	struct series *s;
	uint64_t t0;
	int lfd;
	char *got;

	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	s = series_open(&cfg, err, sizeof(err));
	ck_assert_msg(s, "series_open: %s", err);
	t0 = clock_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(series_write(s, &smp), 0);
	ck_assert_int_eq(series_write(s, &smp), 0);
	ck_assert_uint_lt(clock_ns(CLOCK_MONOTONIC) - t0, NS / 2);
	ck_assert_uint_eq(series_graphite_failures(s), 2);
	/* Up again. */
	lfd = listen_on(&port, 8);
	ck_assert_int_eq(series_write(s, &smp), 0);
	ck_assert_uint_eq(series_graphite_failures(s), 2);
	got = receive(lfd, 20);
	ck_assert_str_eq(got, "ioriot.t.ops_per_s 1");
	free(got);
	/* Gone after the connection was made: noticed before the next
	 * send, which goes to the next server. */
	close(lfd);
	lfd = listen_on(&port, 8);
	ck_assert_int_eq(series_write(s, &smp), 0);
	got = receive(lfd, 20);
	ck_assert_str_eq(got, "ioriot.t.ops_per_s 1");
	free(got);
	close(lfd);
	ck_assert_int_eq(series_close(s), 0);
}
END_TEST

/* A server that takes no connection (its accept queue is full, so the
 * kernel drops our SYN): the write gives up after the timeout, not before;
 * within 5 s (without the timeout the kernel's SYN retries take minutes),
 * tight within 1 s, which a busy host may keep a woken thread waiting. */
START_TEST(test_graphite_timeout)
{
	unsigned short port = 0;
	int lfd = listen_on(&port, 0);
	struct sockaddr_in a = {
		.sin_family = AF_INET, .sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int filler = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char addr[32], err[256];
	struct series_config cfg = {
		.graphite = addr, .timeout_ns = NS / 5,
	};
	struct series_sample smp = reads(1, 1);
	struct series *s;
	uint64_t t0, took;

	ck_assert_int_eq(connect(filler, (struct sockaddr *)&a, sizeof(a)), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	s = series_open(&cfg, err, sizeof(err));
	ck_assert_msg(s, "series_open: %s", err);
	t0 = clock_ns(CLOCK_MONOTONIC);
	ck_assert_int_eq(series_write(s, &smp), 0);
	took = clock_ns(CLOCK_MONOTONIC) - t0;
	ck_assert_uint_eq(series_graphite_failures(s), 1);
	ck_assert_uint_ge(took, NS / 5 - NS / 100);
	ck_assert_uint_lt(took, TU_TIGHT ? NS : 5 * NS);
	ck_assert_int_eq(series_close(s), 0);
	close(filler);
	close(lfd);
}
END_TEST

/*
 * Start carbon-cache with its own configuration in @dir, its line
 * receiver on 127.0.0.1:@port; returns its pid once the port answers.
 * Its whisper files go to a tmpfs of the test's own (dir/storage): it
 * creates a file per metric and fsyncs every update, which on a busy
 * host's shared disk waited behind other processes' writeback for more
 * than the 10 s the tests once gave it.
 */
static pid_t carbon_start(const char *dir, unsigned short port)
{
	char *conf = tu_join(dir, "carbon.conf"), *text;
	char *pidfile = tu_join(dir, "carbon.pid");
	char *log = tu_join(dir, "carbon.out");
	char *storage = tu_join(dir, "storage");
	char *confarg, *pidarg, *logarg;
	uint64_t end;
	pid_t pid;

	ck_assert_msg(tu_mount_tmpfs(storage), "no tmpfs for %s", storage);
	free(storage);

	ck_assert(asprintf(&text,
		"[cache]\n"
		"STORAGE_DIR = %s/storage/\n"
		"LOCAL_DATA_DIR = %s/storage/whisper/\n"
		"WHITELISTS_DIR = %s/storage/lists/\n"
		"CONF_DIR = %s/\n"
		"LOG_DIR = %s/\n"
		"PID_DIR = %s/\n"
		"USER =\n"
		"MAX_CACHE_SIZE = inf\n"
		"MAX_UPDATES_PER_SECOND = inf\n"
		"MAX_CREATES_PER_MINUTE = inf\n"
		"LINE_RECEIVER_INTERFACE = 127.0.0.1\n"
		"LINE_RECEIVER_PORT = %u\n"
		"ENABLE_UDP_LISTENER = False\n"
		"PICKLE_RECEIVER_INTERFACE = 127.0.0.1\n"
		"PICKLE_RECEIVER_PORT = 0\n"
		"CACHE_QUERY_INTERFACE = 127.0.0.1\n"
		"CACHE_QUERY_PORT = 0\n"
		"WHISPER_AUTOFLUSH = True\n", dir, dir, dir, dir, dir, dir,
		port) > 0);
	free(tu_write_str(dir, "carbon.conf", text));
	free(text);
	free(tu_write_str(dir, "storage-schemas.conf",
			  "[all]\npattern = .*\nretentions = 1s:1h\n"));
	ck_assert(asprintf(&confarg, "--config=%s", conf) > 0);
	ck_assert(asprintf(&pidarg, "--pidfile=%s", pidfile) > 0);
	ck_assert(asprintf(&logarg, "--logdir=%s", dir) > 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		/* Carbon goes when the test goes, however it ends. */
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 ||
		    prctl(PR_SET_PDEATHSIG, SIGKILL) || chdir(dir))
			_exit(126);
		execlp("carbon-cache", "carbon-cache", confarg, pidarg, logarg,
		       "--nodaemon", "start", (char *)NULL);
		_exit(127);
	}
	end = clock_ns(CLOCK_MONOTONIC) + 15 * NS;
	for (;;) {
		struct sockaddr_in a = {
			.sin_family = AF_INET, .sin_port = htons(port),
			.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		};
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		int ok = fd >= 0 && !connect(fd, (struct sockaddr *)&a,
					     sizeof(a));

		if (fd >= 0)
			close(fd);
		if (ok)
			break;
		ck_assert_msg(waitpid(pid, NULL, WNOHANG) == 0,
			      "carbon-cache exited; see %s", log);
		ck_assert_msg(clock_ns(CLOCK_MONOTONIC) < end,
			      "carbon-cache did not listen within 15 s");
		usleep(50000);
	}
	free(confarg);
	free(pidarg);
	free(logarg);
	free(conf);
	free(pidfile);
	free(log);
	return pid;
}

/* Stop carbon: SIGTERM, then SIGKILL if it is not gone within 5 s. */
static void carbon_stop(pid_t pid)
{
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + 5 * NS;

	ck_assert_int_eq(kill(pid, SIGTERM), 0);
	while (waitpid(pid, NULL, WNOHANG) == 0) {
		if (clock_ns(CLOCK_MONOTONIC) > end) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			break;
		}
		usleep(20000);
	}
}

/* Whether whisper-fetch finds @value at @ts in the whisper file of
 * @metric ("a.b.c" -> a/b/c.wsp) below @whisper. */
static bool whisper_has(const char *whisper, const char *metric, uint64_t ts,
			const char *value)
{
	char *path, *cmd, line[256], want[128];
	bool found = false;
	FILE *p;

	ck_assert(asprintf(&path, "%s/%s.wsp", whisper, metric) > 0);
	for (char *c = path + strlen(whisper) + 1; *c; c++)
		if (*c == '.' && strcmp(c, ".wsp"))
			*c = '/';
	if (access(path, R_OK)) {
		free(path);
		return false;
	}
	ck_assert(asprintf(&cmd, "whisper-fetch --from=%llu --until=%llu "
			   "'%s' 2>/dev/null", (unsigned long long)ts - 5,
			   (unsigned long long)ts + 5, path) > 0);
	snprintf(want, sizeof(want), "%llu\t%s\n", (unsigned long long)ts,
		 value);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p))
		found |= !strcmp(line, want);
	pclose(p);
	free(cmd);
	free(path);
	return found;
}

/* A real carbon-cache on loopback stores what the writer sends: the
 * values are read back from its whisper files. */
START_TEST(test_carbon)
{
	char *dir, *whisper, addr[32], err[256];
	unsigned short port;
	uint64_t start = (clock_ns(CLOCK_REALTIME) / NS - 30) * NS, end;
	struct series_config cfg = {
		.graphite = addr, .test_name = "carbon test",
		.start_unix_ns = start,
	};
	struct disk_figures dev = { .name = "vd.a", .util_pct = 37.5 };
	struct series_sample a = reads(1, 42), b = reads(2, 7);
	struct series *s;
	pid_t pid;

	if (!in_path("carbon-cache") || !in_path("whisper-fetch")) {
		printf("series: carbon test skipped: carbon-cache or "
		       "whisper-fetch not installed (Debian: graphite-carbon, "
		       "python3-whisper)\n");
		return;
	}
	dir = tu_scratch();
	whisper = tu_join(dir, "storage/whisper");
	port = free_port();
	pid = carbon_start(dir, port);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	a.disks = &dev;
	a.ndisks = 1;
	s = series_open(&cfg, err, sizeof(err));
	ck_assert_msg(s, "series_open: %s", err);
	ck_assert_int_eq(series_write(s, &a), 0);
	ck_assert_int_eq(series_write(s, &b), 0);
	ck_assert_uint_eq(series_graphite_failures(s), 0);
	ck_assert_int_eq(series_close(s), 0);
	/* Carbon creates the files and writes the points within a second
	 * or so; a busy host's CPUs keep the Python daemon waiting. */
	end = clock_ns(CLOCK_MONOTONIC) + CARBON_WAIT_NS;
	while (!(whisper_has(whisper, "ioriot.carbon_test.ops_per_s",
			     start / NS + 1, "42.000000") &&
		 whisper_has(whisper, "ioriot.carbon_test.ops_per_s",
			     start / NS + 2, "7.000000") &&
		 whisper_has(whisper, "ioriot.carbon_test.class.read.p99_us",
			     start / NS + 2, "1.040000") &&
		 whisper_has(whisper, "ioriot.carbon_test.disk.vd_a.util_pct",
			     start / NS + 1, "37.500000"))) {
		if (clock_ns(CLOCK_MONOTONIC) > end) {
			carbon_stop(pid);
			ck_abort_msg("carbon did not store the metrics in %llu s",
				     (unsigned long long)(CARBON_WAIT_NS / NS));
		}
		usleep(100000);
	}
	carbon_stop(pid);
	free(whisper);
	free(dir);
}
END_TEST

/*
 * A replay file "t.replay" in @dir of test t, user root, whose sandbox
 * *@sb is on a tmpfs mounted at @dir/mnt: 60 mkdirat and unlinkat, one
 * every 40 ms (2.4 s).  Returns its path.
 */
static char *make_replay(const char *dir, char **sb)
{
	char *replay, *mnt;
	FILE *f;

	ck_assert(asprintf(&mnt, "%s/mnt", dir) > 0);
	ck_assert(tu_mount_tmpfs(mnt));
	ck_assert(asprintf(sb, "%s/.ioriot", mnt) > 0);
	ck_assert_int_eq(mkdir(*sb, 0755), 0);
	free(*sb);
	ck_assert(asprintf(sb, "%s/.ioriot/t", mnt) > 0);
	ck_assert_int_eq(mkdir(*sb, 0755), 0);
	free(mnt);
	replay = tu_join(dir, "t.replay");
	f = fopen(replay, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#|replay_version=1|name=t|user=root|\n#|sandbox=%s|\n"
		"#INIT\n#OPS\n", *sb);
	for (unsigned i = 0; i < 60; i++)	/* 2.4 s, every 40 ms */
		fprintf(f, "%u 1:1 %u 10 - %s 0 path=%s/d%s\n", i + 1,
			i * 40000000u, i % 2 ? "unlinkat" : "mkdirat", *sb,
			i % 2 ? " flags=0x200" : " mode=0755");
	fprintf(f, "#END|ops=60|\n");
	ck_assert_int_eq(fclose(f), 0);
	return replay;
}

/*
 * End to end: `ioriot -r --csv --graphite` at captured speed.  The CSV has
 * a row per second plus the rest, whose operations add up to the file's;
 * the real carbon-cache gets the test's metrics.  The 2.36 s take three
 * rows at least; tight, at most four (a busy host makes the replay late).
 */
START_TEST(test_replay_series)
{
	char *dir, *sb, *replay, *csv, *whisper, *metric, *out, *err, *text;
	char addr[32];
	const char *bin = getenv("IORIOT_BIN");
	unsigned short port;
	double ops = 0;
	unsigned rows = 0;
	uint64_t end;
	bool carbon = in_path("carbon-cache");
	pid_t pid = 0;
	int rc;

	ck_assert_ptr_nonnull(bin);
	dir = tu_scratch();
	replay = make_replay(dir, &sb);
	csv = tu_join(dir, "t.csv");
	port = free_port();
	if (carbon)
		pid = carbon_start(dir, port);
	else
		printf("series: replay without Graphite: carbon-cache not "
		       "installed (Debian: graphite-carbon)\n");
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", port);
	char *argv[] = { (char *)bin, "--allow-root", "-r", replay, "--reuse",
			 "-D", "-q", "-s", "1",
			 "--csv", csv, "--interval", "1",
			 carbon ? "--graphite" : NULL, addr, NULL };
	rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
	ck_assert_msg(!strstr(err, "Graphite"), "stderr: %s", err);

	text = tu_read(csv, NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert(!strncmp(text, "time_s,interval_s,ops_per_s,", 28));
	for (char *line = strchr(text, '\n'); line && line[1];
	     line = strchr(line + 1, '\n')) {
		double t, interval, rate;

		ck_assert_int_eq(sscanf(line + 1, "%lf,%lf,%lf", &t, &interval,
					&rate), 3);
		ops += interval * rate;
		rows++;
	}
	ck_assert_msg(rows >= 3 && (!TU_TIGHT || rows <= 4), "%u rows:\n%s",
		      rows, text);
	ck_assert_msg(ops > 59.5 && ops < 60.5, "%.3f ops:\n%s", ops, text);

	if (carbon) {
		whisper = tu_join(dir, "storage/whisper");
		metric = tu_join(whisper, "ioriot/t/ops_per_s.wsp");
		end = clock_ns(CLOCK_MONOTONIC) + CARBON_WAIT_NS;
		while (access(metric, R_OK)) {
			if (clock_ns(CLOCK_MONOTONIC) > end) {
				carbon_stop(pid);
				ck_abort_msg("carbon did not store %s in %llu s",
					     metric, (unsigned long long)
					     (CARBON_WAIT_NS / NS));
			}
			usleep(100000);
		}
		carbon_stop(pid);
		free(metric);
		free(whisper);
	}
	free(text);
	free(out);
	free(err);
	free(csv);
	free(replay);
	free(sb);
	free(dir);
}
END_TEST

/* Dumps the families and samples of the textfile argv[1] as
 * python3-prometheus-client's parser reads them. */
static const char prom_dump_py[] =
	"import json, sys\n"
	"from prometheus_client.parser import text_string_to_metric_families\n"
	"for fam in text_string_to_metric_families(open(sys.argv[1]).read()):\n"
	"    print('TYPE', fam.name, fam.type)\n"
	"    for s in fam.samples:\n"
	"        print(s.name, json.dumps(s.labels, sort_keys=True),\n"
	"              repr(float(s.value)))\n";

/* A Python that has prometheus_client: Debian's python3-prometheus-client
 * serves /usr/bin/python3, which another python3 in PATH may hide.  NULL
 * after saying the test @what is skipped. */
static const char *prom_python(const char *what)
{
	static const char *const pythons[] = { "/usr/bin/python3", "python3" };

	for (size_t i = 0; i < sizeof(pythons) / sizeof(pythons[0]); i++) {
		char *cmd;
		int rc;

		ck_assert(asprintf(&cmd, "%s -c 'import prometheus_client."
				   "parser' >/dev/null 2>&1", pythons[i]) > 0);
		rc = system(cmd);
		free(cmd);
		if (!rc)
			return pythons[i];
	}
	printf("series: %s skipped: python3-prometheus-client not installed "
	       "(make deps)\n", what);
	return NULL;
}

/* The dump (prom_dump_py) by @python of textfile @path; the parser must
 * accept it. */
static char *prom_parse(const char *python, const char *dir,
			const char *path)
{
	char *script = tu_write_str(dir, "dump.py", prom_dump_py), *cmd;
	char *text = NULL;
	size_t len = 0;
	FILE *p;
	int status;

	ck_assert(asprintf(&cmd, "%s '%s' '%s' 2>&1", python, script,
			   path) > 0);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert(getdelim(&text, &len, '\0', p) >= 0);
	status = pclose(p);
	ck_assert_msg(status == 0, "parser failed on %s:\n%s", path, text);
	free(cmd);
	free(script);
	return text;
}

/* The value of the sample line that starts with @key (name, a space,
 * the labels as JSON) in @dump; fails the test if there is none. */
static double prom_value(const char *dump, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = dump; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l)
		if (!strncmp(l, key, n) && l[n] == ' ')
			return strtod(l + n + 1, NULL);
	ck_abort_msg("no sample %s in:\n%s", key, dump);
	return 0;
}

/* Labels are escaped as the exposition format wants: the parser reads
 * back the very test name. */
START_TEST(test_prom_escape)
{
	const char *name = "a\"b\\c\nd";
	char *dir, *path, *dump, *esc, err[256];
	struct prom_config cfg = { .test_name = name };
	struct series_sample smp = reads(1, 100);
	const char *python;
	struct prom *p;

	esc = prom_escape(name);
	ck_assert_str_eq(esc, "a\\\"b\\\\c\\nd");
	free(esc);
	esc = prom_escape("");
	ck_assert_str_eq(esc, "");
	free(esc);
	if (!(python = prom_python("textfile escape test")))
		return;
	dir = tu_scratch();
	path = tu_join(dir, "e.prom");
	cfg.path = path;
	p = prom_open(&cfg, err, sizeof(err));
	ck_assert_msg(p, "prom_open: %s", err);
	ck_assert_int_eq(prom_sample(p, &smp), 0);
	ck_assert_int_eq(prom_finish(p, NULL), 0);
	prom_close(p);
	dump = prom_parse(python, dir, path);
	ck_assert_double_eq(prom_value(dump, "ioriot_operations_total "
				       "{\"class\": \"read\", \"test\": "
				       "\"a\\\"b\\\\c\\nd\"}"), 100);
	free(dump);
	free(path);
	free(dir);
}
END_TEST

/* prom_open refuses what it may not replace, and leaves nothing behind. */
START_TEST(test_prom_open_errors)
{
	char *dir = tu_scratch(), *path = tu_join(dir, "no/such/dir.prom");
	char *link = tu_join(dir, "l.prom"), err[256];
	struct prom_config cfg = { .path = path, .test_name = "t" };

	ck_assert_ptr_null(prom_open(&cfg, err, sizeof(err)));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(symlink("/etc/passwd", link), 0);
	cfg.path = link;
	ck_assert_ptr_null(prom_open(&cfg, err, sizeof(err)));
	ck_assert_int_eq(errno, ELOOP);
	cfg.path = dir;
	ck_assert_ptr_null(prom_open(&cfg, err, sizeof(err)));
	free(link);
	free(path);
	free(dir);
}
END_TEST

/*
 * End to end: `ioriot -r --prom` at captured speed.  The file the
 * Prometheus parser reads at the end counts the replay's 60 operations,
 * says the replay no longer runs and has the summary; no temporary file
 * is left in its directory.
 */
START_TEST(test_replay_prom)
{
	char *dir, *sb, *replay, *prom, *dump, *out, *err;
	const char *bin = getenv("IORIOT_BIN"), *python;
	double ops = 0;
	struct dirent *e;
	DIR *d;
	int rc;

	ck_assert_ptr_nonnull(bin);
	if (!(python = prom_python("--prom replay test")))
		return;
	dir = tu_scratch();
	replay = make_replay(dir, &sb);
	prom = tu_join(dir, "t.prom");
	char *argv[] = { (char *)bin, "--allow-root", "-r", replay, "--reuse",
			 "-D", "-q", "-s", "1", "--prom", prom,
			 "--interval", "0.5", NULL };
	rc = tu_run(argv, &out, &err);
	ck_assert_msg(rc == 0, "exit %d: %s", rc, err);

	dump = prom_parse(python, dir, prom);
	ck_assert_msg(strstr(dump, "TYPE ioriot_operations counter\n"), "%s",
		      dump);
	ck_assert(strstr(dump, "TYPE ioriot_latency_seconds gauge\n"));
	ck_assert(strstr(dump, "TYPE ioriot_replay_running gauge\n"));
	for (int c = 0; c < SC_COUNT; c++) {
		char key[128];

		snprintf(key, sizeof(key), "ioriot_operations_total "
			 "{\"class\": \"%s\", \"test\": \"t\"}",
			 series_class_name(c));
		ops += prom_value(dump, key);
	}
	ck_assert_double_eq(ops, 60);
	ck_assert_double_eq(prom_value(dump, "ioriot_operations_total "
				       "{\"class\": \"namespace\", \"test\": "
				       "\"t\"}"), 60);
	ck_assert_double_eq(prom_value(dump, "ioriot_replay_operations "
				       "{\"test\": \"t\"}"), 60);
	ck_assert_double_eq(prom_value(dump, "ioriot_replay_running "
				       "{\"test\": \"t\"}"), 0);
	double secs = prom_value(dump, "ioriot_replay_duration_seconds "
				 "{\"test\": \"t\"}");
	ck_assert_msg(secs > 2 && secs < 60, "%.3f s", secs);	/* only a hang */
	double p99 = prom_value(dump, "ioriot_latency_seconds {\"class\": "
				"\"namespace\", \"quantile\": \"0.99\", "
				"\"test\": \"t\"}");
	ck_assert_msg(p99 > 0 && p99 < 1, "p99 %g s", p99);
	ck_assert_double_eq(prom_value(dump, "ioriot_differing_results_total "
				       "{\"class\": \"namespace\", \"test\": "
				       "\"t\"}"), 0);

	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		ck_assert_msg(strncmp(e->d_name, ".t.prom", 7),
			      "left behind: %s", e->d_name);
	closedir(d);
	free(dump);
	free(out);
	free(err);
	free(prom);
	free(replay);
	free(sb);
	free(dir);
}
END_TEST

/* The first bytes of @path are @magic. */
static bool starts_with(const char *path, const char *magic, size_t len,
			size_t *size)
{
	char *text = tu_read(path, size);
	bool ok = text && *size >= len && !memcmp(text, magic, len);

	free(text);
	return ok;
}

/* A run's CSV of @n one-second intervals at @ops reads per second. */
static char *run_csv(const char *dir, const char *name, int n, uint64_t ops)
{
	char *csv = tu_join(dir, name), err[256];
	struct series_config cfg = { .csv_path = csv };
	struct series *s = series_open(&cfg, err, sizeof(err));

	ck_assert_msg(s, "series_open: %s", err);
	for (int i = 1; i <= n; i++) {
		struct series_sample smp = reads(i, ops + (uint64_t)i * 10);

		/* Some slow operations, so that p99 moves. */
		smp.cls[SC_READ].lat[B(1024 << i % 4)] += 5;
		smp.cls[SC_READ].ops += 5;
		/* An idle interval leaves empty latency cells. */
		if (i == 3)
			smp.cls[SC_READ] = (struct series_class_stats){ 0 };
		ck_assert_int_eq(series_write(s, &smp), 0);
	}
	ck_assert_int_eq(series_close(s), 0);
	return csv;
}

/* scripts/ioriot-plot draws two runs as PNG and as SVG. */
START_TEST(test_plot)
{
	char *dir, *a, *b, *png, *svg, *script;
	size_t size;

	if (!in_path("gnuplot")) {
		printf("series: plot test skipped: gnuplot not installed "
		       "(Debian: gnuplot-nox)\n");
		return;
	}
	dir = tu_scratch();
	a = run_csv(dir, "deadline.csv", 8, 100);
	b = run_csv(dir, "bfq run.csv", 6, 300);
	png = tu_join(dir, "out.png");
	svg = tu_join(dir, "out.svg");
	script = tu_join(tu_datadir(), "../../scripts/ioriot-plot");
	{
		const char *argv[] = { "sh", script, "-o", png, "-t", "two",
				       a, b, NULL };

		ck_assert_int_eq(tu_exec(argv, false), 0);
		ck_assert(starts_with(png, "\x89PNG\r\n\x1a\n", 8, &size));
		ck_assert_uint_gt(size, 10000);
	}
	{
		const char *argv[] = { "sh", script, "-o", svg, a, b, NULL };

		ck_assert_int_eq(tu_exec(argv, false), 0);
		ck_assert(starts_with(svg, "<?xml", 5, &size));
		ck_assert_uint_gt(size, 10000);
	}
	{
		/* Not a series CSV, or an unknown image type: refused. */
		const char *bad[] = { "sh", script, "-o", png, script, NULL };
		const char *ext[] = { "sh", script, "-o", "x.jpg", a, NULL };

		ck_assert_int_ne(tu_exec(bad, true), 0);
		ck_assert_int_ne(tu_exec(ext, true), 0);
	}
	free(script);
	free(svg);
	free(png);
	free(b);
	free(a);
	free(dir);
}
END_TEST

Suite *series_suite(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("series");
	TCase *tt = tu_timing_case("series timing");

	tcase_add_unchecked_fixture(tc, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_unchecked_fixture(tt, tu_root_setup, tu_root_teardown);
	tcase_set_timeout(tt, 60);
	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_sample_add);
	tcase_add_test(tc, test_csv_golden);
	tcase_add_test(tc, test_open_errors);
	tcase_add_test(tc, test_graphite_lines);
	tcase_add_test(tc, test_graphite_prefix);
	tcase_add_test(tc, test_graphite_down);
	tu_add_timed_test(tc, tt, test_graphite_timeout);
	tcase_add_test(tc, test_carbon);
	tu_add_timed_test(tc, tt, test_replay_series);
	tcase_add_test(tc, test_prom_escape);
	tcase_add_test(tc, test_prom_open_errors);
	tcase_add_test(tc, test_replay_prom);
	tcase_add_test(tc, test_plot);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tt);
	return s;
}
