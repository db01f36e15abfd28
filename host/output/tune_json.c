// SPDX-License-Identifier: GPL-2.0
/* The plerig-tune document (docs/tune.schema.json). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/tune_apply.h"
#include "model/tune_stats.h"
#include "output/json_util.h"
#include "output/tune_writer.h"

#ifndef PLERIG_VERSION
#define PLERIG_VERSION "unknown"
#endif

static json_object *value_or_null(const struct tune_search *s, int c)
{
	if (c < 0 || (s->cands[c].roles & TUNE_ROLE_PLE_OFF))
		return NULL;
	return json_object_new_uint64(s->cands[c].value);
}

static json_object *diff_json(const struct tune_diff *d)
{
	json_object *o = json_object_new_object();
	json_add_double(o, "gain_pct", d->gain_pct);
	json_add_double(o, "ci95_low", d->valid ? d->low : NAN);
	json_add_double(o, "ci95_high", d->valid ? d->high : NAN);
	json_add_double(o, "p", d->valid ? d->p : NAN);
	json_add_u64(o, "n_a", d->na);
	json_add_u64(o, "n_b", d->nb);
	json_add(o, "exact", json_object_new_boolean(d->exact));
	json_add_str(o, "untested_why", d->valid ? NULL : d->why);
	return o;
}

static json_object *comparison_json(const struct tune_search *s, const struct tune_comparison *c)
{
	json_object *o = diff_json(&c->d);
	json_add(o, "value", value_or_null(s, c->ref));
	json_add_str(o, "claim", tune_claim_name(c->claim));
	json_add_double(o, "p_holm", c->p_holm);
	json_add(o, "from_confirmation", json_object_new_boolean(c->from_confirm));
	return o;
}

static json_object *cell_json(const struct tune_cell *c)
{
	json_object *o = json_object_new_object();
	json_add_u64(o, "n", c->n);
	json_add_double(o, "mean", c->mean);
	json_add_double(o, "stddev", c->n >= 2 ? c->sd : NAN);
	json_add_double(o, "ci95_low", c->ci_low);
	json_add_double(o, "ci95_high", c->ci_high);
	return o;
}

static json_object *roles_json(unsigned roles)
{
	static const char *const names[] = {"grid", "current", "default", "zero", "ple_off"};
	json_object *a = json_object_new_array();
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (roles & (1u << i))
			json_object_array_add(a, json_object_new_string(names[i]));
	return a;
}

/* Shape @k's cost curve: per candidate visited, the objective and every figure. */
static json_object *curve_json(const struct tune_result *r, unsigned k)
{
	const struct tune_search *s = &r->search;
	json_object *a = json_object_new_array();
	for (unsigned c = 0; c < s->nr_cands; c++) {
		unsigned visits = 0;
		for (unsigned v = 0; v < s->nr_visits; v++)
			visits += s->visits[v].cand == c;
		if (!visits)
			continue;
		json_object *o = json_object_new_object(), *figs = json_object_new_object();
		struct tune_cell cell;
		json_add(o, "value", value_or_null(s, (int)c));
		json_add(o, "roles", roles_json(s->cands[c].roles));
		json_add_u64(o, "visits", visits);
		tune_cell(s, c, k, 0, -1, &cell);
		json_add(o, "objective", cell_json(&cell));
		json_add(o, "bimodal", json_object_new_boolean(cell.bimodal));
		json_add_u64(o, "other_regime", cell.other_regime);
		for (int f = 0; f < TUNE_FIG_COUNT; f++) {
			tune_cell(s, c, k, 0, f, &cell);
			json_add(figs, tune_fig_name(f), cell_json(&cell));
		}
		json_add(o, "figures", figs);
		json_object_array_add(a, o);
	}
	return a;
}

