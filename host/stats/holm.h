/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Holm's step-down correction for testing many comparisons at once: with
 * 16 tests at p < 0.05 one of them is "significant" by chance in about
 * every other such family; Holm keeps the chance of any false positive in the family
 * at alpha, and is never less powerful than Bonferroni.
 */
#ifndef PLERIG_HOLM_H
#define PLERIG_HOLM_H

/*
 * Adjusted p-values of @p[0..n) into @adj (may be @p itself): sorted
 * ascending, the k-th smallest (from 0) times (m - k), made monotone and
 * capped at 1, where m counts the finite p-values. NaN (no test) stays NaN
 * and does not count in m. Compare adj[i] with alpha as one would p[i].
 */
void holm_adjust(const double *p, unsigned n, double *adj);

#endif
