/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From the experiment engine's report to a tune's terms: each variant of
 * the run matrix is a shape of guest, and one visit's figures for a shape
 * are its series' ok runs averaged (the objective and the cost curve).
 */
#ifndef PLERIG_TUNE_FIGURES_H
#define PLERIG_TUNE_FIGURES_H

#include "model/metrics.h"
#include "model/outcome.h"
#include "model/tune_search.h"

/* The shape @v stands for: its label, its family (the label but for placement), its ratio. */
void tune_shape_of(const struct variant *v, struct tune_shape *out);

/*
 * Shape @k of visit @v from @s: ok when a run of it was, its objective
 * @m and the cost curve averaged over the ok runs (NaN where none has
 * the figure); v->error keeps the first failure. What a reader of the
 * shape must know (it ran as test-and-set, no PAUSE-loop exits here)
 * goes into @note when it is still empty.
 */
void tune_visit_figures(const struct series *s, const struct metric *m, unsigned k,
			struct tune_visit *v, char *note, size_t notelen);

#endif
