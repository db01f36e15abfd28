/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Variants and results for tests, built one way: a variant with the
 * figures every test starts from, and results shaped as a backend leaves
 * them (vms x vcpus records, placed as the variant places them), to which
 * a test adds the counts it checks. At tsc_khz = 1000000 a cycle is a ns.
 */
#ifndef PLERIG_TESTS_FIXTURES_H
#define PLERIG_TESTS_FIXTURES_H

#include <stdint.h>

#include "model/results.h"
#include "model/outcome.h"

#define FIXTURE_TSC_KHZ 1000000ull /* 1 GHz: one cycle is one nanosecond */
#define FIXTURE_TID	4242	   /* the first record's thread; the next ones count up */

/*
 * One VM of @vcpus at ring 0 on @backend, pinned each, on no CPU yet
 * (fixture_pin), with cs 100 cycles, think 50, stall 50 us, warm-up 0.2 s,
 * 2 s measured, watchdog 10 s.
 */
struct variant fixture_variant(enum backend_kind backend, unsigned vcpus,
			       enum plerig_lock_kind lock, enum plerig_relax_kind relax);

/* Puts @v on the @n CPUs of @cpus (at most PLERIG_MAX_PCPUS). */
void fixture_pin(struct variant *v, const unsigned *cpus, unsigned n);

/*
 * A good run of @v over @interval_s: every record there with its VM,
 * vCPU, host CPU (-1 floating) and thread, every count 0; one protected
 * counter per VM, 0. Free with variant_result_free().
 */
void fixture_result(struct variant_result *r, const struct variant *v, double interval_s);

/* @rec busy with @acq acquisitions: the counts of a contended, over-committed vCPU. */
void fixture_busy_vcpu(struct vcpu_record *rec, uint64_t acq);

/* A series of @v with room for @nr_runs runs, none filled in. Free with series_free(). */
void fixture_series(struct series *s, const struct variant *v, unsigned nr_runs);

#endif
