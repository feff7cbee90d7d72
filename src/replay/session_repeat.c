/*
 * session_repeat: `-r`/`-R` with --repeat N (session_parts.h).  One configuration's runs, so that
 * its noise is measured: each run is a child process (a replay becomes
 * the test user for good), with the caches dropped and the sandboxes
 * initialised anew before it (with -r from the second run on), its
 * statistics written into a private directory.  Then per whole-run
 * figure (runfigs.h) the mean, deviation, extremes and 95% interval of
 * the mean (sample.h) on stdout, and with -S FILE.json every run and that
 * summary in one file (docs/stats.md, Repeated runs).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ioriot/incomplete.h"
#include "ioriot/log.h"
#include "ioriot/outfile.h"
#include "ioriot/paths.h"
#include "ioriot/runfigs.h"
#include "ioriot/sample.h"
#include "ioriot/session.h"
#include "ioriot/textsafe.h"
#include "session_parts.h"

/* The runs of one --repeat, as they end. */
struct repeat {
	char dir[64];			/* private: each run's statistics */
	json_t **docs;			/* each run's, in order */
	size_t n;
	int stopped_by;			/* the signal that ended a run */
	size_t incomplete;		/* runs that filled the test mount */
	const volatile sig_atomic_t *stop;	/* replay_session_run()'s */
	void (*catch_stop)(int sa_flags);
};

/* Run @i (from 0) of @o in a child: init unless it is -r's first, then
 * the replay with its statistics into @stats, its report to /dev/null.
 * The child's exit status, or -1 when it could not run or died. */
