/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a tune's visits say, per shape and across them: the best value,
 * its gain over the host's current value and over the kernel default
 * with a 95 % CI (claimed only where the CI excludes 0 after Holm's
 * correction over every claim of the tune), how flat the optimum is,
 * per-VM PLE off against the best window, and one value for the whole
 * mix with each shape's loss. Claims come from the confirmation rounds
 * alone where they have two visits a side: the rounds that picked the
 * best would flatter it (the winner's curse).
 */
#ifndef PLERIG_TUNE_RECOMMEND_H
#define PLERIG_TUNE_RECOMMEND_H

#include <stdbool.h>
#include <stdint.h>

#include "model/tune_search.h"
#include "model/tune_stats.h"

#define TUNE_MAX_FLAT 8

enum tune_claim {
	TUNE_CLAIM_NONE,       /* nothing to compare with (no current value read) */
	TUNE_CLAIM_SAME,       /* it is the best value itself */
	TUNE_CLAIM_GAIN,       /* the CI of the gain lies above 0 (and Holm-adjusted p < 0.05) */
	TUNE_CLAIM_LOSS,       /* the CI lies below 0: the other one did better */
	TUNE_CLAIM_AS_GOOD,    /* the CI includes 0 and is narrower than the tolerance */
	TUNE_CLAIM_TOO_NOISY,  /* the CI includes 0 and is wider than the tolerance */
	TUNE_CLAIM_UNRESOLVED, /* fewer than 2 visits on a side */
};
/* "gain", "as good", "too noisy", ...: the JSON vocabulary */
const char *tune_claim_name(enum tune_claim c);

struct tune_comparison {
	int ref; /* the other candidate; -1: none */
	enum tune_claim claim;
	struct tune_diff d; /* vs current / default: the best's gain over ref; PLE off: off's over
			       the best */
	double p_holm;	    /* NaN: no test */
	bool from_confirm;  /* over the confirmation rounds only */
};

struct tune_flat {
	uint64_t lo, hi; /* values whose mean is within the tolerance of the best, contiguous */
	bool has_best;
};

struct tune_shape_rec {
	bool resolved;
	char why[256]; /* when not resolved */
	int best;
	struct tune_cell best_cell;
	struct tune_comparison vs_current, vs_default;
	struct tune_comparison ple_off; /* GAIN: off better than the best value; LOSS: worse */
	unsigned nr_flat;
	struct tune_flat flat[TUNE_MAX_FLAT];
	bool flat_everywhere; /* every value tried is within the tolerance */
	double spread_pct;    /* median relative stddev of the visits at one value */
	bool too_noisy;	      /* no claim could be made for noise */
	struct tune_diff mix; /* the mix's value against this shape's best */
	/*
	 * The best, or the flat range around it, reaches the least (-1) or the
	 * greatest (+1) value measured, not 0 nor PLE off, and the curve is
	 * neither flat everywhere nor too noisy: the optimum may lie beyond the
	 * range searched. 0: inside it.
	 */
	int edge;
	uint64_t edge_value;	     /* that end: the best, or the end of its flat range */
	uint64_t widen_lo, widen_hi; /* a range around it to search next; 0, 0: none is left */
	/*
	 * Values (and PLE off) whose visits split: some in another throughput
	 * regime than most (issue 27), left out of their figures; or no
	 * majority yet, and no figure. Where the shape's visits agree only.
	 */
	bool regime_rule; /* the shape's visits at one value agree: the rule applies */
	unsigned nr_split;
	int split[TUNE_MAX_CANDIDATES];
};

/* Where the answer to "PLE off?" changes with the over-commit, per family of shapes. */
struct tune_flip {
	char family[160];
	unsigned nr;
	double ratio[TUNE_MAX_SHAPES];
	int answer[TUNE_MAX_SHAPES]; /* +1 off better, -1 window better, 0 no difference, 2 unknown
				      */
	bool found;
	double below, above; /* it flips between these ratios */
};

struct tune_recommendation {
	unsigned nr_shapes, nr_resolved;
	struct tune_shape_rec shapes[TUNE_MAX_SHAPES];
	int mix; /* one value for every resolved shape; -1: none */
	double mix_worst_loss_pct;
	/*
	 * Worth changing the host's value to the mix's: some shape's best was
	 * shown better than the current value (a gain claimed), and the mix is
	 * not the current value. Else @change_why says why not.
	 */
	bool change;
	char change_why[256];
	unsigned nr_flips;
	struct tune_flip flips[TUNE_MAX_SHAPES];
};

void tune_recommend(const struct tune_search *s, struct tune_recommendation *out);

/*
 * "best at the lower edge 256 of the range searched (2^8..2^20, ...): the
 * optimum may lie below it; widen with --param ple_window=16..4096", for a
 * shape whose r->edge is set; "" when it is not.
 */
void tune_edge_note(const struct tune_search *s, const struct tune_shape_rec *r, char *buf,
		    size_t len);

#endif
