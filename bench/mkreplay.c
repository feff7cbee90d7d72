/*
 * mkreplay: writes a synthetic replay file (docs/replay-format.md) for the
 * replay benchmark to stdout.  Each timeline has a file of its own in a
 * directory of its own and repeats openat + pread64 + close of it, the
 * same work as `syscall-loop io`; timelines are interleaved round robin in
 * file order and need no dependencies.
 *
 *   mkreplay SANDBOX_ROOT TIMELINES OPS_PER_TIMELINE RATE
 *
 * SANDBOX_ROOT is <mountpoint>/.ioriot/NAME.  OPS_PER_TIMELINE is a
 * multiple of 3.  RATE is operations per second across the whole file:
 * operation j (0-based, file order) starts at j * 1e9 / RATE ns; with RATE
 * 0 every operation starts at 0 (as fast as possible).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define READ_COUNT 512		/* what syscall-loop reads per pread */
#define FILE_SIZE 4096
#define DUR_NS 1000		/* captured duration of every operation */
#define PID 1000

static int usage(void)
{
	fprintf(stderr, "usage: mkreplay SANDBOX_ROOT TIMELINES OPS_PER_TIMELINE RATE\n"
		"  SANDBOX_ROOT: <mountpoint>/.ioriot/NAME; OPS_PER_TIMELINE: a multiple of 3;\n"
		"  RATE: operations per second in all (0: as fast as possible)\n");
	return 2;
}

/* @s escaped as replay file paths are: %XX for bytes outside 0x21..0x7e
 * and for the separators.  Returns a malloc'd string or NULL. */
static char *escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *out = malloc(strlen(s) * 3 + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x21 || c > 0x7e || strchr("%;:,=|", c)) {
			*p++ = '%';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		} else {
			*p++ = (char)c;
		}
	}
	*p = '\0';
	return out;
}

int main(int argc, char **argv)
{
	uint64_t ntl, per_tl, rate, iters, total, last_ns;
	const char *root, *name;
	char *eroot;
	size_t len;

	if (argc != 5)
		return usage();
	root = argv[1];
	len = strlen(root);
	name = strrchr(root, '/');
	if (root[0] != '/' || !name || !name[1] || name[1] == '.' ||
	    (size_t)(name - root) < strlen("/.ioriot") ||
	    strncmp(name - strlen("/.ioriot"), "/.ioriot", strlen("/.ioriot")) ||
	    strstr(root, "//") || strstr(root, "/./") || strstr(root, "/../") ||
	    len > 1024) {
		fprintf(stderr, "mkreplay: %s is not <mountpoint>/.ioriot/NAME\n",
			root);
		return 2;
	}
	name++;
	if (!parse_u64(argv[2], 1, 4096, &ntl) ||
	    !parse_u64(argv[3], 3, UINT32_MAX, &per_tl) || per_tl % 3 ||
	    !parse_u64(argv[4], 0, 1000000000, &rate))
		return usage();
	iters = per_tl / 3;
	total = ntl * per_tl;
	last_ns = rate ? (total - 1) * 1000000000 / rate : 0;
	eroot = escape(root);
	if (!eroot) {
		perror("mkreplay");
		return 1;
	}

	printf("#|replay_version=1|name=%s|user=root|\n", name);
	printf("#|source=mkreplay|\n");
	printf("#|ops=%" PRIu64 "|timelines=%" PRIu64 "|processes=1|duration_ns=%"
	       PRIu64 "|\n", total, ntl, last_ns + DUR_NS);
	printf("#|sandbox=%s|\n", eroot);
	printf("#INIT\n");
	for (uint64_t t = 0; t < ntl; t++) {
		printf("d %s/t%" PRIu64 "\n", eroot, t);
		printf("f %d %s/t%" PRIu64 "/file\n", FILE_SIZE, eroot, t);
	}
	printf("#OPS\n");

	/* Operation j = (i * ntl + t) * 3 + k: iteration i of timeline t. */
	uint64_t j = 0;
	for (uint64_t i = 0; i < iters; i++) {
		for (uint64_t t = 0; t < ntl; t++) {
			uint64_t vfd = i * ntl + t + 1;
			uint64_t ns[3];

			for (int k = 0; k < 3; k++)
				ns[k] = rate ? (j + (uint64_t)k) * 1000000000 / rate : 0;
			printf("%" PRIu64 " %d:%" PRIu64 " %" PRIu64 " %d - openat 3 vfd=%"
			       PRIu64 " path=%s/t%" PRIu64 "/file flags=0x0\n",
			       j + 1, PID, PID + t, ns[0], DUR_NS, vfd, eroot, t);
			printf("%" PRIu64 " %d:%" PRIu64 " %" PRIu64 " %d - pread64 %d fd=%"
			       PRIu64 " count=%d off=0\n",
			       j + 2, PID, PID + t, ns[1], DUR_NS, READ_COUNT, vfd,
			       READ_COUNT);
			printf("%" PRIu64 " %d:%" PRIu64 " %" PRIu64 " %d - close 0 fd=%"
			       PRIu64 "\n", j + 3, PID, PID + t, ns[2], DUR_NS, vfd);
			j += 3;
		}
	}
	printf("#END|ops=%" PRIu64 "|\n", total);
	free(eroot);
	if (fflush(stdout) || ferror(stdout)) {
		perror("mkreplay: stdout");
		return 1;
	}
	return 0;
}