/* The best at an end of the range searched: null where it is not. */
static json_object *edge_json(const struct tune_search *s, const struct tune_shape_rec *rec)
{
	char note[512];
	tune_edge_note(s, rec, note, sizeof(note));
	if (!note[0])
		return NULL;
	json_object *o = json_object_new_object(), *widen = NULL;
	json_add_str(o, "side", rec->edge < 0 ? "lower" : "upper");
	json_add_u64(o, "value", rec->edge_value);
	if (rec->widen_lo) {
		widen = json_object_new_array();
		json_object_array_add(widen, json_object_new_uint64(rec->widen_lo));
		json_object_array_add(widen, json_object_new_uint64(rec->widen_hi));
	}
	json_add(o, "widen", widen);
	json_add_str(o, "note", note);
	return o;
}

/* The regime rule for shape @k: whether it applied, and the values whose visits split. */
static json_object *regimes_json(const struct tune_search *s, const struct tune_shape_rec *rec,
				 unsigned k)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	json_add(o, "applies", json_object_new_boolean(rec->regime_rule));
	json_add_double(o, "split_pct", TUNE_REGIME_SPLIT_PCT);
	json_add_double(o, "quiet_pct", TUNE_REGIME_QUIET_PCT);
	for (unsigned i = 0; i < rec->nr_split; i++) {
		json_object *v = json_object_new_object();
		struct tune_cell cell;
		tune_cell(s, (unsigned)rec->split[i], k, 0, -1, &cell);
		json_add(v, "value", value_or_null(s, rec->split[i]));
		json_add_u64(v, "agree", cell.n);
		json_add_u64(v, "other_regime", cell.other_regime);
		json_add_double(v, "median", s->cands[rec->split[i]].regime_median[k]);
		json_object_array_add(a, v);
	}
	json_add(o, "split", a);
	return o;
}

static json_object *shape_json(const struct tune_result *r, unsigned k)
{
	const struct tune_search *s = &r->search;
	const struct tune_shape *sh = &s->cfg.shapes[k];
	const struct tune_shape_rec *rec = &r->rec.shapes[k];
	json_object *o = json_object_new_object(), *flat = json_object_new_array();
	json_add_str(o, "label", sh->label);
	json_add_str(o, "family", sh->family);
	json_add_double(o, "ratio", sh->ratio);
	json_add(o, "pinned", json_object_new_boolean(sh->pinned));
	json_add_str(o, "note", sh->note[0] ? sh->note : NULL);
	json_add(o, "resolved", json_object_new_boolean(rec->resolved));
	json_add_str(o, "unresolved_why", rec->resolved ? NULL : rec->why);
	json_add(o, "best", rec->best >= 0 ? value_or_null(s, rec->best) : NULL);
	json_add(o, "best_objective", cell_json(&rec->best_cell));
	json_add(o, "vs_current", rec->resolved ? comparison_json(s, &rec->vs_current) : NULL);
	json_add(o, "vs_default", rec->resolved ? comparison_json(s, &rec->vs_default) : NULL);
	json_add(o, "ple_off",
		 rec->resolved && rec->ple_off.ref >= 0 ? comparison_json(s, &rec->ple_off) : NULL);
	for (unsigned i = 0; i < rec->nr_flat; i++) {
		json_object *f = json_object_new_object();
		json_add_u64(f, "low", rec->flat[i].lo);
		json_add_u64(f, "high", rec->flat[i].hi);
		json_add(f, "has_best", json_object_new_boolean(rec->flat[i].has_best));
		json_object_array_add(flat, f);
	}
	json_add(o, "flat", flat);
	json_add(o, "flat_everywhere", json_object_new_boolean(rec->flat_everywhere));
	json_add(o, "edge", edge_json(s, rec));
	json_add_double(o, "spread_pct", rec->spread_pct);
	json_add(o, "too_noisy", json_object_new_boolean(rec->too_noisy));
	json_add(o, "regimes", regimes_json(s, rec, k));
	json_add(o, "mix_loss", rec->resolved && r->rec.mix >= 0 ? diff_json(&rec->mix) : NULL);
	json_add(o, "curve", curve_json(r, k));
	return o;
}

