/*
 * fileapi.h: what the fileapi workload (fileapi.c) does once the probe is
 * attached, shared with its test (tests/test_capture.c).
 */
#ifndef WORKLOAD_FILEAPI_H
#define WORKLOAD_FILEAPI_H

#define FA_SIZE 8192		/* src and dst, made before the capture */
#define FA_BLOCK 4096		/* the clone and dedupe ranges */
#define FA_PRE "user.pre"	/* src's attribute from before */
#define FA_PRE_LEN 5
#define FA_ACL_MODE 0640	/* the three-entry ACL set on src */
#define FA_SPLICE 100		/* bytes spliced from src into a pipe */
#define FA_TEE 50		/* of them, tee'd into another pipe */

#endif
