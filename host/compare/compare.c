// SPDX-License-Identifier: GPL-2.0
#include "compare/compare.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare_output.h"
#include "util/atomic_file.h"

struct compare_options {
	const char *base_path, *cand_path;
	double threshold_pct;
	const struct metric *metrics[32];
	unsigned nr_metrics;
	const char *json_path;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: plerig compare [OPTIONS] BASE.json NEW.json\n"
		"\n"
		"Did NEW get worse than BASE? Both are `plerig run --json` files (schema 2),\n"
		"best with --repeat 5 or more. Variants are matched by backend, lock, relax,\n"
		"ring, vms, vcpus, pcpus, pin, cs_cycles and think_cycles; for each match and\n"
		"metric, Welch's t-test on the per-run values of the ok runs gives the change\n"
		"of the mean, its p-value and 95%% confidence interval. A metric is worse\n"
		"when p < 0.05 and it moved at least the threshold in its bad direction.\n"
		"\n"
		"options:\n"
		"  --threshold PCT     smallest change that counts, in %% of the BASE mean\n"
		"                      (default: %g)\n"
		"  --metric NAME[,NAME...]\n"
		"                      metrics to compare (default: %s);\n"
		"                      any of:",
		COMPARE_DEFAULT_THRESHOLD_PCT, COMPARE_DEFAULT_METRICS);
	for (unsigned i = 0; i < nr_metrics; i++)
		fprintf(out, "%s %s", i ? (i % 4 ? "," : ",\n                     ") : "",
			metrics[i].name);
	fprintf(out, "\n"
		     "  --json FILE         the comparison as JSON (- for stdout; the table then\n"
		     "                      goes to stderr)\n"
		     "  -h, --help          this text\n"
		     "\n"
		     "Exit status: 0 nothing got worse; 1 something did, or NEW has more failed\n"
		     "runs than BASE; 2 bad input (unreadable, malformed, wrong schema, nothing\n"
		     "in common, or nothing testable: fewer than 2 ok runs on a side).\n");
}

static int parse_metrics(const char *list, struct compare_options *o, char *err, size_t errlen)
{
	char *copy = strdup(list), *save = NULL;

	if (!copy)
		return errbuf_printf(err, errlen, "out of memory");
	o->nr_metrics = 0;
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct metric *m = metric_by_name(name);
		if (!m) {
			char names[512] = "";
			for (unsigned i = 0; i < nr_metrics; i++)
				snprintf(names + strlen(names), sizeof(names) - strlen(names),
					 "%s%s", i ? ", " : "", metrics[i].name);
			errbuf_printf(err, errlen, "--metric: '%s' is not one of %s", name, names);
			free(copy);
			return -1;
		}
		bool dup = false;
		for (unsigned i = 0; i < o->nr_metrics; i++)
			dup |= o->metrics[i] == m;
		if (!dup && o->nr_metrics < sizeof(o->metrics) / sizeof(o->metrics[0]))
			o->metrics[o->nr_metrics++] = m;
	}
	free(copy);
	if (!o->nr_metrics)
		return errbuf_printf(err, errlen, "--metric: no metric named in '%s'", list);
	return 0;
}

static int parse_threshold(const char *s, double *out, char *err, size_t errlen)
{
	char *end;
	double v = strtod(s, &end);

	if (end != s && *end == '%') /* "2%" reads as meant */
		end++;
	if (end == s || *end || !isfinite(v) || v < 0.0 || v > 1000.0)
		return errbuf_printf(err, errlen,
				     "--threshold: '%s' is not a percentage from 0 to 1000", s);
	*out = v;
	return 0;
}

enum { OPT_THRESHOLD = 256, OPT_METRIC, OPT_JSON };

/* 1: --help printed; 0: go; -1: message in err. */
static int parse_options(int argc, char **argv, struct compare_options *o, char *err, size_t errlen)
{
	static const struct option long_options[] = {
	    {"threshold", required_argument, NULL, OPT_THRESHOLD},
	    {"metric", required_argument, NULL, OPT_METRIC},
	    {"json", required_argument, NULL, OPT_JSON},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->threshold_pct = COMPARE_DEFAULT_THRESHOLD_PCT;
	if (parse_metrics(COMPARE_DEFAULT_METRICS, o, err, errlen))
		return -1;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_THRESHOLD:
			if (parse_threshold(optarg, &o->threshold_pct, err, errlen))
				return -1;
			break;
		case OPT_METRIC:
			/* as with `plerig run` lists: the last one given wins */
			if (parse_metrics(optarg, o, err, errlen))
				return -1;
			break;
		case OPT_JSON:
			if (!*optarg)
				return errbuf_printf(err, errlen, "--json: empty file name");
			o->json_path = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case ':':
			return errbuf_printf(err, errlen, "%s needs a value", argv[optind - 1]);
		default:
			return errbuf_printf(err, errlen, "unknown option '%s' (see --help)",
					     argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return errbuf_printf(err, errlen,
				     "expected two results files, BASE.json NEW.json (got %d)",
				     argc - optind);
	o->base_path = argv[optind];
	o->cand_path = argv[optind + 1];
	return 0;
}

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
		unsigned na = results_file_values(m->base, c->metrics[i], a);
		unsigned nb = results_file_values(m->cand, c->metrics[i], b);

		row->metric = c->metrics[i];
		sample_stats_compute(a, na, &row->base);
		sample_stats_compute(b, nb, &row->cand);
		welch_test(a, na, b, nb, VERDICT_CONFIDENCE, &row->welch);
		verdict_judge(&row->base, &row->cand, &row->welch, row->metric->better,
			      c->threshold_pct, &row->judgement);
		c->verdicts[row->judgement.verdict]++;
	}
	m->more_failures = m->cand->nr_runs - m->cand->nr_ok > m->base->nr_runs - m->base->nr_ok;
	c->more_failures += m->more_failures;
	note_differences(m);
	free(a);
	free(b);
	return 0;
}

