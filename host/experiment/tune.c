// SPDX-License-Identifier: GPL-2.0
#include "experiment/tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/experiment.h"
#include "model/tune_figures.h"
#include "output/units.h"
#include "ple/param_session.h"
#include "util/clock.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"
#include "util/strfmt.h"
#include "util/wall_clock.h"

struct driver {
	const struct tune_request *req;
	struct run_plan on, off;
	struct ple_session session;
	struct tune_result *out;
	struct sweep_curve *curve;
	uint64_t t0;
	char notes[TUNE_MAX_SHAPES][256];
};

unsigned tune_plan_shapes(const struct run_plan *p)
{
	return p->nr_backends * p->nr_vcpu_counts * p->nr_locks * p->nr_ples * p->nr_relaxes *
	       (p->nr_halt_polls ? p->nr_halt_polls : 1);
}

static bool only_pvqspin(const struct run_plan *p)
{
	return p->nr_locks == 1 && p->locks[0] == PLERIG_LOCK_PVQSPIN;
}

/* The parameter to search when none was named: the host's window, or halt polling. */
static int choose_param(const struct tune_request *req, const struct ple_host *h, char *name,
			size_t len, char *why, size_t whylen, char *err, size_t errlen)
{
	struct ple_param hp;
	char hp_why[512];
	if (req->param) {
		str_copy(name, len, req->param);
		return 0;
	}
	if (only_pvqspin(req->plan)) {
		str_copy(name, len, "halt_poll_ns");
		errbuf_printf(
		    why, whylen,
		    "the shapes are pvqspin guests, which halt rather than spin long: halt "
		    "polling is what acts on them (--param ple_window for the window)");
		return 0;
	}
	if (h->vendor == PLE_VENDOR_VMX || h->vendor == PLE_VENDOR_SVM) {
		str_copy(name, len,
			 h->vendor == PLE_VENDOR_VMX ? "ple_window" : "pause_filter_count");
		errbuf_printf(why, whylen, "the PAUSE-loop window of %s", h->module);
		return 0;
	}
	if (!h->module[0])
		return errbuf_printf(err, errlen,
				     "nothing to tune: no KVM module is loaded under %s (neither "
				     "kvm_intel, kvm_amd nor kvm_pvm)",
				     h->root);
	if (ple_core_read(h->root, "halt_poll_ns", &hp, hp_why, sizeof(hp_why)))
		return errbuf_printf(err, errlen,
				     "nothing to tune: KVM here is %s, which has no PAUSE-loop "
				     "exiting parameter, and halt polling: %s",
				     h->module, hp_why);
	if (!hp.writable)
		return errbuf_printf(err, errlen,
				     "nothing to tune: KVM here is %s, which has no PAUSE-loop "
				     "exiting parameter, and %s/module/kvm/parameters/halt_poll_ns "
				     "is %s (mode %04o)",
				     h->module, h->root,
				     hp.mode & 0222 ? "writable only by its owner: run as root"
						    : "read-only",
				     hp.mode);
	str_copy(name, len, "halt_poll_ns");
	errbuf_printf(
	    why, whylen,
	    "KVM here is %s, which has no PAUSE-loop exiting parameter: halt polling is what "
	    "there is to tune",
	    h->module);
	return 0;
}

/* Per-VM PAUSE exits off is a candidate only where the host and every backend have it. */
static void ple_off_eligible(struct driver *d, struct tune_config *cfg)
{
	const struct tune_request *req = d->req;
	char *why = d->out->ple_off_why;
	const size_t len = sizeof(d->out->ple_off_why);
	cfg->space.ple_off = false;
	if (!req->ple_off) {
		errbuf_printf(why, len, "left out (--no-ple-off)");
		return;
	}
	if (!cfg->space.info->window || !strcmp(cfg->space.info->module, "kvm")) {
		errbuf_printf(why, len, "not a question for %s", cfg->space.param);
		return;
	}
	if (d->session.host.vendor != PLE_VENDOR_VMX && d->session.host.vendor != PLE_VENDOR_SVM) {
		errbuf_printf(why, len, "no hardware PLE on this host (%s)",
			      d->session.host.module);
		return;
	}
	for (unsigned i = 0; i < req->plan->nr_backends; i++) {
		enum backend_kind b = req->plan->backends[i];
		if (b == BACKEND_NATIVE || b == BACKEND_LIBVIRT_TCG) {
			errbuf_printf(why, len, "the %s backend has no PAUSE exits to turn off",
				      backend_name(b));
			return;
		}
	}
	cfg->space.ple_off = true;
}

static double elapsed(void *ctx)
{
	const struct driver *d = ctx;
	return (double)(monotonic_ns() - d->t0) * 1e-9;
}

