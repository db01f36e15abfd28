// SPDX-License-Identifier: GPL-2.0
#include "output/ple_notes.h"

#include <stdbool.h>
#include <string.h>

#include "model/backend_limits.h"
#include "output/exit_times_writer.h"
#include "output/halt_path_writer.h"
#include "util/printable.h"

#define MAX_NOTES 16

struct note {
	const char *text;
	const char *label;	      /* "ple-exits n/a", "note", "run-delay n/a" */
	bool backends[BACKEND_COUNT]; /* which backends said it */
};

static void note_add(struct note *notes, unsigned *n, const char *text, const char *label,
		     enum backend_kind b)
{
	if (!text || !text[0])
		return;
	for (unsigned k = 0; k < *n; k++) {
		if (!strcmp(notes[k].text, text) && !strcmp(notes[k].label, label)) {
			notes[k].backends[b] = true;
			return;
		}
	}
	if (*n == MAX_NOTES)
		return;
	notes[*n] = (struct note){.text = text, .label = label};
	notes[(*n)++].backends[b] = true;
}

void ple_notes_print(FILE *f, const struct outcome *rep)
{
	struct note notes[MAX_NOTES];
	unsigned n = 0;
	for (unsigned i = 0; i < rep->nr_series; i++) {
		const struct series *s = &rep->series[i];
		/* the table's ple and halt-poll n/a */
		note_add(notes, &n, variant_ple_na(&s->variant), "ple n/a", s->variant.backend);
		note_add(notes, &n, variant_halt_poll_na(&s->variant), "halt-poll n/a",
			 s->variant.backend);
		for (unsigned r = 0; r < s->nr_runs; r++) {
			const struct variant_result *run = &s->runs[r];
			note_add(notes, &n, run->ple_why, "ple-exits n/a", s->variant.backend);
			note_add(notes, &n, run->ple_note, "note", s->variant.backend);
			note_add(notes, &n, run->sched_why, "run-delay n/a", s->variant.backend);
			note_add(notes, &n, run->sched_note, "run-delay", s->variant.backend);
			if (!run->ok)
				continue;
			/* a figure the table shows as n/a, and why (model/results.h) */
			struct figures f;
			figures_for_variant(run, &f);
			note_add(notes, &n, f.rate_why, "acq/s n/a", s->variant.backend);
			note_add(notes, &n, f.wait_why, "wait n/a", s->variant.backend);
			note_add(notes, &n, f.stalled_why, "stalled n/a", s->variant.backend);
			note_add(notes, &n, f.share_why, "run-delay n/a", s->variant.backend);
			note_add(notes, &n, f.exits_why, "exits n/a", s->variant.backend);
		}
	}
	for (unsigned k = 0; k < n; k++) {
		printable_printf(f, "%s (", notes[k].label);
		const char *sep = "";
		for (unsigned b = 0; b < BACKEND_COUNT; b++) {
			if (notes[k].backends[b]) {
				printable_printf(f, "%s%s", sep,
						 backend_name((enum backend_kind)b));
				sep = ", ";
			}
		}
		printable_printf(f, "): %s\n", notes[k].text);
	}
	exit_times_print(f, rep);
	halt_path_print(f, rep);
}
