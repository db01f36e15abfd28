// SPDX-License-Identifier: GPL-2.0
/*
 * `plerig check`'s "not comparable" rule on a suite whose host runs
 * nothing else ([suite] host_runs_nothing_else = yes): off for a host
 * alone on this machine, whose foreign load is a misreading; on where
 * another host of --connect runs VMs on this machine at the same time,
 * whose load is other work indeed.
 */
#include <check.h>
#include <string.h>

#include "experiment/check_verdicts.h"
#include "model/metrics.h"
#include "model/plan.h"
#include "support/check_main.h"

static const double base_runs[] = {100, 101, 99, 100, 102, 98, 100, 101};
static const double cand_runs[] = {50, 51, 49, 50, 52, 48, 50, 51};
static const double quiet[] = {0.02, 0.03, 0.02, 0.02};
static const double busy[] = {0.6, 0.6, 0.62, 0.58};

struct verdict_case {
	struct suite suite;
	struct run_plan plan;
	struct scenario scenario;
	struct baseline baseline;
	struct check_config config;
	struct check_result out;
	struct check_ctx ctx;
	struct check_sample sample;
	struct check_tested tested;
};

/*
 * A contended variant 50 % below its baseline, significant, while other
 * work took 60 % of the CPUs' time against 2 % then.
 */
static const struct check_case *judge(struct verdict_case *v, bool on_host, const char *uri,
				      unsigned hosts_here, const char *own_connect)
{
	memset(v, 0, sizeof(*v));
	v->suite.host_runs_nothing_else = true;
	v->plan.connect_uri = own_connect;
	snprintf(v->scenario.name, sizeof(v->scenario.name), "a");
	v->scenario.plan = &v->plan;
	ck_assert_int_eq(baseline_put(&v->baseline, "a", "v", FOREIGN_LOAD_METRIC, quiet, 4), 0);
	v->config = (struct check_config){.suite = &v->suite,
					  .on_host = on_host,
					  .connect_uri = uri,
					  .hosts_here = hosts_here,
					  .threshold_pct = 5.0,
					  .baseline = &v->baseline,
					  .baseline_loaded = true};
	v->ctx = (struct check_ctx){.c = &v->config, .out = &v->out};
	v->sample = (struct check_sample){.scenario = &v->scenario,
					  .metric = metric_by_name("acq_per_s"),
					  .foreign = (double *)busy,
					  .nf = 4,
					  .contended = true};
	snprintf(v->sample.variant, sizeof(v->sample.variant), "v");
	v->tested = (struct check_tested){.s = &v->sample, .kind = VS_BASELINE};
	sample_stats_compute(base_runs, 8, &v->tested.base);
	sample_stats_compute(cand_runs, 8, &v->tested.cand);
	welch_test(base_runs, 8, cand_runs, 8, 0.95, &v->tested.w);
	v->tested.p_adj = v->tested.w.p;
	ck_assert_int_eq(check_emit_verdict(&v->ctx, &v->tested), 0);
	ck_assert_uint_eq(v->out.nr_cases, 1);
	return &v->out.cases[0];
}

static void done(struct verdict_case *v)
{
	check_result_free(&v->out);
	baseline_free(&v->baseline);
}

START_TEST(a_host_alone_here_is_judged_whatever_its_load)
{
	struct verdict_case v;
	/* no --connect; check --connect embedded alone; its own --connect of one host here */
	ck_assert_int_eq(judge(&v, false, NULL, 0, NULL)->outcome, CHECK_FAIL);
	done(&v);
	ck_assert_int_eq(judge(&v, true, NULL, 1, NULL)->outcome, CHECK_FAIL);
	done(&v);
	ck_assert_int_eq(judge(&v, false, NULL, 0, "qemu:///system")->outcome, CHECK_FAIL);
	ck_assert_ptr_nonnull(strstr(v.out.cases[0].text, "regression"));
	done(&v);
}
END_TEST

START_TEST(two_hosts_here_at_once_are_other_work)
{
	struct verdict_case v;
	/* check --connect embedded,qemu:///system: this one of two hosts of this machine */
	const struct check_case *c = judge(&v, true, "qemu:///system", 2, NULL);
	ck_assert_int_eq(c->outcome, CHECK_NOISY);
	ck_assert_ptr_nonnull(strstr(c->text, "not comparable"));
	done(&v);
	/* a scenario's own --connect with two hosts of this machine */
	c = judge(&v, false, NULL, 0, "embedded,qemu:///system");
	ck_assert_int_eq(c->outcome, CHECK_NOISY);
	done(&v);
	/* the other hosts here do not load a host on another machine */
	ck_assert_int_eq(judge(&v, true, "qemu+ssh://hostA/system", 2, NULL)->outcome, CHECK_FAIL);
	done(&v);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("check_verdicts");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_host_alone_here_is_judged_whatever_its_load);
	tcase_add_test(tc, two_hosts_here_at_once_are_other_work);
	suite_add_tcase(s, tc);
	return check_run(s, CK_FORK_GETENV);
}
