/*
 * floor: attaches one set of empty BPF programs (floor.bpf.c) and holds
 * them until SIGINT or SIGTERM, so that the capture benchmark can time its
 * syscall loop under the hooks' own cost, without any capture work.
 *
 *   floor tp     empty programs on sys_enter/sys_exit_{openat,pread64,close}
 *   floor raw    empty programs on the raw sys_enter and sys_exit
 *
 * Prints "attached" on stdout once the programs run; exits 0 when told to
 * stop, 1 if the programs cannot be loaded or attached.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bench/floor.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Load only the programs of @mode; 0 or -errno. */
static int choose(struct floor_bpf *skel, const char *mode)
{
	bool raw = strcmp(mode, "raw") == 0;
	struct bpf_program *prog;

	if (!raw && strcmp(mode, "tp") != 0)
		return -EINVAL;
	bpf_object__for_each_program(prog, skel->obj) {
		bool is_raw = strncmp(bpf_program__section_name(prog),
				      "tp_btf/", 7) == 0;
		bpf_program__set_autoload(prog, is_raw == raw);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel = NULL;
	int rc = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s tp|raw\n", argv[0]);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	skel = floor_bpf__open();
	if (!skel || choose(skel, argv[1])) {
		fprintf(stderr, "floor: cannot open the programs for %s\n", argv[1]);
		goto out;
	}
	if (floor_bpf__load(skel) || floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: cannot load or attach: %s\n", strerror(errno));
		goto out;
	}
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		sleep(1);	/* a signal cuts it short */
	rc = 0;
out:
	floor_bpf__destroy(skel);
	return rc;
}