static int measure(void *ctx, const struct tune_search *s, const struct tune_candidate *c,
		   struct tune_visit *v, char *err, size_t errlen)
{
	struct driver *d = ctx;
	const bool off = c->roles & TUNE_ROLE_PLE_OFF;
	const struct experiment_output out = {.rows = NULL, .who = "plerig tune"};
	struct ple_setting set;
	struct outcome rep;
	char rerr[ERRBUF_SIZE], what[128];

	if (interrupt_requested())
		return 128 + interrupt_signal();
	str_copy(set.name, sizeof(set.name), s->cfg.space.param);
	snprintf(set.value, sizeof(set.value), "%llu", (unsigned long long)c->value);
	if (off)
		snprintf(what, sizeof(what), "plerig tune at PLE off per VM");
	else
		snprintf(what, sizeof(what), "plerig tune at %s=%s", set.name, set.value);
	/* a value the parameter holds already (the last visit's) is not set again: no reload */
	if (!off && v->write && ple_session_apply(&d->session, &set, 1, err, errlen))
		return -1;
	if (experiment_run(off ? &d->off : &d->on, d->req->guest_path, what, &out, &rep, rerr,
			   sizeof(rerr))) {
		outcome_free(&rep);
		return errbuf_printf(err, errlen, "%s", rerr);
	}
	if (rep.interrupted || interrupt_requested()) {
		outcome_free(&rep);
		return 128 + interrupt_signal();
	}
	if (rep.nr_series != s->cfg.nr_shapes) {
		outcome_free(&rep);
		return errbuf_printf(err, errlen, "internal error: %u shapes ran, %u planned",
				     rep.nr_series, s->cfg.nr_shapes);
	}
	for (unsigned k = 0; k < rep.nr_series; k++)
		tune_visit_figures(&rep.series[k], d->req->metric, k, v, d->notes[k],
				   sizeof(d->notes[k]));
	if (!d->out->host_valid && !off) {
		d->out->host = rep.host;
		d->out->host_valid = true;
		for (unsigned k = 0; k < rep.nr_series; k++)
			tune_shape_of(&rep.series[k].variant, &d->out->search.cfg.shapes[k]);
	}
	if (!off) {
		d->curve->round = s->round;
		if (sweep_curve_add_report(d->curve, &rep, &set))
			snprintf(v->error, sizeof(v->error), "out of memory for the curve");
	}
	outcome_free(&rep);
	return 0;
}

static void progress(void *ctx, const struct tune_search *s, const struct tune_visit *v)
{
	const struct driver *d = ctx;
	const struct tune_candidate *c = &s->cands[v->cand];
	char line[512], num[UNITS_BUF_SIZE];
	size_t used = 0;
	if (d->req->quiet)
		return;
	if (c->roles & TUNE_ROLE_PLE_OFF)
		used += (size_t)snprintf(line, sizeof(line), "PLE off per VM:");
	else
		used += (size_t)snprintf(line, sizeof(line), "%s=%llu:", s->cfg.space.param,
					 (unsigned long long)c->value);
	for (unsigned k = 0; k < s->cfg.nr_shapes && used < sizeof(line); k++)
		used +=
		    (size_t)snprintf(line + used, sizeof(line) - used, " %s",
				     v->ok[k] ? units_count(v->y[k], num, sizeof(num)) : "FAILED");
	printable_printf(stderr, "plerig tune: [%u] %s %u, round %u: %s %s (%.0f s)\n",
			 s->nr_visits,
			 s->kind == TUNE_STAGE_SEARCH ? "stage" : "confirming after stage",
			 s->stage, s->round + 1, line, d->req->metric->name, s->elapsed_s);
}

/* "name=value ..." of the saved originals, or of their values now. */
static void values_text(const struct ple_session *ses, bool now, char *buf, size_t len)
{
	struct ple_host h;
	char err[ERRBUF_SIZE];
	size_t used = 0;
	buf[0] = '\0';
	bool read = now && !ple_host_detect(&h, ses->state.root, err, sizeof(err));
	for (unsigned i = 0; i < ses->state.n && used < len; i++) {
		const char *name = ses->state.orig[i].name, *value = ses->state.orig[i].value;
		struct ple_param core;
		if (now) {
			const struct ple_param *p = NULL;
			if (ple_param_is_core(name))
				p = ple_core_read(ses->state.root, name, &core, err, sizeof(err))
					? NULL
					: &core;
			else if (read)
				p = ple_host_param(&h, name);
			value = p ? p->value : "(unreadable)";
		}
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "", name, value);
	}
}

