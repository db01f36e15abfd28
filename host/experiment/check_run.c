// SPDX-License-Identifier: GPL-2.0
#include "experiment/check.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment/check_ctx.h"
#include "experiment/check_expect.h"
#include "experiment/check_figures.h"
#include "experiment/check_params.h"
#include "experiment/experiment.h"
#include "experiment/host_identity.h"
#include "measure/kvm_system.h"
#include "ple/param_session.h"
#include "ple/state_file.h"
#include "output/json_writer.h"
#include "util/clock.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"

static double elapsed_s(const struct check_ctx *k)
{
	return (double)(monotonic_ns() - k->t0) * 1e-9;
}

/*
 * check --connect: @p's variants on the one host through libvirt. kvm becomes
 * libvirt; native runs on this machine, not there, so it goes. Returns
 * whether any backend is left.
 */
static bool move_to_host(const struct check_config *c, struct run_plan *p)
{
	unsigned n = 0;
	bool libvirt = false;
	for (unsigned i = 0; i < p->nr_backends; i++) {
		enum backend_kind b = p->backends[i];
		if (b == BACKEND_KVM)
			b = BACKEND_LIBVIRT;
		if (b == BACKEND_NATIVE || (b == BACKEND_LIBVIRT && libvirt))
			continue;
		libvirt |= b == BACKEND_LIBVIRT;
		p->backends[n++] = b;
	}
	p->nr_backends = n;
	p->connect_uri = c->connect_uri;
	return n > 0;
}

/* Every case of @s skipped, but the expectations in @judged (judged elsewhere). */
static int skip_scenario_but(struct check_ctx *k, const struct scenario *s, const char *why,
			     unsigned judged)
{
	for (unsigned e = 0; e < EXPECT_COUNT; e++)
		if (s->expects & ~judged & (1u << e) &&
		    check_result_add(k->out, s->name, expectation_name(e), CHECK_SKIP, "%s", why))
			return -1;
	unsigned nm;
	const struct metric *const *m = check_scenario_metrics(k, s, &nm);
	for (unsigned i = 0; check_judges_metrics(k) && i < nm; i++)
		if (check_result_add(k->out, s->name, m[i]->name, CHECK_SKIP, "%s", why))
			return -1;
	k->out->scenarios_skipped++;
	return 0;
}

static int skip_scenario(struct check_ctx *k, const struct scenario *s, const char *why)
{
	return skip_scenario_but(k, s, why, 0);
}

/* @again: the rounds run after the scenario's own (another regime's, or --budget's). */
static int keep_results(json_object *all, const char *name, const struct outcome *rep, bool again)
{
	json_object *doc = json_results_document(rep), *o = json_object_new_object();
	if (!doc || !o) {
		json_object_put(doc);
		json_object_put(o);
		return -1;
	}
	json_object_object_add(o, "scenario", json_object_new_string(name));
	if (again)
		json_object_object_add(o, "again", json_object_new_boolean(1));
	json_object_object_add(o, "results", doc);
	return json_object_array_add(all, o);
}

static bool every_run_ok(const struct outcome *rep)
{
	for (unsigned i = 0; i < rep->nr_series; i++)
		for (unsigned r = 0; r < rep->series[i].nr_runs; r++)
			if (!rep->series[i].runs[r].ok)
				return false;
	return true;
}

/*
 * Why a scenario's params cannot be set for the hosts it runs on, or NULL:
 * they are this machine's, so only a host on this machine has them, and
 * only while no other host runs here at the same time (it would run under
 * them). Its hosts are check --connect's, else its own --connect's.
 */
static const char *params_not_here(const struct check_place *p, char *buf, size_t len)
{
	if (p->elsewhere)
		return "its params are set on this host, and it runs on another";
	if (p->here > 1) {
		snprintf(buf, len,
			 "its params are this machine's, and %u hosts of --connect run on it at "
			 "once: each would run under the others' params",
			 p->here);
		return buf;
	}
	return NULL;
}

/*
 * The scenario's host PLE parameters (params =), set as plerig sweep sets
 * them. NULL with @session active, or why they could not be set (then
 * nothing changed, or the originals are back): *@failed when they could
 * be changed here but setting them failed (a reload, a value not read
 * back), not when this host refused to change them at all.
 */
