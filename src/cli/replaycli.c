/*
 * replaycli: `-i`, `-r` and `-R` on the command line: the options of a
 * replay session (session.h) taken from the parsed command line, and the
 * session run with the CLI's stop signals.
 */
#include <signal.h>

#include "ioriot/session.h"
#include "commands.h"

void cli_session_opts(const struct cli_opts *o, struct replay_session_opts *so)
{
	*so = (struct replay_session_opts){
		.replay = o->replay, .init = o->mode == MODE_INIT_REPLAY,
		.repeat = o->repeat, .user = o->user,
		.allow_root = o->allow_root,
		.map = o->map, .nmap = o->nmap,
		.copies = o->copies, .stagger = o->stagger,
		.reuse = o->reuse, .label = o->label,
		.speed = o->speed, .think = o->think,
		.cpu_scale = o->cpu_scale,
		.workers = o->workers, .threads = o->threads,
		.spin_us = o->spin_us, .start_at_ns = o->start_at_ns,
		.rate = o->rate, .no_drop_caches = o->no_drop_caches,
		.stats = o->stats, .output_json = o->output_json,
		.output_format_set = o->output_format_set,
		.cgroup = o->cgroup,
		.csv = o->csv, .graphite = o->graphite,
		.graphite_prefix = o->graphite_prefix, .prom = o->prom,
		.interval = o->interval,
		.quiet = o->verbosity < 0,
	};
}

int cli_run_init(const struct cli_opts *o)
{
	struct replay_session_opts so;

	cli_session_opts(o, &so);
	return replay_session_init(&so);
}

int cli_run_replay(const struct cli_opts *o)
{
	struct replay_session_opts so;

	cli_session_opts(o, &so);
	return replay_session_run(&so, &cli_stop_signalled,
				  cli_catch_stop_signals);
}
