// SPDX-License-Identifier: GPL-2.0
/*
 * The serial decoder against the guest's own encoder (guest/kernel/frames.c):
 * whole reports, and truncated, corrupted and oversized ones.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/frames.h"
#include "backends/libvirt/serial_decode.h"
#include "support/check_main.h"

#define NR 3

static uint8_t buf[PLERIG_FRAME_REPORT_MAX];
static struct plerig_vcpu_result in[NR], out[NR];
static size_t len;

/* A report as the guest sends it: firmware noise, hello, NR vCPUs, end. */
static void make_report(void)
{
	memcpy(buf, "SeaBIOS\r\n", 9);
	struct frame_buf b = {.data = buf, .cap = sizeof(buf), .len = 9};
	const struct plerig_frame_hello hello = {
	    .abi_version = PLERIG_ABI_VERSION, .nr_vcpus = NR, .entry_tsc = 10, .hello_tsc = 20};
	frame_put(&b, PLERIG_FRAME_HELLO, 0, &hello, sizeof(hello));
	for (unsigned i = 0; i < NR; i++) {
		memset(&in[i], 0, sizeof(in[i]));
		in[i].state = PLERIG_VCPU_DONE;
		in[i].acquisitions = 1000 + i;
		in[i].hist_wait[3] = 500;
		in[i].hist_wait[PLERIG_HIST_BUCKETS - 1] = 500 + i;
		in[i].hist_hold[100] = 1000 + i;
		/* lock pvqspin's halt path: its counts and the kick-to-running histogram */
		in[i].pv.halts = 40 + i;
		in[i].pv.kicks_received = 30 + i;
		in[i].kick_latency_max_cycles = 9000 + i;
		in[i].hist_kick[7] = 20;
		in[i].hist_kick[200] = 10 + i;
		frame_put_vcpu(&b, i, &in[i], 1);
	}
	const struct plerig_frame_end end = {.status = PLERIG_END_OK,
					     .nr_vcpus = NR,
					     .kvm_features = 0x1a0,
					     .protected_counter = 3003};
	frame_put(&b, PLERIG_FRAME_END, 0, &end, sizeof(end));
	ck_assert(!b.overflow);
	len = b.len;
}

static enum serial_decode_status decode(size_t n, struct serial_report *rep, char *err)
{
	memset(rep, 0, sizeof(*rep));
	rep->nr_vcpus = NR;
	rep->vcpus = out;
	return serial_decode(buf, n, rep, err, 256);
}

START_TEST(a_whole_report_decodes_to_what_was_sent)
{
	struct serial_report rep;
	char err[256];
	make_report();
	ck_assert_int_eq(decode(len, &rep, err), SERIAL_COMPLETE);
	ck_assert_uint_eq(rep.noise, 9);
	ck_assert(rep.have_hello && rep.have_end);
	ck_assert_uint_eq(rep.hello.hello_tsc, 20);
	ck_assert_uint_eq(rep.end.protected_counter, 3003);
	ck_assert_uint_eq(rep.end.kvm_features, 0x1a0);
	for (unsigned i = 0; i < NR; i++)
		ck_assert_mem_eq(&in[i], &out[i], sizeof(in[i]));
}
END_TEST

START_TEST(every_truncation_is_incomplete_never_wrong)
{
	struct serial_report rep;
	char err[256];
	make_report();
	for (size_t n = 0; n < len; n++)
		ck_assert_msg(decode(n, &rep, err) == SERIAL_INCOMPLETE, "%zu bytes: %s", n, err);
}
END_TEST

START_TEST(every_flipped_bit_after_the_noise_is_caught)
{
	struct serial_report rep;
	char err[256];
	make_report();
	for (size_t i = 9; i < len; i++)
		for (int bit = 0; bit < 8; bit += 3) {
			buf[i] ^= (uint8_t)(1u << bit);
			enum serial_decode_status st = decode(len, &rep, err);
			ck_assert_msg(st != SERIAL_COMPLETE, "bit %d of byte %zu went unnoticed",
				      bit, i);
			buf[i] ^= (uint8_t)(1u << bit);
		}
}
END_TEST

/* Rewrite the header at @at with @length and a CRC that matches what follows. */
static void forge_length(size_t at, uint32_t length)
{
	struct plerig_frame_header h;
	memcpy(&h, buf + at, sizeof(h));
	h.length = length;
	memcpy(buf + at, &h, sizeof(h));
}

START_TEST(an_oversized_frame_is_refused_before_its_bytes_arrive)
{
	struct serial_report rep;
	char err[256];
	make_report();
	/* the first VCPU frame claims more than any vCPU result can need */
	const size_t vcpu_at =
	    9 + sizeof(struct plerig_frame_header) + sizeof(struct plerig_frame_hello);
	forge_length(vcpu_at, 0x7fffffff);
	ck_assert_int_eq(decode(vcpu_at + sizeof(struct plerig_frame_header), &rep, err),
			 SERIAL_CORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "allows"));
}
END_TEST

START_TEST(a_histogram_that_claims_too_much_is_refused)
{
	struct serial_report rep;
	char err[256];
	struct plerig_vcpu_result r = {.state = PLERIG_VCPU_DONE};
	struct frame_buf b = {.data = buf, .cap = sizeof(buf)};
	frame_put_vcpu(&b, 0, &r, 1);
	/* bucket count of the wait histogram: more buckets than the payload holds */
	uint32_t n = 1000;
	memcpy(buf + sizeof(struct plerig_frame_header) + PLERIG_FRAME_VCPU_FIXED, &n, sizeof(n));
	struct plerig_frame_header h;
	memcpy(&h, buf, sizeof(h));
	h.crc = plerig_crc32_update(0, buf + 4, 8);
	h.crc = plerig_crc32_update(h.crc, buf + sizeof(h), h.length);
	memcpy(buf, &h, sizeof(h));
	ck_assert_int_eq(decode(b.len, &rep, err), SERIAL_CORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "claims"));
}
END_TEST

