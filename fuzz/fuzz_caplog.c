/*
 * fuzz_caplog: libFuzzer harness for the capture-log reader
 * (src/caplog/reader.c).  Each input is a capture log of any version: it is
 * opened with caplog_open() and read with caplog_next() until the end or an
 * error.  Bad lines must be skipped and counted, never crash the reader or
 * leak.  Built and run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_input.h"
#include "ioriot/caplog.h"
#include "ioriot/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_input_path(data, size);
	struct caplog_reader *r;
	struct cap_event ev;
	char err[512];
	int rc;

	log_set_level(LOG_QUIET);
	r = caplog_open(path, err, sizeof(err));
	if (!r)
		return 0;
	while ((rc = caplog_next(r, &ev)) > 0) {
		/* Touch what the reader hands out: the strings must be
		 * NUL-terminated where their lengths say. */
		if (ev.path[ev.path_len] != '\0' || ev.path2[ev.path2_len] != '\0')
			abort();
	}
	caplog_close(r);
	return 0;
}
