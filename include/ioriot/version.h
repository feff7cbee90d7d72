/*
 * version: the version this ioriot was built as, for `--version` and the
 * files ioriot writes for other programs (JSON statistics).
 */
#ifndef IORIOT_VERSION_H
#define IORIOT_VERSION_H

/* The version: the release (the VERSION file), followed in a git checkout by what
 * `git describe` says of the commit ("0.1.0+g1a2b3c4", "-dirty" for
 * uncommitted changes).  Never NULL. */
const char *ioriot_version(void);

#endif