static const char *set_params(const struct scenario *s, struct ple_session *session, char *why,
			      size_t len, bool *failed)
{
	const char *names[PLE_MAX_PARAMS];
	char err[ERRBUF_SIZE];
	for (unsigned i = 0; i < s->nr_params; i++)
		names[i] = s->params[i].name;
	if (ple_session_begin(session, names, s->nr_params, err, sizeof(err))) {
		errbuf_printf(why, len, "cannot set its params here: %s", err);
		return why;
	}
	if (ple_session_apply(session, s->params, s->nr_params, err, sizeof(err))) {
		*failed = true;
		errbuf_printf(why, len, "setting its params: %s", err);
		(void)ple_session_restore(session, err, sizeof(err));
		return why;
	}
	return NULL;
}

/* The originals back: a case of its own when they cannot be. 0, or -1 out of memory. */
static int restore_params(struct check_ctx *k, const struct scenario *s,
			  struct ple_session *session)
{
	char err[ERRBUF_SIZE];
	if (!session->active || !ple_session_restore(session, err, sizeof(err)))
		return 0;
	return check_result_add(k->out, s->name, "params", CHECK_FAIL,
				"the original parameters could not be restored (plerig sweep "
				"--restore puts them back): %s",
				err);
}

static int run_scenario(struct check_ctx *k, const struct scenario *s)
{
	struct run_plan *plan = malloc(sizeof(*plan));
	struct outcome rep;
	char err[ERRBUF_SIZE], why[512];
	const struct experiment_output out = {.rows = NULL, .who = "plerig check"};
	uint64_t start = monotonic_ns();
	struct ple_session *session = NULL;
	struct check_params_watch *watch = NULL;
	struct check_place place;
	bool all_ok = true;
	int rc = 0;
	char regime_note[768] = ""; /* the rounds left out, other_regime = */
	unsigned left_out = 0, rerun = 0;

	if (!plan)
		return -1;
	*plan = *s->plan;
	plan->quiet = true;
	k->moved = k->c->on_host && move_to_host(k->c, plan);
	const char *skip = check_skip_reason(k, s, why, sizeof(why));
	const char *host = k->c->host_label ? k->c->host_label : "";
	if (skip) {
		rc = skip_scenario(k, s, skip);
		if (k->c->progress)
			printable_printf(k->c->progress, "check: %s%s%-24s skipped: %s\n", host,
					 *host ? " " : "", s->name, skip);
		goto out;
	}
	if (experiment_check(plan, err, sizeof(err))) {
		rc = check_result_add(k->out, s->name, "runs", CHECK_FAIL, "bad scenario: %s", err);
		goto out;
	}
	check_scenario_place(k, s, &place);
	if (s->nr_params) {
		session = calloc(1, sizeof(*session));
		if (!session) {
			rc = -1;
			goto out;
		}
		skip = params_not_here(&place, why, sizeof(why));
		bool failed = false;
		if (!skip && s->expects & (1u << EXPECT_MODULE_PARAMS) &&
		    !(watch = check_params_watch(s))) {
			rc = -1;
			goto out;
		}
		if (!skip)
			skip = set_params(s, session, why, sizeof(why), &failed);
		/* a value the module would not take is the kernel's: module-params fails */
		check_params_set(watch, failed ? why : NULL);
		if (skip && !failed) { /* refused here: skipped as a whole, module-params too */
			check_params_forget(watch);
			watch = NULL;
		}
		if (skip) {
			rc = skip_scenario_but(k, s, skip,
					       watch && failed ? 1u << EXPECT_MODULE_PARAMS : 0);
			if (k->c->progress)
				printable_printf(k->c->progress, "check: %s%s%-24s skipped: %s\n",
						 host, *host ? " " : "", s->name, skip);
			goto out;
		}
	}
	/* kept from the scenario before only while each counts: no trigger's cost on the others */
	if (s->expects & (1u << EXPECT_FTRACE_COUNTS))
		check_trace_begin(&k->trace, place.elsewhere);
	else
		check_trace_end(&k->trace);
	if (s->expects & (1u << EXPECT_YIELD_TRACE))
		check_calls_begin(&k->yields, CHECK_CALLS_YIELDS, s->name, place.elsewhere,
				  k->out->host.kvm_module);
	if (s->expects & (1u << EXPECT_KICK_TRACE))
		check_calls_begin(&k->kicks, CHECK_CALLS_KICKS, s->name, place.elsewhere,
				  k->out->host.kvm_module);
	for (unsigned round = 0;; round++) {
		if (experiment_run(plan, plan->guest_path ? plan->guest_path : k->c->guest_path,
				   s->options, &out, &rep, err, sizeof(err))) {
			outcome_free(&rep);
			rc = check_result_add(k->out, s->name, "runs", CHECK_FAIL,
					      "could not run: %s", err);
			goto out;
		}
		if (k->c->results && keep_results(k->c->results, s->name, &rep, round > 0)) {
			outcome_free(&rep);
			rc = -1;
			goto out;
		}
		if (round == 0) {
			check_trace_collect(&k->trace);
			check_calls_collect(&k->yields);
			check_calls_collect(&k->kicks);
			k->out->scenarios_run++;
			if (check_note_failed_runs(k, s, &rep) ||
			    check_judge_expectations(k, s, &rep)) {
				outcome_free(&rep);
				rc = -1;
				goto out;
			}
		}
		all_ok &= every_run_ok(&rep);
		rc = check_judges_metrics(k) ? check_gather_figures(k, s, &rep) : 0;
		outcome_free(&rep);
		if (rc || interrupt_requested() || !check_judges_metrics(k))
			break;
		/* rounds in another regime: left out, and as many run again (up to --repeat) */
		unsigned left;
		if (check_leave_out_other_regime(k, s, &left, regime_note, sizeof(regime_note))) {
			rc = -1;
			break;
		}
		left_out += left;
		if (left && rerun < s->plan->repeat) {
			plan->repeat =
			    left < s->plan->repeat - rerun ? left : s->plan->repeat - rerun;
			/* each as the suite's rounds run: after a discarded one */
			plan->discard_rounds =
			    s->plan->discard_rounds >= 0 ? s->plan->discard_rounds : 1;
			rerun += plan->repeat;
			if (k->c->progress)
				printable_printf(k->c->progress,
						 "check: %s%s%-24s %u round(s) in another regime: "
						 "%u more\n",
						 host, *host ? " " : "", s->name, left,
						 plan->repeat);
			continue;
		}
		plan->repeat = s->plan->repeat;
		plan->discard_rounds = s->plan->discard_rounds;
		if (k->c->budget_s <= 0.0)
			break;
		bool narrow;
		if (check_scenario_narrow(k, s, &narrow)) {
			rc = -1;
			break;
		}
		if (narrow || elapsed_s(k) >= k->c->budget_s)
			break;
		if (k->c->progress)
			printable_printf(k->c->progress,
					 "check: %s%s%-24s wider than %.3g %%: %u more round(s)\n",
					 host, *host ? " " : "", s->name, k->c->threshold_pct,
					 plan->repeat);
	}
	if (!rc && left_out)
		rc = check_result_add(
		    k->out, s->name, "other-regime", CHECK_PASS,
		    "%u round(s) further than %.3g %% from the median of their "
		    "variant's, left out of the figures and run again (%u more): %s",
		    left_out, s->other_regime_pct, rerun, regime_note);
	/* the summary says it too: a pass that left a round out is not silent */
	if (!rc && left_out)
		check_result_brief(k->out, "%u round(s) left out, %u run again: %.150s", left_out,
				   rerun, regime_note);
	else if (!rc && s->other_regime_pct > 0.0 && check_judges_metrics(k))
		rc = check_result_add(k->out, s->name, "other-regime", CHECK_PASS,
				      "every round within %.3g %% of the median of its variant's",
				      s->other_regime_pct);
	k->complete[s - k->c->suite->scenarios] = !rc && all_ok && !interrupt_requested();
	if (k->c->progress)
		printable_printf(k->c->progress, "check: %s%s%-24s %.1f s\n", host,
				 *host ? " " : "", s->name,
				 (double)(monotonic_ns() - start) * 1e-9);
out:
	check_trace_free(&k->trace);
	check_calls_free(&k->yields);
	check_calls_free(&k->kicks);
	check_params_ran(watch);
	if (session && restore_params(k, s, session))
		rc = -1;
	if (check_params_judge(k, s, watch))
		rc = -1;
	free(session);
	free(plan);
	return rc;
}

