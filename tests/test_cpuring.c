/*
 * Tests of the reader of the probe's per-CPU rings (cpuring.h): records
 * written the way the probe writes them (include/ioriot/event.h: no record
 * starts in the last IORIOT_RING_REC_MAX bytes of an element) come out
 * whole and in order over many laps, merged from several rings in the
 * order their calls began, a stop leaves the rest for the next read, and a
 * ring holding something that is not a record is refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../src/capture/cpuring.h"
#include "testutil.h"

#define ELEM ((uint64_t)IORIOT_RING_ELEM)

/* Rings of @ncpu CPUs with @elems elements each, in memory of our own. */
struct rings {
	struct cpuring cr;
	struct ioriot_ring_pos *pos;
	uint8_t *data;
};

static void rings_make(struct rings *r, unsigned int ncpu, unsigned int elems)
{
	r->pos = calloc(2 * ncpu, sizeof(*r->pos));
	r->data = calloc((size_t)ncpu * (elems + 1), ELEM);
	ck_assert(r->pos && r->data);
	cpuring_layout(r->pos, ncpu, elems);
	ck_assert_int_eq(cpuring_init(&r->cr, r->pos, r->data, 2 * ncpu,
				      (size_t)ncpu * (elems + 1)), 0);
}

static void rings_free(struct rings *r)
{
	cpuring_fini(&r->cr);
	free(r->pos);
	free(r->data);
}

/* The probe's side, written from the format's description: a record of
 * event @seq (its entry time too) with @npath bytes of path into ring
 * @ring.  0, or -ENOSPC when the ring has no room. */
static int put(struct rings *r, unsigned int ring, uint32_t seq,
	       uint32_t npath)
{
	struct ioriot_ring_pos *pos = &r->pos[ring];
	uint64_t head = pos->head, off = head % ELEM, size;
	struct ioriot_ring_rec *hdr;
	struct ioriot_event *ev;
	uint8_t *elem;

	if (off > IORIOT_RING_REC_LAST) {
		head += ELEM - off;
		off = 0;
	}
	if (head + IORIOT_RING_REC_MAX - pos->tail > pos->size)
		return -ENOSPC;
	elem = r->data + (pos->base + (head / ELEM) % pos->elems) * ELEM;
	size = (sizeof(*hdr) + sizeof(*ev) + npath + 7) / 8 * 8;
	hdr = (struct ioriot_ring_rec *)(elem + off);
	ev = (struct ioriot_event *)(hdr + 1);
	memset(ev, 0, sizeof(*ev));
	ev->tid = seq;
	ev->time_ns = seq;
	ev->path_len[0] = (uint16_t)npath;
	for (uint32_t i = 0; i < npath; i++)
		((uint8_t *)(ev + 1))[i] = (uint8_t)(seq + i);
	hdr->len = (uint32_t)size;
	__atomic_store_n(&pos->head, head + size, __ATOMIC_RELEASE);
	return 0;
}

/* What the records read so far looked like. */
struct seen {
	uint32_t next;		/* the sequence number expected */
	uint32_t stop_at;	/* return -EINTR after this one; 0: never */
	bool bad;
};

static int take(void *ctx, const void *rec, size_t size)
{
	const struct ioriot_event *ev = rec;
	struct seen *s = ctx;

	if (size < sizeof(*ev) || size < sizeof(*ev) + ev->path_len[0] ||
	    ev->tid != s->next)
		s->bad = true;
	for (uint32_t i = 0; !s->bad && i < ev->path_len[0]; i++)
		if (((const uint8_t *)(ev + 1))[i] != (uint8_t)(ev->tid + i))
			s->bad = true;
	s->next++;
	return s->stop_at && ev->tid == s->stop_at ? -EINTR : 0;
}

START_TEST(test_elems)
{
	ck_assert_uint_eq(cpuring_elems(64ULL << 20, 2), 32);
	ck_assert_uint_eq(cpuring_elems(64ULL << 20, 3), 16);
	ck_assert_uint_eq(cpuring_elems(64ULL << 20, 64), 4);
	ck_assert_uint_eq(cpuring_elems(1ULL << 20, 1), 4);
	ck_assert_uint_eq(cpuring_elems(2048ULL << 20, 1), 2048);
}
END_TEST

START_TEST(test_layout)
{
	struct rings r;

	rings_make(&r, 3, 4);
	for (unsigned int c = 0; c < 3; c++) {
		ck_assert_uint_eq(r.pos[2 * c].base, c * 5);
		ck_assert_uint_eq(r.pos[2 * c].elems, 4);
		ck_assert_uint_eq(r.pos[2 * c].size, 4 * ELEM);
		ck_assert_uint_eq(r.pos[2 * c + 1].base, c * 5 + 4);
		ck_assert_uint_eq(r.pos[2 * c + 1].elems, 1);
		ck_assert_uint_eq(r.pos[2 * c + 1].size, ELEM);
	}
	rings_free(&r);
}
END_TEST

