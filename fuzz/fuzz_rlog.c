/*
 * fuzz_rlog: libFuzzer harness for the replay-file reader
 * (src/rlog/reader.c).  Each input is a replay file: it is opened with
 * rlog_open() and read with rlog_next() until #END or the first error.
 * Every entry the reader accepts must name only what init and replay, as
 * root, may touch (rlog_confined.h), so the harness checks that too.
 * Built and run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_input.h"
#include "rlog_confined.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	struct rlog_reader *r;
	struct rlog_entry e;
	char err[512];

	r = rlog_open(path, err, sizeof(err));
	if (!r)
		return 0;
	const struct rlog_header *h = rlog_header(r);
	while (rlog_next(r, &e, err, sizeof(err)) > 0)
		if (!rlog_entry_confined(h, &e))
			abort();
	rlog_close(r);
	return 0;
}