static bool selected(const struct check_config *c, const struct scenario *s)
{
	if (!c->groups)
		return true;
	for (const char *const *g = c->groups; *g; g++)
		if (scenario_in_group(s, *g))
			return true;
	return false;
}

/* Cases in the suite's order of scenarios (figures are judged last, together). */
static int order_cases(struct check_ctx *k)
{
	struct check_result *r = k->out;
	struct check_case *sorted = malloc((r->nr_cases + 1) * sizeof(*sorted));
	unsigned n = 0;
	if (!sorted)
		return -1;
	for (unsigned s = 0; s < k->c->suite->nr_scenarios; s++)
		for (unsigned i = 0; i < r->nr_cases; i++)
			if (!strcmp(r->cases[i].scenario, k->c->suite->scenarios[s].name))
				sorted[n++] = r->cases[i];
	free(r->cases);
	r->cases = sorted;
	r->nr_cases = n;
	r->cap = n + 1;
	return 0;
}

static void probe_kvm(struct check_ctx *k)
{
	struct kvm_system sys;
	char err[ERRBUF_SIZE];
	if (kvm_system_open(&sys, err, sizeof(err))) {
		errbuf_printf(k->kvm_why, sizeof(k->kvm_why), "no usable KVM: %s", err);
		return;
	}
	k->kvm_ok = true;
	k->pv_yield = strcmp(sys.module, "kvm_pvm") &&
		      kvm_feature_supported(&sys, KVM_FEATURE_PV_SCHED_YIELD);
	k->pv_unhalt =
	    strcmp(sys.module, "kvm_pvm") && kvm_feature_supported(&sys, KVM_FEATURE_PV_UNHALT);
	k->halt_poll = kvm_halt_poll_per_vm(&sys);
	kvm_system_close(&sys);
}