/*
 * 24 MiB of records of every size up to the largest through a ring of
 * 4 MiB, read whenever it is full: all of them, whole, in order, records
 * that would start near an element's end started at the next one.
 */
START_TEST(test_laps)
{
	struct rings r;
	struct seen s = { 0 };
	uint32_t seq = 0, npath = 0;
	uint64_t bytes = 0;
	long n, total = 0;

	rings_make(&r, 1, 4);
	while (bytes < 24 * ELEM) {
		if (put(&r, 0, seq, npath) == -ENOSPC) {
			n = cpuring_consume(&r.cr, take, &s);
			ck_assert_int_gt(n, 0);
			total += n;
			continue;
		}
		bytes += sizeof(struct ioriot_event) + npath;
		seq++;
		npath = (npath * 7 + 1013) % (2 * IORIOT_EV_PATH_MAX - 1);
	}
	n = cpuring_consume(&r.cr, take, &s);
	ck_assert_int_ge(n, 0);
	total += n;
	ck_assert_msg(!s.bad, "a record came out changed or out of order");
	ck_assert_uint_eq(s.next, seq);
	ck_assert_int_eq(total, (long)seq);
	ck_assert_uint_eq(r.pos[0].tail, r.pos[0].head);
	ck_assert_int_eq(cpuring_consume(&r.cr, take, &s), 0);
	rings_free(&r);
}
END_TEST

/* A stop from the callback consumes its record and leaves the rest, of
 * that ring and the next, for the next read. */
START_TEST(test_stop)
{
	struct rings r;
	struct seen s = { .stop_at = 2 };

	rings_make(&r, 1, 4);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_int_eq(put(&r, 0, i, 10), 0);
	ck_assert_int_eq(put(&r, 1, 4, 0), 0);	/* the CPU's second ring */
	ck_assert_int_eq(cpuring_consume(&r.cr, take, &s), -EINTR);
	ck_assert_uint_eq(s.next, 3);
	s.stop_at = 0;
	ck_assert_int_eq(cpuring_consume(&r.cr, take, &s), 2);
	ck_assert_uint_eq(s.next, 5);
	ck_assert(!s.bad);
	rings_free(&r);
}
END_TEST

/* Records of four rings (two CPUs, both rings of each) come out in the
 * order their calls began. */
START_TEST(test_merged)
{
	static const unsigned int ring_of[] = { 0, 2, 2, 1, 0, 3, 2, 0, 0, 3 };
	const uint32_t n = sizeof(ring_of) / sizeof(ring_of[0]);
	struct rings r;
	struct seen s = { 0 };

	rings_make(&r, 2, 4);
	for (uint32_t i = 0; i < n; i++)
		ck_assert_int_eq(put(&r, ring_of[i], i, i * 3), 0);
	ck_assert_int_eq(cpuring_consume(&r.cr, take, &s), (long)n);
	ck_assert_msg(!s.bad, "a record came out changed or out of order");
	ck_assert_uint_eq(s.next, n);
	rings_free(&r);
}
END_TEST

/* A length no record can have is refused, not followed. */
START_TEST(test_not_a_record)
{
	static const uint32_t lens[] = { 0, 12, 20, IORIOT_RING_REC_MAX + 8 };
	struct rings r;
	struct seen s = { 0 };

	rings_make(&r, 2, 4);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct ioriot_ring_pos *pos = &r.pos[2];	/* CPU 1 */
		struct ioriot_ring_rec *hdr;

		ck_assert_int_eq(put(&r, 2, 0, 0), 0);
		hdr = (struct ioriot_ring_rec *)(r.data +
						 pos->base * ELEM + pos->tail % ELEM);
		hdr->len = lens[i];
		ck_assert_int_eq(cpuring_consume(&r.cr, take, &s), -EPROTO);
		pos->tail = pos->head;
	}
	rings_free(&r);
}
END_TEST

Suite *cpuring_suite(void)
{
	Suite *s = suite_create("cpuring");
	TCase *tc = tcase_create("cpuring");

	tcase_add_test(tc, test_elems);
	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_laps);
	tcase_add_test(tc, test_stop);
	tcase_add_test(tc, test_merged);
	tcase_add_test(tc, test_not_a_record);
	suite_add_tcase(s, tc);
	return s;
}
