/*
 * label: the default --label of a replay (label.c), private to src/cli.
 */
#ifndef IORIOT_CLI_LABEL_H
#define IORIOT_CLI_LABEL_H

#include <stddef.h>

/*
 * The configuration of the @n sandbox roots @roots of this host: per
 * mount "FSTYPE:SCHEDULER" (FSTYPE alone without a block device), joined
 * by "+"; "-" when none is known.  malloc'd; NULL when out of memory.
 */
char *cli_default_label(char *const *roots, size_t n);

#endif
