/*
 * fuzz_rlog: libFuzzer harness for the replay-file reader
 * (src/rlog/reader.c).  Each input is a replay file: it is opened with
 * rlog_open() and read with rlog_next() until #END or the first error.
 * Every path the reader accepts must be inside a sandbox the header
 * declares (init and replay run as root on what it accepts), so the harness
 * checks that too.  Built and run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_input.h"
#include "ioriot/paths.h"
#include "ioriot/rlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether @path (@len bytes) is normalised and below a sandbox of @h. */
static int inside(const struct rlog_header *h, const char *path, size_t len)
{
	if (strlen(path) != len || !path_is_normal(path, len))
		return 0;
	for (size_t i = 0; i < h->nsandboxes; i++)
		if (path_is_below(path, len, h->sandboxes[i],
				  strlen(h->sandboxes[i])))
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	struct rlog_reader *r;
	struct rlog_entry e;
	char err[512];
	int rc;

	r = rlog_open(path, err, sizeof(err));
	if (!r)
		return 0;
	const struct rlog_header *h = rlog_header(r);
	while ((rc = rlog_next(r, &e, err, sizeof(err))) > 0) {
		if (e.type == RLOG_ENTRY_INIT) {
			if (!inside(h, e.init_path, e.init_path_len) ||
			    (e.init_target &&
			     !inside(h, e.init_target, e.init_target_len)))
				abort();
			continue;
		}
		if (((e.op.have & RL_PATH) &&
		     !inside(h, e.op.path, e.op.path_len)) ||
		    ((e.op.have & RL_PATH2) &&
		     !inside(h, e.op.path2, e.op.path2_len)) ||
		    ((e.op.have & RL_TARGET) &&
		     !inside(h, e.op.target, e.op.target_len)))
			abort();
	}
	rlog_close(r);
	return 0;
}
