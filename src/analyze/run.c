/*
 * run: analyze_run(), the driver.  A replay file (its first line starts
 * "#|replay_version=") is read with the rlog reader; anything else is
 * taken for a capture log and run through the generator with an op sink,
 * so the analysis sees the operations a replay would, with the
 * generator's own fd and process model, and what it left out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"

/* The sandbox name paths get when a capture log is analysed. */
#define CAPTURE_NAME "analyze"
#define REPLAY_MAGIC "#|replay_version="

int analyze_weight_parse(const char *name, enum analyze_weight *w)
{
	if (!strcmp(name, "ops"))
		*w = ANALYZE_WEIGHT_OPS;
	else if (!strcmp(name, "bytes"))
		*w = ANALYZE_WEIGHT_BYTES;
	else if (!strcmp(name, "time"))
		*w = ANALYZE_WEIGHT_TIME;
	else
		return -EINVAL;
	return 0;
}

/* 1 if @path starts like a replay file, 0 if not, or -errno. */
static int is_replay_file(const char *path)
{
	char head[sizeof(REPLAY_MAGIC) - 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, head, sizeof(head));
	int err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	return n == (ssize_t)sizeof(head) &&
	       !memcmp(head, REPLAY_MAGIC, sizeof(head));
}

static void sink(void *ctx, const struct rlog_op *op)
{
	an_op(ctx, op);
}

static void on_exec(void *ctx, uint32_t pid, const char *path, size_t len)
{
	an_exec(ctx, pid, path, len);
}

static void on_fork(void *ctx, uint32_t parent, uint32_t child)
{
	an_fork(ctx, parent, child);
}

/* Set @a up for the source @src, its tables capped as @opt says, folded
 * stacks kept if it wants them.  0, or -ENOMEM with a message in @err. */
static int start(const struct analyze_options *opt, struct an *a,
		 const struct an_source *src, char *err, size_t errlen)
{
	int rc = an_init(a, src, opt->max_rows ? opt->max_rows :
			 ANALYZE_MAX_ROWS, opt->folded_path || opt->json_stacks);

	if (rc)
		snprintf(err, errlen, "out of memory");
	return rc;
}

/* Analyse the capture log opt->path into @a (set up here). */
static int from_capture(const struct analyze_options *opt, struct an *a,
			struct gen_summary *sum, char *err, size_t errlen)
{
	struct an_source src = { .path = opt->path, .name = CAPTURE_NAME };
	struct gen_options go = {
		.capture_path = opt->path, .name = CAPTURE_NAME,
		.user = CAPTURE_NAME, .local_mounts = opt->local_mounts,
		.sink = sink, .on_exec = on_exec, .on_fork = on_fork,
		.sink_ctx = a,
	};
	int rc = start(opt, a, &src, err, errlen);

	if (rc)
		return rc;
	rc = generate_run(&go, sum, err, errlen);
	if (rc)
		return rc;
	a->gen = sum;
	a->src.version = sum->capture_version;
	a->src.host = sum->host[0] ? sum->host : NULL;
	a->src.kernel = sum->kernel[0] ? sum->kernel : NULL;
	/* The generator's duration also counts events it did not write. */
	if (sum->duration_ns > a->duration_ns)
		a->duration_ns = sum->duration_ns;
	return 0;
}

/* Analyse the replay file behind @r into @a (set up here). */
static int from_replay(const struct analyze_options *opt,
		       struct rlog_reader *r, struct an *a, char *err,
		       size_t errlen)
{
	const struct rlog_header *h = rlog_header(r);
	struct an_source src = { .path = opt->path, .replay = true,
				 .version = h->version, .name = h->name };
	struct rlog_entry e;
	int rc = start(opt, a, &src, err, errlen);

	if (rc)
		return rc;
	a->rhead = h;
	while ((rc = rlog_next(r, &e, err, errlen)) == 1) {
		if (e.type != RLOG_ENTRY_OP)
			continue;
		an_op(a, &e.op);
		if (a->err)
			break;
	}
	return rc < 0 ? rc : 0;
}

int analyze_run(const struct analyze_options *opt, FILE *out, char *err,
		size_t errlen)
{
	struct gen_summary *sum = NULL;
	struct rlog_reader *r = NULL;
	unsigned top = opt->top ? opt->top : ANALYZE_DEFAULT_TOP;
	struct an *a = calloc(1, sizeof(*a));
	int rc = is_replay_file(opt->path);

	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", opt->path, strerror(-rc));
		free(a);
		return rc;
	}
	if (!a) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (rc) {
		r = rlog_open(opt->path, err, errlen);
		rc = r ? from_replay(opt, r, a, err, errlen) : -errno;
	} else {
		sum = malloc(sizeof(*sum));
		rc = sum ? from_capture(opt, a, sum, err, errlen) : -ENOMEM;
	}
	if (!rc && (rc = a->err ? a->err : an_finish(a)))
		snprintf(err, errlen, "%s: %s", opt->path, strerror(-rc));
	if (!rc && opt->folded_path)
		rc = an_write_folded(a, opt->folded_path, opt->path,
				     opt->folded_weight, err, errlen);
	if (!rc) {
		rc = opt->format == ANALYZE_JSON ?
		     an_print_json(a, out, top, opt->tool_version ?
				   opt->tool_version : "") :
		     an_print_text(a, out, top);
		if (!rc && (fflush(out) || ferror(out)))
			rc = -EIO;
		if (rc)
			snprintf(err, errlen, "writing the analysis: %s",
				 strerror(-rc));
	}
	an_free(a);
	free(a);
	free(sum);
	rlog_close(r);
	return rc;
}
