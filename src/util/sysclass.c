/*
 * sysclass: the class (read, write, meta, sync, open, other) of each
 * operation, shared by analyze's tables and the generator's
 * --only-syscalls filter: the table's class (syscall_table.h) seen with
 * one slot per call.
 */
#include <string.h>

#include "ioriot/syscalls.h"

static const char *const class_names[CLS_COUNT] = {
	[CLS_READ] = "read", [CLS_WRITE] = "write", [CLS_META] = "meta",
	[CLS_SYNC] = "sync", [CLS_OPEN] = "open", [CLS_OTHER] = "other",
};

enum sys_class sys_class_of(enum sys_id sys)
{
	/* One slot per call: a copy counts as the write it leaves behind,
	 * and the namespace calls are meta (syscall_table.h says why). */
	switch (sys_info(sys)->cls) {
	case OC_READ:
		return CLS_READ;
	case OC_WRITE: case OC_COPY: case OC_ALTER:
		return CLS_WRITE;
	case OC_OPEN:
		return CLS_OPEN;
	case OC_META: case OC_NAMESPACE:
		return CLS_META;
	case OC_SYNC:
		return CLS_SYNC;
	case OC_OTHER: case OC_COUNT:
		break;
	}
	return CLS_OTHER;
}

unsigned sys_data_dirs(enum sys_id sys)
{
	switch (sys_info(sys)->cls) {
	case OC_READ:
		return SYS_DATA_READ;
	case OC_WRITE:
		return SYS_DATA_WRITE;
	case OC_COPY:
		return SYS_DATA_READ | SYS_DATA_WRITE;
	default:
		return 0;
	}
}

const char *sys_class_name(enum sys_class c)
{
	return class_names[c];
}

int sys_class_lookup(const char *name, size_t len)
{
	for (int c = 0; c < CLS_COUNT; c++)
		if (strlen(class_names[c]) == len &&
		    memcmp(class_names[c], name, len) == 0)
			return c;
	return -1;
}