static int build_set(struct comparison_set *c)
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
		       (taken[j] || strcmp(A->variants[i].key, B->variants[j].key)))
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
	return 0;
}

static void free_set(struct comparison_set *c)
{
	for (unsigned i = 0; i < c->nr_matches; i++)
		free(c->matches[i].rows);
	free(c->matches);
	free(c->only_base);
	free(c->only_cand);
}

int comparison_set_status(const struct comparison_set *c)
{
	unsigned testable = 0;

	for (unsigned v = 0; v <= VERDICT_WORSE; v++)
		if (v != VERDICT_UNTESTABLE)
			testable += c->verdicts[v];
	if (!c->nr_matches)
		return COMPARE_EXIT_BAD_INPUT;
	/* runs that now fail are a regression even where nothing is left to test */
	if (c->verdicts[VERDICT_WORSE] || c->more_failures)
		return COMPARE_EXIT_REGRESSED;
	return testable ? COMPARE_EXIT_OK : COMPARE_EXIT_BAD_INPUT;
}

/* ---- main -------------------------------------------------------------- */

static void explain_bad_set(const struct comparison_set *c)
{
	if (!c->nr_matches) {
		fprintf(stderr,
			"plerig compare: no variant in common: %s has %u, %s has %u, and none "
			"matches on backend, lock, relax, ring, vms, vcpus, pcpus, pin, "
			"cs_cycles, think_cycles\n",
			c->base->path, c->base->nr_variants, c->cand->path, c->cand->nr_variants);
		return;
	}
	fprintf(stderr,
		"plerig compare: nothing testable: every comparison has fewer than 2 ok runs "
		"(with a value) on a side, or no spread; rerun `plerig run` with --repeat >= 2 "
		"(5 or more to see changes of a few %%)\n");
}

int compare_main(int argc, char **argv)
{
	struct compare_options o;
	struct results_file base, cand;
	struct comparison_set c;
	char err[1024];
	int status;

	switch (parse_options(argc, argv, &o, err, sizeof(err))) {
	case 1:
		return COMPARE_EXIT_OK;
	case 0:
		break;
	default:
		fprintf(stderr, "plerig compare: %s\n", err);
		return COMPARE_EXIT_BAD_INPUT;
	}
	if (results_file_load(o.base_path, o.metrics, o.nr_metrics, &base, err, sizeof(err))) {
		fprintf(stderr, "plerig compare: %s\n", err);
		return COMPARE_EXIT_BAD_INPUT;
	}
	if (results_file_load(o.cand_path, o.metrics, o.nr_metrics, &cand, err, sizeof(err))) {
		fprintf(stderr, "plerig compare: %s\n", err);
		results_file_free(&base);
		return COMPARE_EXIT_BAD_INPUT;
	}
	memset(&c, 0, sizeof(c));
	c.base = &base;
	c.cand = &cand;
	c.threshold_pct = o.threshold_pct;
	c.metrics = o.metrics;
	c.nr_metrics = o.nr_metrics;
	if (build_set(&c)) {
		fprintf(stderr, "plerig compare: out of memory\n");
		status = COMPARE_EXIT_BAD_INPUT;
		goto out;
	}
	status = comparison_set_status(&c);
	/* with the JSON on stdout, people read the table on stderr */
	compare_print_table(o.json_path && !strcmp(o.json_path, "-") ? stderr : stdout, &c);
	fflush(stdout);
	if (status == COMPARE_EXIT_BAD_INPUT)
		explain_bad_set(&c);
	if (o.json_path && compare_write_json(o.json_path, &c, err, sizeof(err))) {
		fprintf(stderr, "plerig compare: %s\n", err);
		status = COMPARE_EXIT_BAD_INPUT;
	}
out:
	free_set(&c);
	results_file_free(&cand);
	results_file_free(&base);
	return status;
}
