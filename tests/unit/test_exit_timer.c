// SPDX-License-Identifier: GPL-2.0
/*
 * Exit timing without the kernel: the pairing of kvm_exit with the next
 * kvm_entry on synthetic streams (edges of the interval, lost records,
 * records out of order), and the decoding of perf records from a ring
 * buffer built by hand, with records wrapping around its end.
 */
#include <check.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/exit_timer.h"
#include "measure/tracefs.h"
#include "support/check_main.h"

#define PAUSE 40u
#define HLT   12u

static struct exit_pairing p;
static struct exit_times t;

static void begin(uint64_t start, uint64_t stop)
{
	exit_pairing_init(&p);
	exit_pairing_window(&p, start, stop);
}

static void pair(uint64_t exit_ns, uint64_t entry_ns, uint32_t reason)
{
	exit_pairing_exit(&p, exit_ns, reason);
	exit_pairing_entry(&p, entry_ns);
}

START_TEST(test_pairs_inside)
{
	begin(1000, 2000);
	pair(1100, 1150, PAUSE);
	pair(1200, 1300, HLT);
	pair(1400, 1420, PAUSE);
	exit_pairing_result(&p, &t);
	ck_assert(t.valid);
	ck_assert_uint_eq(t.exits, 3);
	ck_assert_uint_eq(t.ns, 50 + 100 + 20);
	ck_assert_uint_eq(t.seen, 3);
	ck_assert_uint_eq(t.cut + t.unpaired + t.lost, 0);
	/* by time, longest first: HLT 100 ns, then PAUSE 70 ns */
	ck_assert_uint_eq(t.nr_reasons, 2);
	ck_assert_uint_eq(t.reason[0].reason, HLT);
	ck_assert_uint_eq(t.reason[1].reason, PAUSE);
	struct exit_reason_time r = exit_times_reason(&t, PAUSE);
	ck_assert_uint_eq(r.count, 2);
	ck_assert_uint_eq(r.ns, 70);
	ck_assert_uint_eq(exit_times_reason(&t, 99).count, 0);
}
END_TEST

/* Nothing counts before the interval starts, nor after it stops. */
START_TEST(test_outside_the_interval)
{
	exit_pairing_init(&p);
	pair(10, 20, PAUSE); /* no window yet: before the start */
	exit_pairing_window(&p, 1000, 0);
	pair(500, 600, PAUSE);	 /* before */
	pair(1100, 1200, PAUSE); /* inside, while the interval runs */
	exit_pairing_window(&p, 1000, 2000);
	pair(2100, 2200, PAUSE); /* after */
	exit_pairing_result(&p, &t);
	ck_assert_uint_eq(t.exits, 1);
	ck_assert_uint_eq(t.ns, 100);
	ck_assert_uint_eq(t.seen, 1);
	ck_assert_uint_eq(t.cut + t.unpaired, 0);
}
END_TEST

/* An exit that straddles either edge is cut, not timed. */
START_TEST(test_straddling_edges)
{
	begin(1000, 2000);
	pair(900, 1100, PAUSE);	 /* across the start */
	pair(1500, 1600, PAUSE); /* inside */
	pair(1900, 2100, PAUSE); /* across the stop */
	pair(800, 1200, HLT);	 /* out of order: the clock went back */
	exit_pairing_result(&p, &t);
	ck_assert_uint_eq(t.exits, 1);
	ck_assert_uint_eq(t.ns, 100);
	ck_assert_uint_eq(t.cut, 2);
	ck_assert_uint_eq(t.seen, 2); /* 1500 and 1900 */
}
END_TEST

/* Exit at the end without its entry: cut; entry at the start without its exit: unpaired. */
START_TEST(test_half_pairs_at_the_edges)
{
	begin(1000, 2000);
	exit_pairing_entry(&p, 1010); /* opened while the thread was out of the guest */
	pair(1100, 1200, HLT);
	exit_pairing_exit(&p, 1900, PAUSE); /* its entry never comes */
	exit_pairing_result(&p, &t);
	ck_assert_uint_eq(t.exits, 1);
	ck_assert_uint_eq(t.ns, 100);
	ck_assert_uint_eq(t.unpaired, 1);
	ck_assert_uint_eq(t.cut, 1);
	ck_assert_uint_eq(t.seen, 2);
}
END_TEST

/* Records out of order cannot happen in one thread's buffer: if they do, nothing is paired
 * across them. */
