/*
 * analyze: what a capture log or replay file holds, before it is replayed.
 * One streaming pass over its operations (a capture log through the
 * generator's op sink, a replay file through the rlog reader) fills
 * bounded tables: totals, syscall mix, latency and request-size
 * histograms, top files, directories, processes and threads, syncs, a
 * timeline and what is not replayed.  Printed as text, as JSON
 * (docs/analyze.md) and optionally as folded stacks for flame graphs.
 */
#ifndef IORIOT_ANALYZE_H
#define IORIOT_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ANALYZE_DEFAULT_TOP 20
/* Rows kept per table (files, directories, processes, threads); beyond,
 * one "other" row sums the rest. */
#define ANALYZE_MAX_ROWS (1u << 20)
/* The heaviest folded stacks the JSON lists ("folded"); one "other" row
 * sums the rest. */
#define ANALYZE_JSON_STACKS 1000

enum analyze_format { ANALYZE_TEXT, ANALYZE_JSON };
enum analyze_weight { ANALYZE_WEIGHT_OPS, ANALYZE_WEIGHT_BYTES,
		      ANALYZE_WEIGHT_TIME };

struct analyze_options {
	const char *path;		/* a capture log or a replay file */
	unsigned top;			/* rows per top list, 0: the default */
	enum analyze_format format;
	const char *folded_path;	/* folded stacks to write, or NULL */
	/* The JSON lists the heaviest folded stacks ("folded", for a flame
	 * graph); always with folded_path. */
	bool json_stacks;
	enum analyze_weight folded_weight;
	/* Tables are capped at this many rows (0: ANALYZE_MAX_ROWS). */
	size_t max_rows;
	const char *local_mounts;	/* v2/v3 logs: the mount table */
	const char *tool_version;	/* written into the JSON */
};

/*
 * Analyse opt->path and print the analysis to @out in opt->format; write
 * opt->folded_path too if set.  Returns 0, or -errno with a message naming
 * the file (and line, for malformed input) in @err: what the rlog and
 * caplog readers refuse, -ENOMEM, or the error writing @out or the folded
 * file (which is then removed).
 */
int analyze_run(const struct analyze_options *opt, FILE *out, char *err,
		size_t errlen);

/* The weight named @name ("ops", "bytes", "time") in *@w.  Returns 0 or
 * -EINVAL. */
int analyze_weight_parse(const char *name, enum analyze_weight *w);

#endif