static int run_child(const struct replay_session_opts *o,
		     const struct repeat *rp, unsigned i, const char *stats)
{
	struct replay_session_opts c = *o;
	pid_t pid;
	int status;

	c.remove_trashed = true;
	c.stats = stats;
	c.output_format_set = false;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		log_error("cannot start run %u: %s", i + 1, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		int rc;

		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			_exit(1);
		rc = o->init || i > 0 ?
		     (replay_session_init(&c) ? 1 :
		      session_replay(&c, rp->stop, rp->catch_stop)) :
		     session_replay(&c, rp->stop, rp->catch_stop);
		fflush(NULL);
		_exit(rc);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run the @o->repeat runs into @rp, stopping at the first that fails or
 * is stopped by a signal; runs that filled the test mount are counted and
 * the next one starts.  0, or 1 after saying why. */
static int run_all(const struct replay_session_opts *o, struct repeat *rp)
{
	char stats[128];

	for (unsigned i = 0; i < (unsigned)o->repeat; i++) {
		struct jv_error je;
		json_t *doc;
		int rc;

		if (*rp->stop) {
			rp->stopped_by = *rp->stop;
			return 0;
		}
		if (!o->quiet)
			fprintf(stderr, "ioriot: run %u of %ld\n", i + 1,
				o->repeat);
		snprintf(stats, sizeof(stats), "%s/run%u.json", rp->dir, i + 1);
		rc = run_child(o, rp, i, stats);
		if (rc != 0 && rc != REPLAY_SESSION_INCOMPLETE && rc <= 128) {
			log_error("run %u of %ld failed%s", i + 1, o->repeat,
				  rp->n ? "; the summary covers the runs "
				  "before it" : "");
			return 1;
		}
		if (!(doc = jv_load(stats, &je))) {
			log_error("run %u: %s: %s", i + 1, stats, je.msg);
			return 1;
		}
		rp->docs[rp->n++] = doc;
		if (rc == REPLAY_SESSION_INCOMPLETE)
			rp->incomplete++;
		if (rc > 128) {
			rp->stopped_by = rc - 128;
			return 0;
		}
	}
	return 0;
}

/* The runs of @rp that ran to the end whole: incomplete ones
 * (incomplete.h) are kept in the file but left out of the summary. */
static size_t whole_runs(const struct repeat *rp, const json_t **whole)
{
	size_t k = 0;

	for (size_t i = 0; i < rp->n; i++) {
		struct run_why why;

		if (!run_incomplete(rp->docs[i], &why))
			whole[k++] = rp->docs[i];
	}
	return k;
}

/* A value in @fig's unit for the text. */
static double in_unit(const struct run_figure *fig, double v)
{
	return v * fig->scale;
}

/* The summary as text on @f. */
static void summary_text(FILE *f, const struct repeat *rp, size_t nwhole,
			 const struct run_figure *figs, const struct sample *s,
			 size_t nfigs)
{
	const json_t *first = rp->docs[0];
	const char *label = jv_member_string(first, "label");
	const char *pacing = jv_member_string(first, "pacing");

	fputs("Repeated runs of test '", f);
	text_write(f, jv_member_string(first, "test") ?
		   jv_member_string(first, "test") : "?", false);
	fputs("', label '", f);
	text_write(f, label ? label : "-", false);
	fprintf(f, "', pacing %s: %zu runs", pacing ? pacing : "fast",
		nwhole);
	if (nwhole < rp->n)
		fprintf(f, " (and %zu interrupted or incomplete, left out)",
			rp->n - nwhole);
	fputs("\n", f);
	if (nwhole < 2)
		fputs("1 run: noise unknown (no deviation, no interval)\n", f);
	fprintf(f, "%-26s %12s %12s %12s %12s   %s\n", "figure", "mean", "sd",
		"min", "max", "95% interval of the mean");
	for (size_t k = 0; k < nfigs; k++) {
		const struct run_figure *fig = &figs[k];

		fprintf(f, "%-26s %12.6g %12.6g %12.6g %12.6g", fig->label,
			in_unit(fig, s[k].mean), in_unit(fig, s[k].sd),
			in_unit(fig, s[k].min), in_unit(fig, s[k].max));
		if (s[k].n >= 2)
			fprintf(f, "   %.6g .. %.6g (+-%.1f%%)",
				in_unit(fig, s[k].ci_lo),
				in_unit(fig, s[k].ci_hi),
				s[k].mean ? 100 * (s[k].ci_hi - s[k].mean) /
				fabs(s[k].mean) : 0.0);
		fputc('\n', f);
	}
}

/* A JSON number, or null for NAN. */
static json_t *number_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* The summary as a JSON object ("summary" in docs/stats.md), or NULL when
 * out of memory. */
static json_t *summary_json(const json_t *first, size_t nwhole,
			    const struct run_figure *figs,
			    const struct sample *s, size_t nfigs)
{
	json_t *sum = json_object(), *fj = json_object();
	const char *label = jv_member_string(first, "label");

	if (!sum || !fj)
		goto fail;
	json_object_set_new(sum, "runs", json_integer((json_int_t)nwhole));
	json_object_set_new(sum, "label", label ? json_string(label) :
			    json_null());
	json_object_set_new(sum, "level", json_real(SAMPLE_LEVEL));
	for (size_t k = 0; k < nfigs; k++) {
		json_t *o = json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:[o,o]}",
			"label", figs[k].label, "n", (json_int_t)s[k].n,
			"mean", number_or_null(s[k].mean),
			"sd", number_or_null(s[k].sd),
			"min", number_or_null(s[k].min),
			"max", number_or_null(s[k].max),
			"ci", number_or_null(s[k].ci_lo),
			number_or_null(s[k].ci_hi));

		if (!o || json_object_set_new(fj, figs[k].key, o))
			goto fail;
	}
	json_object_set_new(sum, "figures", fj);
	return sum;
fail:
	json_decref(fj);
	json_decref(sum);
	return NULL;
}

/* The -S document of every run of @rp and @summary (stolen; NULL when it
 * could not be made), or NULL after saying "out of memory". */
static json_t *runs_doc(const struct repeat *rp, json_t *summary)
{
	json_t *runs = json_array(), *doc = NULL;
	size_t i = 0;

	if (summary && runs)
		while (i < rp->n && !json_array_append(runs, rp->docs[i]))
			i++;
	if (summary && runs && i == rp->n) {
		doc = json_pack("{s:s, s:i, s:o, s:o}", "format",
				STATS_RUNS_FORMAT, "format_version",
				STATS_RUNS_FORMAT_VERSION, "runs", runs,
				"summary", summary);
		runs = summary = NULL;
	}
	if (!doc)
		log_error("out of memory");
	json_decref(summary);
	json_decref(runs);
	return doc;
}

/* -S @path: every run and @summary (stolen) as one JSON document, or the
 * text summary for a name not ending in .json.  0, or 1 after saying why. */
