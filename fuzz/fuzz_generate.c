/*
 * fuzz_generate: libFuzzer harness for the generator (src/generate/, with
 * the capture-log reader in front of it).  Each input is a capture log; it
 * is turned into a replay file with generate_run(), as `ioriot -c LOG -r
 * FILE -n fuzz` would, in a temporary directory made once per process.  v2
 * and v3 logs, which carry no mount table, get a fixed one.  A replay file
 * the generator writes must be one its own reader accepts to the end, so
 * the harness reads it back with rlog_open()/rlog_next(); and a run, failed
 * or not, must leave no temporary file behind.  Built and run by `make fuzz`.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "ioriot/generate.h"
#include "ioriot/log.h"
#include "ioriot/rlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char mounts_text[] =
	"/dev/sda1 / ext4 rw,relatime 0 0\n"
	"proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n"
	"sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
	"/dev/sdb1 /data xfs rw,relatime 0 0\n";

static char dir[64] = "/tmp/ioriot-fuzz-XXXXXX";
static char replay[128], mounts[128];

static void remove_dir(void)
{
	unlink(replay);
	unlink(mounts);
	rmdir(dir);
}

/* The per-process directory with its mount table, made once. */
static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	FILE *f;

	if (tmp && *tmp && strlen(tmp) < 40)
		snprintf(dir, sizeof(dir), "%s/ioriot-fuzz-XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(replay, sizeof(replay), "%s/out.replay", dir);
	snprintf(mounts, sizeof(mounts), "%s/mounts", dir);
	f = fopen(mounts, "w");
	if (!f || fputs(mounts_text, f) < 0 || fclose(f) != 0) {
		perror(mounts);
		abort();
	}
	atexit(remove_dir);
}

/* Read the generator's output to its end; abort if the reader rejects it. */
static void read_back(void)
{
	char err[1024];
	struct rlog_entry e;
	struct rlog_reader *r = rlog_open(replay, err, sizeof(err));
	int rc;

	if (!r) {
		fprintf(stderr, "generated replay file rejected: %s\n", err);
		abort();
	}
	while ((rc = rlog_next(r, &e, err, sizeof(err))) > 0)
		;
	if (rc < 0) {
		fprintf(stderr, "generated replay file rejected: %s\n", err);
		abort();
	}
	rlog_close(r);
}

/* A run, failed or not, must leave no temporary file behind: only the
 * mount table may be in the directory. */
static void check_clean(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d) {
		perror(dir);
		abort();
	}
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "mounts")) {
			fprintf(stderr, "generate left %s/%s behind\n", dir,
				de->d_name);
			abort();
		}
	}
	closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct gen_summary sum;
	char err[1024];

	if (!ready) {
		log_set_level(LOG_QUIET);
		setup();
		ready = 1;
	}
	struct gen_options opt = {
		.capture_path = fuzz_input_path(data, size),
		.replay_path = replay,
		.name = "fuzz",
		.user = "nobody",
		.local_mounts = mounts,
	};
	if (generate_run(&opt, &sum, err, sizeof(err)) == 0) {
		read_back();
		unlink(replay);
	}
	check_clean();
	return 0;
}