START_TEST(test_out_of_order)
{
	begin(1000, 2000);
	exit_pairing_exit(&p, 1500, PAUSE);
	exit_pairing_entry(&p, 1400); /* earlier than its exit: dropped with the exit */
	exit_pairing_entry(&p, 1600); /* no exit waiting any more */
	pair(1700, 1750, PAUSE);
	exit_pairing_result(&p, &t);
	ck_assert_uint_eq(t.exits, 1);
	ck_assert_uint_eq(t.ns, 50);
	ck_assert_uint_eq(t.unpaired, 3); /* the dropped exit, the early entry, the lone entry */
}
END_TEST

/* Lost records: the waiting exit is not paired with an entry that may not be its own. */
START_TEST(test_lost_records)
{
	begin(1000, 2000);
	exit_pairing_exit(&p, 1100, PAUSE);
	exit_pairing_lost(&p, 7);
	exit_pairing_entry(&p, 1500); /* the entry of some lost exit */
	pair(1600, 1610, PAUSE);
	exit_pairing_exit(&p, 1700, HLT);
	exit_pairing_exit(&p, 1800, HLT); /* two exits in a row: the first one's entry is lost */
	exit_pairing_entry(&p, 1850);
	exit_pairing_result(&p, &t);
	ck_assert_uint_eq(t.lost, 7);
	ck_assert_uint_eq(t.exits, 2);
	ck_assert_uint_eq(t.ns, 10 + 50);
	ck_assert_uint_eq(t.unpaired, 3);
}
END_TEST

/* More distinct reasons than the table holds: the rest are summed, not dropped. */
START_TEST(test_many_reasons)
{
	begin(0, 1000000);
	uint64_t now = 1;
	for (uint32_t r = 0; r < EXIT_TIMES_REASONS + 3; r++, now += 100)
		pair(now, now + 10, r);
	exit_pairing_result(&p, &t);
	ck_assert_uint_eq(t.nr_reasons, EXIT_TIMES_REASONS);
	ck_assert_uint_eq(t.other_count, 3);
	ck_assert_uint_eq(t.other_ns, 30);
	ck_assert_uint_eq(t.exits, EXIT_TIMES_REASONS + 3);
}
END_TEST

/* ---- perf records in a hand-made ring buffer ---- */

#define META  4096u
#define DATA  256u /* small, so records wrap */
#define EXIT  1u   /* sample ids */
#define ENTRY 2u

static uint8_t *mem;
static struct exit_timer timer;
static struct trace_format fmt;
static uint64_t head;

/* kvm_exit as the L1 kernel of make ple-test has it (recorded under Bochs) */
#define EXIT_FORMAT_KERNEL "6.1.0-57-amd64"

static void ring_setup(uint64_t start_at)
{
	char err[256];
	mem = calloc(1, META + DATA);
	ck_assert_ptr_nonnull(mem);
	char tracefs[PATH_MAX];
	const char *data = getenv("PLERIG_TEST_DATA");
	ck_assert_msg(data, "PLERIG_TEST_DATA is not set (meson test sets it)");
	snprintf(tracefs, sizeof(tracefs), "%s/tracefs/" EXIT_FORMAT_KERNEL, data);
	ck_assert_msg(trace_format_load(tracefs, "kvm", "kvm_exit", &fmt, err, sizeof(err)) == 0,
		      "%s", err);
	memset(&timer, 0, sizeof(timer));
	timer.exit_fd = timer.entry_fd = -1;
	timer.exit_id = EXIT;
	timer.entry_id = ENTRY;
	timer.reason = trace_format_field(&fmt, "exit_reason");
	ck_assert_ptr_nonnull(timer.reason);
	timer.ring.map = mem;
	timer.ring.map_len = META + DATA;
	timer.ring.data_len = DATA;
	timer.ring.rec = malloc(65536);
	exit_pairing_init(&timer.pairing);
	exit_pairing_window(&timer.pairing, 1000, 2000);
	/* as if earlier records had been drained: the next ones start at @start_at */
	head = start_at;
	((struct perf_event_mmap_page *)mem)->data_tail = start_at;
	((struct perf_event_mmap_page *)mem)->data_head = start_at;
}

static void ring_teardown(void)
{
	free(timer.ring.rec);
	free(mem);
}

static void put(const void *bytes, size_t len)
{
	for (size_t i = 0; i < len; i++)
		mem[META + (head + i) % DATA] = ((const uint8_t *)bytes)[i];
	head += len;
}

