/*
 * commands: what the modes of the command line share, private to src/cli
 * (cli.c runs the modes, replaycli.c init and the replay through a replay
 * session, session.h).
 */
#ifndef IORIOT_CLI_COMMANDS_H
#define IORIOT_CLI_COMMANDS_H

#include <signal.h>

#include "ioriot/cli.h"
#include "ioriot/session.h"

/* The stop signal's number once SIGINT, SIGTERM or SIGHUP came, else 0. */
extern volatile sig_atomic_t cli_stop_signalled;

/* Catch SIGINT, SIGTERM and SIGHUP into cli_stop_signalled, with
 * sigaction flags @flags (SA_RESTART for the replay). */
void cli_catch_stop_signals(int flags);

/* The options of a replay session from @o's (-i, -r, -R, --devices);
 * cannot fail. */
void cli_session_opts(const struct cli_opts *o, struct replay_session_opts *so);

/* --devices: the block devices under the replay file's sandboxes, a
 * line each (docs/ioriot.8).  The exit status. */
int cli_run_devices(const struct cli_opts *o);

/* -r, -R, with or without --repeat: replay_session_run().  The exit
 * status. */
int cli_run_replay(const struct cli_opts *o);

/* -i: replay_session_init().  0, or 1 after saying why. */
int cli_run_init(const struct cli_opts *o);

#endif