/* ABI 3's VCPU frame ended after the hold histogram: its kick histogram is missing. */
START_TEST(a_vcpu_frame_without_the_kick_histogram_is_refused)
{
	struct serial_report rep;
	char err[256];
	struct plerig_vcpu_result r = {.state = PLERIG_VCPU_DONE};
	struct frame_buf b = {.data = buf, .cap = sizeof(buf)};
	frame_put_vcpu(&b, 0, &r, 1);
	struct plerig_frame_header h;
	memcpy(&h, buf, sizeof(h));
	h.length -= 4; /* the kick histogram's bucket count, the last field */
	memcpy(buf, &h, sizeof(h));
	h.crc = plerig_crc32_update(0, buf + 4, 8);
	h.crc = plerig_crc32_update(h.crc, buf + sizeof(h), h.length);
	memcpy(buf, &h, sizeof(h));
	ck_assert_int_eq(decode(b.len - 4, &rep, err), SERIAL_CORRUPT);
	ck_assert_msg(strstr(err, "kick histogram cut short"), "%s", err);
}
END_TEST

START_TEST(a_vcpu_out_of_range_or_twice_is_refused)
{
	struct serial_report rep;
	char err[256];
	struct plerig_vcpu_result r = {.state = PLERIG_VCPU_DONE};
	struct frame_buf b = {.data = buf, .cap = sizeof(buf)};
	frame_put_vcpu(&b, NR, &r, 1);
	ck_assert_int_eq(decode(b.len, &rep, err), SERIAL_CORRUPT);
	b.len = 0;
	frame_put_vcpu(&b, 1, &r, 1);
	frame_put_vcpu(&b, 1, &r, 1);
	ck_assert_int_eq(decode(b.len, &rep, err), SERIAL_CORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "twice"));
}
END_TEST

START_TEST(an_end_that_disagrees_with_the_frames_is_refused)
{
	struct serial_report rep;
	char err[256];
	struct frame_buf b = {.data = buf, .cap = sizeof(buf)};
	const struct plerig_frame_end end = {.status = PLERIG_END_OK, .nr_vcpus = NR};
	frame_put(&b, PLERIG_FRAME_END, 0, &end, sizeof(end));
	ck_assert_int_eq(decode(b.len, &rep, err), SERIAL_CORRUPT);
	ck_assert_ptr_nonnull(strstr(err, "announces"));
}
END_TEST

START_TEST(a_fault_report_decodes)
{
	struct serial_report rep;
	char err[256];
	struct plerig_vcpu_result r = {.state = PLERIG_VCPU_FAULT};
	r.fault.vector = 6;
	r.fault.rip = 0x100abc;
	struct frame_buf b = {.data = buf, .cap = sizeof(buf)};
	const struct plerig_frame_hello hello = {.nr_vcpus = NR};
	frame_put(&b, PLERIG_FRAME_HELLO, 0, &hello, sizeof(hello));
	frame_put_vcpu(&b, 2, &r, 0);
	const struct plerig_frame_end end = {
	    .status = PLERIG_END_FAULT, .detail = 2, .nr_vcpus = 1};
	frame_put(&b, PLERIG_FRAME_END, 0, &end, sizeof(end));
	ck_assert_int_eq(decode(b.len, &rep, err), SERIAL_COMPLETE);
	ck_assert_uint_eq(out[2].fault.rip, 0x100abc);
	ck_assert_uint_eq(out[2].state, PLERIG_VCPU_FAULT);
}
END_TEST

START_TEST(garbage_after_the_first_frame_is_refused)
{
	struct serial_report rep;
	char err[256];
	make_report();
	memset(buf + len, 'x', 32);
	memcpy(buf + 9 + sizeof(struct plerig_frame_header) + sizeof(struct plerig_frame_hello),
	       "garbage garbage garbage", 23);
	ck_assert_int_eq(decode(len, &rep, err), SERIAL_CORRUPT);
}
END_TEST

START_TEST(the_encoder_never_overflows_its_buffer)
{
	uint8_t small[64];
	struct frame_buf b = {.data = small, .cap = sizeof(small)};
	struct plerig_vcpu_result r = {0};
	frame_put_vcpu(&b, 0, &r, 1);
	ck_assert(b.overflow);
	ck_assert_uint_eq(b.len, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("serial_decode");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_whole_report_decodes_to_what_was_sent);
	tcase_add_test(tc, every_truncation_is_incomplete_never_wrong);
	tcase_add_test(tc, every_flipped_bit_after_the_noise_is_caught);
	tcase_add_test(tc, an_oversized_frame_is_refused_before_its_bytes_arrive);
	tcase_add_test(tc, a_histogram_that_claims_too_much_is_refused);
	tcase_add_test(tc, a_vcpu_frame_without_the_kick_histogram_is_refused);
	tcase_add_test(tc, a_vcpu_out_of_range_or_twice_is_refused);
	tcase_add_test(tc, an_end_that_disagrees_with_the_frames_is_refused);
	tcase_add_test(tc, a_fault_report_decodes);
	tcase_add_test(tc, garbage_after_the_first_frame_is_refused);
	tcase_add_test(tc, the_encoder_never_overflows_its_buffer);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
