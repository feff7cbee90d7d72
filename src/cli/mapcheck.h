/*
 * mapcheck: what generate --map checks, private to src/cli: that each
 * TEST is a mount of this host before the file is made, and that the
 * file made puts no two sandboxes' paths on top of each other.
 */
#ifndef IORIOT_CLI_MAPCHECK_H
#define IORIOT_CLI_MAPCHECK_H

#include "ioriot/cli.h"
#include "ioriot/sandmap.h"

/*
 * Take @o's --map rules into @m (empty), each TEST checked to be the root
 * of a mount of this host.  Returns 0, or 1 with the message logged.
 */
int mapcheck_rules(const struct cli_opts *o, struct sandmap *m);

/*
 * The replay file o->replay, just written with @m's rules: each rule must
 * name a mount it has a sandbox on, and sandboxes sharing one test mount
 * must not collide (sandmap_check_collisions()).  Returns 0, or 1 with the
 * message logged.
 */
int mapcheck_output(const struct cli_opts *o, const struct sandmap *m);

#endif
