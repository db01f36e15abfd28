// SPDX-License-Identifier: GPL-2.0
#include "compare/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/holm.h"

/* ---- matching and judging ---------------------------------------------- */

static double member_double(const struct loaded_variant *v, const char *key)
{
	json_object *o = results_file_member(v, key);

	return o && (json_object_is_type(o, json_type_double) ||
		     json_object_is_type(o, json_type_int))
		   ? json_object_get_double(o)
		   : NAN;
}

/* Settings outside the identity that still change what is measured. */
static void note_differences(struct variant_match *m)
{
	static const char *const keys[] = {"stall_us", "warmup_s", "duration_s"};
	size_t used = 0;

	m->differences[0] = '\0';
	for (unsigned i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		double a = member_double(m->base, keys[i]), b = member_double(m->cand, keys[i]);
		if (a == b || (isnan(a) && isnan(b)))
			continue;
		int n = snprintf(m->differences + used, sizeof(m->differences) - used,
				 "%s%s %g vs %g", used ? ", " : "", keys[i], a, b);
		if (n < 0 || (size_t)n >= sizeof(m->differences) - used)
			break;
		used += (size_t)n;
	}
}

static int judge_match(struct comparison_set *c, struct variant_match *m)
{
	unsigned cap = m->base->nr_runs > m->cand->nr_runs ? m->base->nr_runs : m->cand->nr_runs;
	double *a = calloc(cap ? cap : 1, sizeof(*a)), *b = calloc(cap ? cap : 1, sizeof(*b));

	m->rows = calloc(c->nr_metrics, sizeof(*m->rows));
	if (!a || !b || !m->rows) {
		free(a);
		free(b);
		return -1;
	}
	for (unsigned i = 0; i < c->nr_metrics; i++) {
		struct metric_comparison *row = &m->rows[i];
		unsigned na = results_file_values(m->base, c->metrics[i], a, &row->base_why);
		unsigned nb = results_file_values(m->cand, c->metrics[i], b, &row->cand_why);

		row->metric = c->metrics[i];
		sample_stats_compute(a, na, &row->base);
		sample_stats_compute(b, nb, &row->cand);
		welch_test(a, na, b, nb, VERDICT_CONFIDENCE, &row->welch);
	}
	m->more_failures = m->cand->nr_runs - m->cand->nr_ok > m->base->nr_runs - m->base->nr_ok;
	c->more_failures += m->more_failures;
	note_differences(m);
	free(a);
	free(b);
	return 0;
}

/* Every row of every match is one family: Holm's correction, then the verdicts. */
static int judge_rows(struct comparison_set *c)
{
	unsigned n = c->nr_matches * c->nr_metrics, k = 0;
	double *p = calloc(n + 1, sizeof(*p));
	if (!p)
		return -1;
	for (unsigned i = 0; i < c->nr_matches; i++)
		for (unsigned r = 0; r < c->nr_metrics; r++) {
			const struct welch_result *w = &c->matches[i].rows[r].welch;
			p[k++] = w->valid ? w->p : NAN;
			c->nr_tested += w->valid;
		}
	holm_adjust(p, n, p);
	k = 0;
	for (unsigned i = 0; i < c->nr_matches; i++)
		for (unsigned r = 0; r < c->nr_metrics; r++) {
			struct metric_comparison *row = &c->matches[i].rows[r];
			struct welch_result w = row->welch;
			row->p_holm = p[k++];
			if (!isnan(row->p_holm))
				w.p = row->p_holm;
			verdict_judge(&row->base, &row->cand, &w, row->metric->better,
				      c->threshold_pct, &row->judgement);
			c->verdicts[row->judgement.verdict]++;
		}
	free(p);
	return 0;
}

/*
 * Where either file ran on several hosts, a variant pairs only with the
 * same host's (by label: a host keeps its name across runs), unless
 * --any-host asks otherwise; two one-host files compare whatever machines
 * they came from, as before there were hosts.
 */
static bool same_host(const struct comparison_set *c, const struct loaded_variant *a,
		      const struct loaded_variant *b)
{
	if (c->any_host || (c->base->nr_hosts < 2 && c->cand->nr_hosts < 2))
		return true;
	return !strcmp(a->host, b->host);
}

int comparison_set_build(struct comparison_set *c)
{
	const struct results_file *A = c->base, *B = c->cand;
	bool *taken = calloc(B->nr_variants + 1, sizeof(*taken));

	c->matches = calloc(A->nr_variants + 1, sizeof(*c->matches));
	c->only_base = calloc(A->nr_variants + 1, sizeof(*c->only_base));
	c->only_cand = calloc(B->nr_variants + 1, sizeof(*c->only_cand));
	if (!taken || !c->matches || !c->only_base || !c->only_cand) {
		free(taken);
		return -1;
	}
	/* the k-th BASE variant of an identity pairs with the k-th of NEW */
	for (unsigned i = 0; i < A->nr_variants; i++) {
		unsigned j = 0;
		while (j < B->nr_variants &&
		       (taken[j] || strcmp(A->variants[i].key, B->variants[j].key) ||
			!same_host(c, &A->variants[i], &B->variants[j])))
			j++;
		if (j == B->nr_variants) {
			c->only_base[c->nr_only_base++] = &A->variants[i];
			continue;
		}
		taken[j] = true;
		struct variant_match *m = &c->matches[c->nr_matches++];
		m->base = &A->variants[i];
		m->cand = &B->variants[j];
		if (judge_match(c, m)) {
			free(taken);
			return -1;
		}
	}
	for (unsigned j = 0; j < B->nr_variants; j++)
		if (!taken[j])
			c->only_cand[c->nr_only_cand++] = &B->variants[j];
	free(taken);
	return judge_rows(c);
}

void comparison_set_free(struct comparison_set *c)
{
	for (unsigned i = 0; i < c->nr_matches; i++)
		free(c->matches[i].rows);
	free(c->matches);
	free(c->only_base);
	free(c->only_cand);
}

const char *metric_comparison_na(const struct metric_comparison *r)
{
	if (!r->base.n && r->base_why)
		return r->base_why;
	if (!r->cand.n && r->cand_why)
		return r->cand_why;
	return NULL;
}

/* A module a file names that says which KVM ran: not "unknown", "none" or absent. */
static bool module_known(const char *m)
{
	return m && *m && strcmp(m, "unknown") && strcmp(m, "none");
}

bool comparison_set_other_hardware(const struct comparison_set *c, const char **base,
				   const char **cand)
{
	*base = c->base->kvm_module;
	*cand = c->cand->kvm_module;
	return module_known(*base) && module_known(*cand) && strcmp(*base, *cand);
}

int comparison_set_status(const struct comparison_set *c)
{
	unsigned testable = 0;

	for (unsigned v = 0; v <= VERDICT_WORSE; v++)
		if (v != VERDICT_UNTESTABLE)
			testable += c->verdicts[v];
	if (!c->nr_matches)
		return COMPARE_EXIT_BAD_INPUT;
	/* two vendors' KVM: what differs is the hardware, not a change that regressed */
	const char *a, *b;
	if (comparison_set_other_hardware(c, &a, &b))
		return testable || c->more_failures ? COMPARE_EXIT_OK : COMPARE_EXIT_BAD_INPUT;
	/* runs that now fail are a regression even where nothing is left to test */
	if (c->verdicts[VERDICT_WORSE] || c->more_failures)
		return COMPARE_EXIT_REGRESSED;
	return testable ? COMPARE_EXIT_OK : COMPARE_EXIT_BAD_INPUT;
}
