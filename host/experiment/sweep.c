// SPDX-License-Identifier: GPL-2.0
#include "experiment/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment/experiment.h"
#include "experiment/schedule.h"
#include "ple/param_session.h"
#include "output/ple_notes.h"
#include "output/stats_table.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/printable.h"

struct sweep {
	const struct sweep_grid *grid;
	const struct run_plan *plan;
	const char *guest_path;
	struct ple_session session;
	struct sweep_curve *curve;
};

static void describe(const struct ple_setting *set, unsigned n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "",
					 set[i].name, set[i].value);
}

/*
 * One experiment at the current setting. Its rows and tables go to
 * stderr as progress: stdout holds only the curve. Returns the
 * experiment's status (0, 1, 128+N).
 */
static int run_point(struct sweep *s, const struct ple_setting *set, const char *what)
{
	const struct experiment_output out = {.rows = stderr, .who = "plerig sweep"};
	struct outcome rep;
	char err[ERRBUF_SIZE], command_line[320];
	snprintf(command_line, sizeof(command_line), "plerig sweep at %s", what);
	int status = 1;
	if (experiment_run(s->plan, s->guest_path, command_line, &out, &rep, err, sizeof(err))) {
		printable_printf(stderr, "plerig sweep: %s\n", err);
		sweep_curve_add_failure(s->curve, set, err);
		goto out;
	}
	if (!s->plan->quiet) {
		ple_notes_print(stderr, &rep);
		if (s->plan->repeat > 1) {
			stats_table_print(stderr, &rep);
			comparison_table_print(stderr, &rep);
		}
	}
	status = experiment_status(&rep);
	if (rep.nr_series == 0 || sweep_curve_add_report(s->curve, &rep, set)) {
		sweep_curve_add_failure(
		    s->curve, set, rep.nr_series ? "out of memory" : "the run measured nothing");
		status = 1;
	}
out:
	outcome_free(&rep);
	return status;
}

/*
 * Every combination in turn; with rounds, every combination once a round,
 * in a new shuffled order each round (the schedule of plerig run
 * --order shuffle), so that drift of the host lands on every value alike.
 * Returns the exit status so far (0, 1 or 128+N).
 */
static int sweep_all(struct sweep *s)
{
	const unsigned rounds = s->curve->rounds;
	unsigned total;
	int status = 0;
	char err[ERRBUF_SIZE], what[256];
	struct slot *slots =
	    schedule_plan(rounds > 1 ? ORDER_SHUFFLE : ORDER_INTERLEAVE, sweep_points(s->grid), 0,
			  rounds, s->curve->seed, &total);
	if (!slots) {
		fprintf(stderr, "plerig sweep: out of memory\n");
		return 1;
	}
	for (unsigned k = 0; k < total; k++) {
		struct ple_setting set[PLE_MAX_PARAMS];
		if (interrupt_requested())
			break;
		sweep_point_settings(s->grid, slots[k].variant, set);
		describe(set, s->grid->nr_axes, what, sizeof(what));
		printable_printf(stderr, "plerig sweep: [%u/%u] %s\n", k + 1, total, what);
		s->curve->round = slots[k].round;
		if (ple_session_apply(&s->session, set, s->grid->nr_axes, err, sizeof(err))) {
			printable_printf(stderr, "plerig sweep: %s\n", err);
			sweep_curve_add_failure(s->curve, set, err);
			status = 1;
			break;
		}
		int rc = run_point(s, set, what);
		if (rc >= 128) { /* interrupted: what was measured is on the curve */
			status = rc;
			break;
		}
		if (rc)
			status = 1;
	}
	free(slots);
	return status;
}

int sweep_run(const struct sweep_grid *grid, const struct run_plan *plan, const char *guest_path,
	      unsigned rounds, unsigned long long seed, struct sweep_curve *curve)
{
	/* the session holds the saved originals: large, and there is one */
	static struct sweep s;
	const char *names[PLE_MAX_PARAMS];
	struct ple_setting axes[PLE_MAX_PARAMS];
	char err[ERRBUF_SIZE];

	memset(&s, 0, sizeof(s));
	s.grid = grid;
	s.plan = plan;
	s.guest_path = guest_path;
	s.curve = curve;
	for (unsigned i = 0; i < grid->nr_axes; i++) {
		names[i] = grid->axes[i].name;
		snprintf(axes[i].name, sizeof(axes[i].name), "%s", grid->axes[i].name);
	}
	sweep_curve_init(curve, axes, grid->nr_axes);
	curve->rounds = rounds ? rounds : 1;
	curve->seed = seed;
	if (curve->rounds > 1)
		fprintf(stderr, "plerig sweep: %u rounds in shuffled order, --seed %llu\n",
			curve->rounds, seed);
	if (ple_session_begin(&s.session, names, grid->nr_axes, err, sizeof(err))) {
		printable_printf(stderr, "plerig sweep: %s\n", err);
		return SWEEP_REFUSED;
	}
	int status = sweep_all(&s);
	if (ple_session_restore(&s.session, err, sizeof(err))) {
		printable_printf(stderr, "plerig sweep: restoring the original values: %s\n", err);
		if (status == 0)
			status = 1;
	} else {
		printable_printf(stderr, "plerig sweep: original %s parameters restored\n",
				 s.session.state.module);
	}
	return status;
}