static int begin(struct driver *d, struct tune_config *cfg, char *err, size_t errlen)
{
	const struct tune_request *req = d->req;
	struct ple_host h;
	char name[PLE_NAME_LEN];
	int rc = ple_host_detect(&h, ple_sysfs_root(), err, errlen);
	if (rc)
		return rc;
	if (choose_param(req, &h, name, sizeof(name), d->out->param_why, sizeof(d->out->param_why),
			 err, errlen))
		return -1;
	tune_config_defaults(cfg);
	if (tune_space_init(&cfg->space, name, err, errlen))
		return -1;
	if (req->range_given && tune_space_set_range(&cfg->space, req->lo, req->hi, err, errlen))
		return -1;
	const char *names[1] = {name};
	if (ple_session_begin(&d->session, names, 1, err, errlen))
		return -1;
	for (unsigned i = 0; i < d->session.state.n; i++)
		if (!strcmp(d->session.state.orig[i].name, name)) {
			cfg->space.has_current = true;
			cfg->space.current = strtoull(d->session.state.orig[i].value, NULL, 10);
		}
	str_copy(d->out->module, sizeof(d->out->module),
		 ple_param_is_core(name) ? "kvm" : d->session.host.module);
	d->out->runtime_writable =
	    ple_param_is_core(name) ||
	    ple_decide(&d->session.host, name, NULL, 0) == PLE_METHOD_RUNTIME;
	values_text(&d->session, false, d->out->before, sizeof(d->out->before));
	return 0;
}

static void plans(struct driver *d)
{
	d->on = *d->req->plan;
	d->on.quiet = true;
	d->on.json_path = d->on.csv_path = d->on.report_path = NULL;
	d->on.nr_ples = 1;
	d->on.ples[0] = PLE_ON;
	d->on.reference_axis = REFERENCE_AUTO;
	d->off = d->on;
	d->off.ples[0] = PLE_OFF;
}

int tune_run(const struct tune_request *req, struct tune_result *out, struct sweep_curve *curve,
	     char *err, size_t errlen)
{
	/* the session holds the saved originals: large, and there is one */
	static struct driver d;
	struct tune_config cfg;
	struct ple_setting axis;

	memset(&d, 0, sizeof(d));
	memset(out, 0, sizeof(*out));
	d.req = req;
	d.out = out;
	d.curve = curve;
	d.t0 = monotonic_ns();
	wall_clock_iso(wall_clock_now(), out->date, sizeof(out->date));
	out->metric = req->metric;
	str_copy(out->command_line, sizeof(out->command_line),
		 req->command_line ? req->command_line : "plerig tune");
	memset(&axis, 0, sizeof(axis));
	sweep_curve_init(curve, &axis, 0);
	if (begin(&d, &cfg, err, errlen))
		return TUNE_REFUSED;
	str_copy(axis.name, sizeof(axis.name), cfg.space.param);
	sweep_curve_init(curve, &axis, 1);
	curve->seed = req->seed;
	plans(&d);
	ple_off_eligible(&d, &cfg);
	cfg.nr_shapes = tune_plan_shapes(&d.on);
	cfg.better = req->metric->better;
	cfg.tolerance_pct = req->tolerance_pct;
	cfg.budget_s = req->budget_s;
	cfg.max_visits = req->max_visits;
	cfg.seed = req->seed;
	pause_cost_measure(&out->pause);

	int status = 0;
	if (tune_search_init(&out->search, &cfg)) {
		errbuf_printf(err, errlen, "internal error: the search could not begin");
		status = 1;
	} else {
		const struct tune_probe probe = {
		    .ctx = &d, .measure = measure, .elapsed_s = elapsed, .progress = progress};
		status = tune_search_run(&out->search, &probe);
		if (out->search.stop == TUNE_STOP_ERROR) {
			errbuf_printf(err, errlen, "%s", out->search.error);
			status = 1;
		}
	}
	char rerr[ERRBUF_SIZE];
	if (ple_session_restore(&d.session, rerr, sizeof(rerr))) {
		printable_printf(stderr, "plerig tune: restoring the original values: %s\n", rerr);
		if (!status)
			status = 1;
	} else if (!req->quiet) {
		printable_printf(stderr, "plerig tune: original %s parameters restored\n",
				 out->module);
	}
	values_text(&d.session, true, out->after, sizeof(out->after));
	for (unsigned k = 0; k < cfg.nr_shapes && k < TUNE_MAX_SHAPES; k++)
		str_copy(out->search.cfg.shapes[k].note, sizeof(out->search.cfg.shapes[k].note),
			 d.notes[k]);
	curve->rounds = out->search.round ? out->search.round : 1;
	tune_recommend(&out->search, &out->rec);
	for (unsigned i = 0; i < out->search.nr_visits; i++)
		for (unsigned k = 0; k < cfg.nr_shapes; k++)
			if (!out->search.visits[i].ok[k]) {
				out->failed_visits++;
				break;
			}
	out->seconds = elapsed(&d);
	if (!status && (out->failed_visits || !out->rec.nr_resolved))
		status = 1;
	return status;
}