/*
 * A sweep or check that changed this host's PLE parameters and was killed
 * before putting them back (or one that runs now) left its state file:
 * every scenario here runs under its values, not the host's own. Why, in
 * @why, and the case's status: a failure (and no baseline recorded), or a
 * skip where this user may not read root's state directory (only root can
 * have changed the parameters; a check that failed there could never pass
 * for anyone else); @why "" if there is nothing to say.
 */
static enum check_outcome params_not_own(char *why, size_t len)
{
	struct ple_state st;
	char err[ERRBUF_SIZE], path[PATH_MAX];
	const int rc = ple_state_load(&st, err, sizeof(err));
	why[0] = '\0';
	if (rc == -ENOENT)
		return CHECK_PASS;
	ple_state_path(path, sizeof(path));
	if (rc == -EACCES && geteuid()) {
		errbuf_printf(why, len,
			      "cannot tell whether they are the host's own: %s; this user may not "
			      "read root's record of what a plerig run as root changed, so whether "
			      "one left them changed is not checked",
			      err);
		return CHECK_SKIP;
	}
	if (rc) {
		errbuf_printf(why, len, "cannot tell whether they are the host's own: %s", err);
		return CHECK_FAIL;
	}
	const bool runs = st.pid > 0 && (!kill(st.pid, 0) || errno == EPERM);
	errbuf_printf(why, len,
		      "the %s parameters were not the host's own while it ran: plerig %d changed "
		      "them and %s (the originals are in %s; `plerig sweep --restore` puts them "
		      "back)",
		      st.module, (int)st.pid,
		      runs ? "still runs" : "was ended before it put them back", path);
	return CHECK_FAIL;
}

int check_suite_run(const struct check_config *c, struct check_result *out, char *err,
		    size_t errlen)
{
	struct check_ctx k = {.c = c,
			      .out = out,
			      .t0 = monotonic_ns(),
			      .elsewhere = c->on_host && !host_is_this_machine(c->connect_uri)};
	int rc = -1;
	k.complete = calloc(c->suite->nr_scenarios + 1, sizeof(*k.complete));
	if (!k.complete)
		return errbuf_printf(err, errlen, "out of memory");
	/* on a --connect host libvirt reports what it cannot run, run by run */
	char params_why[PATH_MAX + 512] = "";
	enum check_outcome params = CHECK_PASS;
	if (c->on_host)
		k.kvm_ok = true;
	else
		probe_kvm(&k);
	/* a host of this machine runs under its parameters, whoever set them */
	if (!k.elsewhere)
		params = params_not_own(params_why, sizeof(params_why));
	for (unsigned i = 0; i < c->suite->nr_scenarios && !interrupt_requested(); i++) {
		const struct scenario *s = &c->suite->scenarios[i];
		if (selected(c, s) && run_scenario(&k, s))
			goto out;
	}
	out->interrupted = interrupt_requested();
	if (check_judge_figures(&k) || order_cases(&k))
		goto out;
	const bool params_failed = params == CHECK_FAIL;
	if (params_why[0] &&
	    check_result_add(out, "host", "ple-params", params, "%s%s", params_why,
			     c->record && params_failed ? "; no baseline recorded" : ""))
		goto out;
	if (c->record && !params_failed && check_record_baseline(&k))
		goto out;
	out->seconds = elapsed_s(&k);
	rc = 0;
out:
	check_trace_end(&k.trace);
	check_free_samples(&k);
	free(k.complete);
	if (rc)
		errbuf_printf(err, errlen, "out of memory");
	return rc;
}