static json_object *flips_json(const struct tune_result *r)
{
	json_object *a = json_object_new_array();
	static const char *const words[] = {"window", "same", "off"};
	for (unsigned i = 0; i < r->rec.nr_flips; i++) {
		const struct tune_flip *f = &r->rec.flips[i];
		json_object *o = json_object_new_object(), *pts = json_object_new_array();
		json_add_str(o, "family", f->family);
		for (unsigned j = 0; j < f->nr; j++) {
			json_object *p = json_object_new_object();
			json_add_double(p, "ratio", f->ratio[j]);
			json_add_str(p, "answer",
				     f->answer[j] == 2 ? "unknown" : words[f->answer[j] + 1]);
			json_object_array_add(pts, p);
		}
		json_add(o, "points", pts);
		json_object *between = NULL;
		if (f->found) {
			between = json_object_new_array();
			json_object_array_add(between, json_double(f->below));
			json_object_array_add(between, json_double(f->above));
		}
		json_add(o, "flips_between", between);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *visits_json(const struct tune_result *r)
{
	const struct tune_search *s = &r->search;
	json_object *a = json_object_new_array();
	for (unsigned i = 0; i < s->nr_visits; i++) {
		const struct tune_visit *v = &s->visits[i];
		json_object *o = json_object_new_object(), *sh = json_object_new_array();
		json_add(o, "value", value_or_null(s, (int)v->cand));
		json_add(o, "ple_off",
			 json_object_new_boolean(s->cands[v->cand].roles & TUNE_ROLE_PLE_OFF));
		json_add_u64(o, "round", v->round);
		json_add_u64(o, "stage", v->stage);
		json_add_double(o, "seconds", v->seconds);
		json_add(o, "set", json_object_new_boolean(v->write));
		json_add_str(o, "error", v->error[0] ? v->error : NULL);
		for (unsigned k = 0; k < s->cfg.nr_shapes; k++) {
			json_object *p = json_object_new_object();
			json_add(p, "ok", json_object_new_boolean(v->ok[k]));
			json_add_double(p, "objective", v->ok[k] ? v->y[k] : NAN);
			json_add(
			    p, "other_regime",
			    json_object_new_boolean(v->ok[k] && tune_visit_other_regime(s, v, k)));
			json_object_array_add(sh, p);
		}
		json_add(o, "shapes", sh);
		json_object_array_add(a, o);
	}
	return a;
}

static json_object *param_json(const struct tune_result *r)
{
	const struct tune_space *sp = &r->search.cfg.space;
	json_object *o = json_object_new_object(), *range = json_object_new_array();
	json_add_str(o, "name", sp->param);
	json_add_str(o, "module", r->module);
	json_add_str(o, "unit", sp->info->unit);
	json_add_str(o, "why", r->param_why[0] ? r->param_why : NULL);
	json_add_u64(o, "kernel_default", sp->kernel_default);
	json_add_str(o, "default_source", sp->info->default_source);
	json_add(o, "current", sp->has_current ? json_object_new_uint64(sp->current) : NULL);
	json_object_array_add(range, json_object_new_uint64(tune_space_value(sp, sp->lo)));
	json_object_array_add(range, json_object_new_uint64(tune_space_value(sp, sp->hi)));
	json_add(o, "range", range);
	json_add_double(o, "coarse_step_log2", sp->coarse);
	json_add_double(o, "fine_step_log2", sp->fine);
	json_add(o, "runtime_writable", json_object_new_boolean(r->runtime_writable));
	return o;
}

static json_object *apply_json(const struct tune_result *r)
{
	const struct tune_search *s = &r->search;
	struct tune_advice a;
	if (r->rec.mix < 0)
		return NULL;
	tune_advice_make(&s->cfg.space, r->module, s->cands[r->rec.mix].value, r->runtime_writable,
			 &a);
	json_object *o = json_object_new_object();
	json_add_u64(o, "value", s->cands[r->rec.mix].value);
	json_add(o, "change", json_object_new_boolean(r->rec.change));
	json_add_str(o, "keep_why", r->rec.change ? NULL : r->rec.change_why);
	json_add_str(o, "modprobe", a.modprobe);
	json_add_str(o, "runtime", a.runtime[0] ? a.runtime : NULL);
	json_add_str(o, "also", a.also);
	json_add_str(o, "guest", a.guest[0] ? a.guest : NULL);
	json_add_str(o, "qemu_ple_off", a.qemu);
	json_add_str(o, "qemu_ple_off_also", a.qemu_also);
	json_add_str(o, "libvirt_ple_off", a.libvirt);
	json_add_str(o, "libvirt_ple_off_also", a.libvirt_also);
	return o;
}

static json_object *provenance_json(const struct tune_result *r)
{
	json_object *o = json_object_new_object();
	json_add_str(o, "host", r->host_valid ? r->host.name : NULL);
	json_add_str(o, "kernel", r->host_valid ? r->host.kernel : NULL);
	json_add_str(o, "cpu_model", r->host_valid ? r->host.cpu_model : NULL);
	json_add_str(o, "plerig_version", PLERIG_VERSION);
	json_add_str(o, "command_line", r->command_line);
	json_add_str(o, "date", r->date[0] ? r->date : NULL);
	/* what its seconds are: null where they are this machine's */
	json_add_str(o, "clock", r->host_valid && r->host.clock[0] ? r->host.clock : NULL);
	json_add_str(o, "params_before", r->before);
	json_add_str(o, "params_after", r->after);
	json_add_double(o, "seconds", r->seconds);
	return o;
}

static json_object *pause_json(const struct tune_result *r)
{
	json_object *o = json_object_new_object();
	json_add_double(o, "tsc_cycles", r->pause.valid ? r->pause.tsc_cycles : NAN);
	json_add_double(o, "ns", r->pause.valid ? r->pause.ns : NAN);
	json_add_str(o, "unavailable", r->pause.valid ? NULL : r->pause.why);
	return o;
}

json_object *tune_result_json(const struct tune_result *r)
{
	const struct tune_search *s = &r->search;
	json_object *o = json_object_new_object(), *shapes = json_object_new_array();
	json_add_str(o, "schema", "plerig-tune");
	json_add(o, "schema_version", json_object_new_int(1));
	json_add_str(o, "plerig_version", PLERIG_VERSION);
	json_add(o, "param", param_json(r));
	json_add_str(o, "objective", r->metric->name);
	json_add_str(o, "better", metric_better_name(r->metric));
	json_add_double(o, "tolerance_pct", s->cfg.tolerance_pct);
	json_add_double(o, "budget_s", s->cfg.budget_s);
	json_add(o, "max_visits",
		 s->cfg.max_visits ? json_object_new_uint64(s->cfg.max_visits) : NULL);
	json_add_u64(o, "seed", s->cfg.seed);
	json_add_str(o, "stop", tune_stop_name(s->stop));
	json_add_u64(o, "rounds", s->round);
	json_add_u64(o, "writes", s->writes);
	json_add(o, "confirm_round",
		 s->confirm_round == TUNE_NO_ROUND ? NULL
						   : json_object_new_uint64(s->confirm_round));
	json_add(o, "resolved", json_object_new_boolean(r->rec.nr_resolved > 0));
	for (unsigned k = 0; k < s->cfg.nr_shapes; k++)
		json_object_array_add(shapes, shape_json(r, k));
	json_add(o, "shapes", shapes);
	json_object *mix = NULL;
	if (r->rec.mix >= 0) {
		mix = json_object_new_object();
		json_add(mix, "value", value_or_null(s, r->rec.mix));
		json_add_double(mix, "worst_loss_pct", r->rec.mix_worst_loss_pct);
	}
	json_add(o, "mix", mix);
	json_add_str(o, "ple_off_unavailable", r->ple_off_why[0] ? r->ple_off_why : NULL);
	json_add(o, "ple_off_flips", flips_json(r));
	json_add(o, "pause_cost", pause_json(r));
	json_add(o, "apply", apply_json(r));
	json_add(o, "provenance", provenance_json(r));
	json_add(o, "visits", visits_json(r));
	return o;
}

int tune_result_write_json(const struct tune_result *r, const char *path, char *err, size_t errlen)
{
	return json_document_write(tune_result_json(r), path, "tune", err, errlen);
}
