/*
 * version: the version string, which the Makefile passes to this one file
 * as IORIOT_VERSION (from the release number and `git describe`), so that a
 * new commit rebuilds one object.
 */
#include "ioriot/version.h"

#ifndef IORIOT_VERSION
#error "IORIOT_VERSION is not defined: build with the Makefile"
#endif

const char *ioriot_version(void)
{
	return IORIOT_VERSION;
}
