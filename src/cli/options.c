/*
 * options: the command line parsed with getopt_long() off the option
 * table (optable.c): each option's value taken, the mode found, the
 * options checked against the mode and against each other.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "ioriot/cli.h"
#include "optable.h"

/* getopt_long()'s value for the long-only option of row i. */
#define LONG_ONLY_BASE 256

/* getopt_long()'s tables, built from cli_options[]: @longs of
 * CLI_OPTIONS_MAX + 1 entries, @shorts of 3 * CLI_OPTIONS_MAX + 2 bytes. */
static void getopt_tables(struct option *longs, char *shorts)
{
	size_t n = 0;
	char *s = shorts;

	*s++ = ':';	/* a missing argument is ':', not '?' */
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *row = &cli_options[i];

		if (!row->name)
			continue;
		longs[n++] = (struct option){
			.name = row->name,
			.has_arg = row->arg ? required_argument : no_argument,
			.val = row->letter ? row->letter :
			       LONG_ONLY_BASE + (int)i,
		};
		if (row->letter) {
			*s++ = row->letter;
			if (row->arg)
				*s++ = ':';
		}
	}
	longs[n] = (struct option){ 0 };
	*s = '\0';
}

/* The row of getopt_long()'s value @c, or NULL. */
static const struct cli_option *row_of(int c)
{
	if (c >= LONG_ONLY_BASE && (size_t)(c - LONG_ONLY_BASE) < cli_noptions)
		return &cli_options[c - LONG_ONLY_BASE];
	for (size_t i = 0; c > 0 && c < LONG_ONLY_BASE && i < cli_noptions; i++)
		if (cli_options[i].letter == c)
			return &cli_options[i];
	return NULL;
}

/* The operands (the files of --compare and --report, none otherwise), and
 * the mode -c and -r give.  0, or -EINVAL after saying why. */
static int take_operands(struct cli_opts *o, int argc, char **argv)
{
	int err = 0;

	if (o->mode == MODE_COMPARE || o->mode == MODE_REPORT ||
	    o->mode == MODE_MERGE) {
		o->files = argv + optind;
		o->nfiles = (size_t)(argc - optind);
		if (!o->nfiles && o->mode == MODE_MERGE) {
			fprintf(stderr, "ioriot: --merge needs stats files "
				"(written by -S FILE.json)\n");
			err = -EINVAL;
		} else if (!o->nfiles && o->mode == MODE_COMPARE) {
			fprintf(stderr, "ioriot: --compare needs stats files "
				"(written by -S FILE.json)\n");
			err = -EINVAL;
		} else if (!o->nfiles) {
			fprintf(stderr, "ioriot: --report needs files: stats "
				"(-S FILE.json), time series (--csv) or "
				"analyses (--analyze)\n");
			err = -EINVAL;
		}
	} else if (optind < argc) {
		fprintf(stderr, "ioriot: unexpected argument '%s'\n", argv[optind]);
		err = -EINVAL;
	}
	if (!err && (o->capture || o->replay_given)) {
		if (o->mode == MODE_INIT || o->mode == MODE_INIT_REPLAY) {
			fprintf(stderr, "ioriot: -i and -R take the replay file themselves; "
				"generate first with -c FILE -r FILE\n");
			err = -EINVAL;
		} else {
			err = cli_set_mode(o, !o->capture ? MODE_REPLAY :
				       o->replay_given ? MODE_GENERATE :
				       MODE_CAPTURE, o->capture ? "-c" : "-r");
		}
	}
	if (!err && o->mode == MODE_NONE) {
		fprintf(stderr, "ioriot: no mode given\n");
		err = -EINVAL;
	}
	return err;
}

/* Whether the option named @name was given (@given: a flag per row). */
static bool was_given(const bool *given, const char *name)
{
	for (size_t i = 0; i < cli_noptions; i++)
		if (cli_options[i].name && !strcmp(cli_options[i].name, name))
			return given[i];
	return false;
}

/* Every option given goes with the mode.  0, or -EINVAL after saying
 * which does not. */
static int check_modes(const struct cli_opts *o, const bool *given)
{
	for (size_t i = 0; i < cli_noptions; i++) {
		const struct cli_option *row = &cli_options[i];
		char flag[40], modes[256];

		if (!given[i] || !row->modes || (row->modes & CLI_IN(o->mode)))
			continue;
		fprintf(stderr, "ioriot: %s goes with %s\n",
			cli_option_flag(row, flag, sizeof(flag)),
			cli_modes_text(row->modes, false, modes,
				       sizeof(modes)));
		return -EINVAL;
	}
	return 0;
}

/* Options that need, or exclude, each other.  0, or -EINVAL after saying
 * why. */
static int check_combinations(const struct cli_opts *o, const bool *given)
{
	const char *why = NULL;

	if (o->sync && o->no_sync)
		why = "--sync or --no-sync, not both";
	else if (o->all && o->name)
		why = "-n NAME or --all, not both";
	else if (o->container && o->cgroup)
		why = "--container or --cgroup, not both";
	else if (o->repeat && (o->csv || o->graphite || o->prom ||
			       o->start_at_ns))
		why = "--repeat does not go with --csv, --graphite, --prom or "
		      "--start-at (one run each)";
	else if (o->cpu_scale > 0 && !o->think)
		why = "--cpu-scale needs --think";
	else if (o->think && o->speed_given && o->speed == 0)
		why = "--think needs -s above 0: it divides the captured gaps "
		      "(-s 0 leaves them out)";
	else if (o->graphite_prefix && !o->graphite)
		why = "--graphite-prefix needs --graphite";
	else if (was_given(given, "folded-weight") && !o->folded)
		why = "--folded-weight needs --folded";
	else if (o->stagger && !o->copies)
		why = "--stagger needs --copies";
	else if (o->interval && !o->csv && !o->graphite && !o->prom)
		why = "--interval needs --csv, --graphite or --prom";
	if (!why)
		return 0;
	fprintf(stderr, "ioriot: %s\n", why);
	return -EINVAL;
}

int cli_parse(int argc, char **argv, struct cli_opts *o)
{
	struct option longs[CLI_OPTIONS_MAX + 1];
	char shorts[3 * CLI_OPTIONS_MAX + 2];
	bool given[CLI_OPTIONS_MAX];
	int c, err = 0;

	memset(o, 0, sizeof(*o));
	memset(given, 0, sizeof(given));
	o->workers = -1;
	o->threads = -1;
	o->pid = -1;
	o->min_free = -1;
	getopt_tables(longs, shorts);
	optind = 1;
	opterr = 0;
	while (!err && (c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct cli_option *row = row_of(c);
		const char *arg = argv[optind - 1];

		if (row) {
			given[row - cli_options] = true;
			err = cli_option_take(row, o, row->arg ? optarg : NULL);
		} else if (c == ':') {
			fprintf(stderr, "ioriot: option %s needs an argument\n",
				arg);
			err = -EINVAL;
		} else {
			fprintf(stderr, "ioriot: unknown option %s\n", arg);
			err = -EINVAL;
		}
	}
	o->speed_given = was_given(given, "speed");
	o->output_format_set = was_given(given, "output-format");
	if (!err)
		err = take_operands(o, argc, argv);
	if (!err)
		err = check_modes(o, given);
	if (!err)
		err = check_combinations(o, given);
	if (err)
		fprintf(stderr, "Try 'ioriot --help' for more information.\n");
	return err;
}