static int write_stats(const struct replay_session_opts *o,
		       const struct repeat *rp, json_t *summary,
		       const char *text)
{
	char err[PATHMAP_MAX + 256];
	bool json = session_stats_json(o);
	json_t *doc = runs_doc(rp, summary);
	int fd = -1, dirfd = -1, e = 0;
	FILE *f = NULL;

	if (!doc)
		return 1;
	fd = outfile_open(o->stats, 0644, 0, o->replay, &dirfd, err,
			  sizeof(err));
	if (fd < 0) {
		log_error("%s", err);
		e = EIO;
		goto out;
	}
	if (ftruncate(fd, 0) || !(f = fdopen(fd, "w"))) {
		e = errno ? errno : EIO;
		close(fd);
		log_error("%s: %s", o->stats, strerror(e));
		goto out;
	}
	if (json ? json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(12)) ||
		   fputc('\n', f) == EOF : fputs(text, f) == EOF)
		e = errno ? errno : EIO;
	if (fclose(f) && !e)
		e = errno ? errno : EIO;
	if (e)
		log_error("%s: %s", o->stats, strerror(e));
	else if (!o->quiet)
		printf("Stats of %zu runs written to %s\n", rp->n, o->stats);
out:
	if (dirfd >= 0)
		close(dirfd);
	json_decref(doc);
	return e ? 1 : 0;
}

/* Summarise the runs of @rp: on stdout and into -S.  0 or 1. */
static int summarize(const struct replay_session_opts *o,
		     const struct repeat *rp)
{
	const json_t **whole = calloc(rp->n, sizeof(*whole));
	struct run_figure figs[RUNFIGS_MAX];
	struct sample s[RUNFIGS_MAX];
	double *v = calloc(rp->n, sizeof(*v));
	size_t nwhole, nfigs;
	char *text = NULL;
	size_t tlen = 0;
	FILE *mem = NULL;
	int ret = 1;

	if (!whole || !v || !(mem = open_memstream(&text, &tlen))) {
		log_error("out of memory");
		goto out;
	}
	nwhole = whole_runs(rp, whole);
	nfigs = run_figures(whole, nwhole, figs);
	for (size_t k = 0; k < nfigs; k++) {
		for (size_t i = 0; i < nwhole; i++)
			v[i] = run_figure_value(whole[i], &figs[k]);
		sample_of(v, nwhole, &s[k]);
	}
	summary_text(mem, rp, nwhole, figs, s, nfigs);
	ret = fclose(mem);
	mem = NULL;
	if (ret) {
		log_error("out of memory");
		goto out;
	}
	if (!o->quiet)
		fputs(text, stdout);
	ret = o->stats ? write_stats(o, rp, summary_json(rp->docs[0], nwhole,
							 figs, s, nfigs), text) :
	      0;
out:
	if (mem)
		fclose(mem);
	free(text);
	free(whole);
	free(v);
	return ret ? 1 : 0;
}

/* Remove the runs' private directory and its files. */
static void remove_dir(const struct repeat *rp, unsigned nfiles)
{
	char path[128];

	for (unsigned i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "%s/run%u.json", rp->dir, i + 1);
		if (unlink(path) && errno != ENOENT)
			log_warn("%s: %s", path, strerror(errno));
	}
	if (rmdir(rp->dir))
		log_warn("%s: %s", rp->dir, strerror(errno));
}

int session_repeat(const struct replay_session_opts *o,
		   const volatile sig_atomic_t *stop,
		   void (*catch_stop)(int sa_flags))
{
	struct repeat rp = { .dir = "/tmp/ioriot-runs.XXXXXX", .stop = stop,
			     .catch_stop = catch_stop };
	int ret;

	if (!(rp.docs = calloc((size_t)o->repeat, sizeof(*rp.docs)))) {
		log_error("out of memory");
		return 1;
	}
	if (!mkdtemp(rp.dir)) {
		log_error("%s: %s", rp.dir, strerror(errno));
		free(rp.docs);
		return 1;
	}
	if (catch_stop)
		catch_stop(SA_RESTART);
	ret = run_all(o, &rp);
	if (rp.n && summarize(o, &rp))
		ret = 1;
	if (!ret && rp.stopped_by) {
		log_warn("stopped by SIG%s after %zu of %ld runs",
			 sigabbrev_np(rp.stopped_by) ?
			 sigabbrev_np(rp.stopped_by) : "?", rp.n, o->repeat);
		ret = 128 + rp.stopped_by;
	} else if (!ret && rp.incomplete) {
		ret = REPLAY_SESSION_INCOMPLETE;
	}
	remove_dir(&rp, (unsigned)o->repeat);
	for (size_t i = 0; i < rp.n; i++)
		json_decref(rp.docs[i]);
	free(rp.docs);
	return ret;
}
