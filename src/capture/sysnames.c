/*
 * sysnames: syscall numbers and names of the architecture ioriot was built
 * for, from the table scripts/gen-syscall-names.sh generates out of the
 * build host's <asm/unistd.h> (capture.h).
 */
#include <string.h>

#include "ioriot/capture.h"
#include "syscall_names.h"

static const struct {
	int nr;
	const char *name;
} sysnames[] = {
#define NAME(n) { __NR_##n, #n },
	SYSCALL_NAMES(NAME)
#undef NAME
};

#define NSYSNAMES (sizeof(sysnames) / sizeof(sysnames[0]))

const char *capture_syscall_name(unsigned nr)
{
	for (size_t i = 0; i < NSYSNAMES; i++)
		if (sysnames[i].nr >= 0 && (unsigned)sysnames[i].nr == nr)
			return sysnames[i].name;
	return NULL;
}

int capture_syscall_nr(const char *name)
{
	for (size_t i = 0; i < NSYSNAMES; i++)
		if (strcmp(sysnames[i].name, name) == 0)
			return sysnames[i].nr;
	return -1;
}
