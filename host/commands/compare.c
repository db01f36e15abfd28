// SPDX-License-Identifier: GPL-2.0
/* `plerig compare BASE.json NEW.json`: load both, match, judge, print; the exit status says. */
#include "commands/commands.h"

#include <stdio.h>
#include <string.h>

#include "cli/compare_options.h"
#include "compare/compare.h"
#include "compare/compare_output.h"
#include "util/errbuf.h"
#include "util/printable.h"

static void explain_bad_set(const struct comparison_set *c)
{
	if (!c->nr_matches) {
		printable_printf(
		    stderr,
		    "plerig compare: no variant in common: %s has %u, %s has %u, and none "
		    "matches on backend, lock, relax, ring, vms, vcpus, pcpus, pin, "
		    "cs_cycles, think_cycles, ple\n",
		    c->base->path, c->base->nr_variants, c->cand->path, c->cand->nr_variants);
		return;
	}
	/* figures these files do not have at all: no --repeat would give them */
	const struct metric_comparison *na = NULL;
	bool only_na = true;
	for (unsigned i = 0; i < c->nr_matches; i++)
		for (unsigned r = 0; r < c->nr_metrics; r++) {
			const struct metric_comparison *row = &c->matches[i].rows[r];
			if (row->judgement.verdict != VERDICT_UNTESTABLE)
				continue;
			if (!metric_comparison_na(row))
				only_na = false;
			else if (!na)
				na = row;
		}
	if (na && only_na) {
		printable_printf(
		    stderr,
		    "plerig compare: nothing testable: what --metric asks for is n/a in these "
		    "files (%s: %s); compare a figure they have\n",
		    na->metric->name, metric_comparison_na(na));
		return;
	}
	fprintf(stderr,
		"plerig compare: nothing testable: every comparison has fewer than 2 ok runs "
		"(with a value) on a side, or no spread; rerun `plerig run` with --repeat >= 2 "
		"(5 or more to see changes of a few %%)\n");
}

int cmd_compare(int argc, char **argv, const char *guest_path)
{
	struct compare_options o;
	struct results_file base, cand;
	struct comparison_set c;
	char err[ERRBUF_SIZE];
	int status;

	(void)guest_path;
	switch (compare_options_parse(argc, argv, &o, err, sizeof(err))) {
	case 1:
		return COMPARE_EXIT_OK;
	case 0:
		break;
	default:
		printable_printf(stderr, "plerig compare: %s\n", err);
		return COMPARE_EXIT_BAD_INPUT;
	}
	if (check_outputs("plerig compare", "--json", o.json_path, NULL, NULL))
		return COMPARE_EXIT_BAD_INPUT;
	if (results_file_load(o.base_path, o.metrics, o.nr_metrics, &base, err, sizeof(err))) {
		printable_printf(stderr, "plerig compare: %s\n", err);
		return COMPARE_EXIT_BAD_INPUT;
	}
	if (results_file_load(o.cand_path, o.metrics, o.nr_metrics, &cand, err, sizeof(err))) {
		printable_printf(stderr, "plerig compare: %s\n", err);
		results_file_free(&base);
		return COMPARE_EXIT_BAD_INPUT;
	}
	memset(&c, 0, sizeof(c));
	c.base = &base;
	c.cand = &cand;
	c.threshold_pct = o.threshold_pct;
	c.any_host = o.any_host;
	c.metrics = o.metrics;
	c.nr_metrics = o.nr_metrics;
	if (comparison_set_build(&c)) {
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
		printable_printf(stderr, "plerig compare: %s\n", err);
		status = COMPARE_EXIT_BAD_INPUT;
	}
out:
	comparison_set_free(&c);
	results_file_free(&cand);
	results_file_free(&base);
	return status;
}
