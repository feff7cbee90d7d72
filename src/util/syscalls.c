/* syscalls: the operation table and name look-up (syscalls.h). */
#include <pthread.h>
#include <string.h>

#include "ioriot/syscalls.h"

static const struct sys_info table[SYS_COUNT] = {
#define SYS_ENTRY(id, nm, knd, v3, rname) \
	[SYS_##id] = { .name = nm, .replay_name = rname, .kind = knd, \
		       .v3_ret_key = v3 },
	SYSCALL_TABLE(SYS_ENTRY)
#undef SYS_ENTRY
};

const struct sys_info *sys_info(enum sys_id id)
{
	return &table[id];
}

int sys_lookup(const char *name, size_t len, bool replay)
{
	/* Linear over ~90 short names, first byte compared first: a few
	 * dozen byte compares per line, cheaper than hashing here. */
	for (int i = 0; i < SYS_COUNT; i++) {
		const char *n = table[i].name;

		/* Replay files use canonical names only: entries whose log
		 * name is their replay name. */
		if (replay && strcmp(n, table[i].replay_name) != 0)
			continue;
		if (n[0] == name[0] && strlen(n) == len &&
		    memcmp(n, name, len) == 0)
			return i;
	}
	return -1;
}

static enum sys_id canonical[SYS_COUNT];
static pthread_once_t canonical_once = PTHREAD_ONCE_INIT;

static void build_canonical(void)
{
	for (int i = 0; i < SYS_COUNT; i++) {
		const char *rn = table[i].replay_name;
		int c = sys_lookup(rn, strlen(rn), true);
		canonical[i] = c < 0 ? (enum sys_id)i : (enum sys_id)c;
	}
}

enum sys_id sys_canonical(enum sys_id id)
{
	pthread_once(&canonical_once, build_canonical);
	return canonical[id];
}