static void put_header(uint32_t type, size_t size)
{
	struct perf_event_header h = {.type = type, .misc = 0, .size = (uint16_t)size};
	put(&h, sizeof(h));
}

static void put_exit(uint64_t time, uint32_t reason)
{
	/* id, time, u32 raw size, raw: common fields, exit_reason where the format has it */
	uint8_t raw[12] = {0};
	uint32_t raw_size = sizeof(raw);
	uint64_t id = EXIT;
	ck_assert_uint_le(timer.reason->offset + sizeof(reason), sizeof(raw));
	memcpy(raw + timer.reason->offset, &reason, sizeof(reason));
	put_header(PERF_RECORD_SAMPLE, 8 + 8 + 8 + 4 + sizeof(raw));
	put(&id, 8);
	put(&time, 8);
	put(&raw_size, 4);
	put(raw, sizeof(raw));
}

static void put_entry(uint64_t time)
{
	uint64_t id = ENTRY;
	put_header(PERF_RECORD_SAMPLE, 8 + 8 + 8);
	put(&id, 8);
	put(&time, 8);
}

static void put_lost(uint64_t n)
{
	uint64_t id = EXIT;
	put_header(PERF_RECORD_LOST, 8 + 16);
	put(&id, 8);
	put(&n, 8);
}

static void publish(void)
{
	((struct perf_event_mmap_page *)mem)->data_head = head;
}

/* Records across the end of the buffer are read whole; the tail follows the head. */
START_TEST(test_ring_wraps)
{
	ring_setup(DATA - 4); /* the first record's header itself wraps */
	put_exit(1100, PAUSE);
	put_entry(1180);
	put_exit(1200, HLT);
	put_entry(1300);
	publish();
	exit_timer_drain(&timer);
	ck_assert_uint_eq(((struct perf_event_mmap_page *)mem)->data_tail, head);
	/* a second lap around the buffer, with a loss in it */
	for (int lap = 0; lap < 3; lap++) {
		put_exit(1400 + lap * 100, PAUSE);
		put_entry(1410 + lap * 100);
		publish();
		exit_timer_drain(&timer);
	}
	put_exit(1800, PAUSE);
	put_lost(5);
	put_entry(1900);
	publish();
	exit_timer_result(&timer, &t);
	ck_assert_uint_eq(t.exits, 5);
	ck_assert_uint_eq(t.ns, 80 + 100 + 3 * 10);
	ck_assert_uint_eq(exit_times_reason(&t, PAUSE).count, 4);
	ck_assert_uint_eq(exit_times_reason(&t, PAUSE).ns, 80 + 30);
	ck_assert_uint_eq(exit_times_reason(&t, HLT).ns, 100);
	ck_assert_uint_eq(t.lost, 5);
	ck_assert_uint_eq(t.unpaired, 2); /* the exit before the loss, the entry after it */
	ck_assert_uint_eq(timer.ring.lost, 5);
	ring_teardown();
}
END_TEST

/* A record not yet complete (head inside it) waits for the next drain. */
START_TEST(test_ring_partial_record)
{
	ring_setup(0);
	put_exit(1100, PAUSE);
	uint64_t whole = head;
	put_entry(1150);
	((struct perf_event_mmap_page *)mem)->data_head = whole + 10;
	exit_timer_drain(&timer);
	ck_assert_uint_eq(((struct perf_event_mmap_page *)mem)->data_tail, whole);
	publish();
	exit_timer_result(&timer, &t);
	ck_assert_uint_eq(t.exits, 1);
	ck_assert_uint_eq(t.ns, 50);
	ring_teardown();
}
END_TEST

static Suite *exit_timer_suite(void)
{
	Suite *s = suite_create("exit_timer");
	TCase *c = tcase_create("pairing");
	tcase_add_test(c, test_pairs_inside);
	tcase_add_test(c, test_outside_the_interval);
	tcase_add_test(c, test_straddling_edges);
	tcase_add_test(c, test_half_pairs_at_the_edges);
	tcase_add_test(c, test_out_of_order);
	tcase_add_test(c, test_lost_records);
	tcase_add_test(c, test_many_reasons);
	suite_add_tcase(s, c);
	c = tcase_create("ring");
	tcase_add_test(c, test_ring_wraps);
	tcase_add_test(c, test_ring_partial_record);
	suite_add_tcase(s, c);
	return s;
}

CHECK_MAIN(exit_timer_suite)
