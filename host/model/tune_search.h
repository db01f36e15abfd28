/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The search of `plerig tune`, as pure logic: which settings to measure,
 * in which order, and when to stop. The caller measures (struct
 * tune_probe: the experiment engine on the host, a synthetic response
 * curve in the unit tests) and keeps the time.
 *
 * Coarse to fine on a log2 scale: the whole range at the coarse step,
 * every value visited in each of a few rounds, each round in a new
 * shuffled order; then around every peak of each shape's curve that is
 * within the tolerance of its best, the step halved, down to the finest;
 * then confirmation rounds of what is left. After every stage a value
 * shown worse than every shape's best by more than the tolerance (the
 * whole 95 % CI of the difference beyond it) is no longer visited. The
 * host's current value, the kernel default and per-VM PLE off are
 * visited to the end: the answer is about them. docs/tune.md says why
 * this is sound.
 */
#ifndef PLERIG_TUNE_SEARCH_H
#define PLERIG_TUNE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/tune_space.h"

#define TUNE_MAX_SHAPES	    16
#define TUNE_MAX_CANDIDATES 64
#define TUNE_NO_ROUND	    (~0u)

/* The cost curve: what each visit measured per shape besides the objective. NaN: n/a. */
enum tune_fig {
	TUNE_FIG_ACQ_PER_S,
	TUNE_FIG_WAIT_P99_NS,
	TUNE_FIG_LHP_PER_S,	  /* lock-holder preemptions */
	TUNE_FIG_PLE_EXITS_PER_S, /* PAUSE-loop exits */
	TUNE_FIG_YIELDS_ATTEMPTED_PER_S,
	TUNE_FIG_YIELDS_SUCCESSFUL_PER_S,
	TUNE_FIG_HALTS_PER_S, /* lock pvqspin */
	TUNE_FIG_KICKS_PER_S,
	TUNE_FIG_COUNT
};
/* "acq_per_s", ...: the JSON names */
const char *tune_fig_name(enum tune_fig f);

/* What a candidate stands for; a value may be several (the current one and the default). */
enum tune_role {
	TUNE_ROLE_GRID = 1u << 0,    /* on the log2 grid */
	TUNE_ROLE_CURRENT = 1u << 1, /* the host's value when the tune began */
	TUNE_ROLE_DEFAULT = 1u << 2, /* the kernel's default */
	TUNE_ROLE_ZERO = 1u << 3,    /* 0, a setting of its own (polling off, ...) */
	TUNE_ROLE_PLE_OFF = 1u << 4, /* per-VM PAUSE exits off; the parameter as it is */
};
/* A candidate the answer is about: measured to the end. */
#define TUNE_ROLES_KEPT (TUNE_ROLE_CURRENT | TUNE_ROLE_DEFAULT | TUNE_ROLE_PLE_OFF)

struct tune_candidate {
	uint64_t value;
	unsigned roles;
	double log2v;	/* NaN for 0 and for PLE off */
	unsigned stage; /* the stage that added it */
	bool active;	/* still visited */
	/*
	 * A kept candidate (TUNE_ROLES_KEPT) shown worse than every shape's
	 * best by more than the tolerance: not visited in the refinement
	 * stages, visited again in the confirmation rounds (the claims about
	 * it come from there).
	 */
	bool parked;
	/*
	 * Per shape, the median of its objective over every visit, where the
	 * shape's visits otherwise agree (tune_search_regimes); NaN elsewhere.
	 */
	double regime_median[TUNE_MAX_SHAPES];
};

/* A shape of guest: one variant of the run matrix. */
struct tune_shape {
	char label[160];  /* "kvm ticket pause kernel 1x2/0" */
	char family[160]; /* the label without the placement: shapes that differ by over-commit */
	double ratio;	  /* vCPUs per host CPU */
	bool pinned;
	char note[256]; /* what the runs said about it (ran as test-and-set, ...); "" none */
};

struct tune_visit {
	unsigned cand, round, stage;
	bool write;	/* the probe sets the value (false: the parameter holds it already) */
	double seconds; /* what the visit took, by the probe's clock */
	bool ok[TUNE_MAX_SHAPES];
	double y[TUNE_MAX_SHAPES]; /* the objective */
	double fig[TUNE_MAX_SHAPES][TUNE_FIG_COUNT];
	char error[256]; /* the first failure, "" none */
};

struct tune_config {
	struct tune_space space;
	unsigned nr_shapes;
	struct tune_shape shapes[TUNE_MAX_SHAPES];
	int better;		     /* the objective: +1 higher is better, -1 lower */
	double tolerance_pct;	     /* what counts as as good as the best */
	unsigned stage_rounds;	     /* rounds of each search stage (2) */
	unsigned min_confirm_rounds; /* before the answer may be called resolved (2) */
	double budget_s;
	unsigned max_visits; /* 0: only the budget stops it */
	unsigned long long seed;
};

enum tune_stop {
	TUNE_STOP_NONE,
	TUNE_STOP_RESOLVED,    /* every decision made: more rounds would not change it */
	TUNE_STOP_BUDGET,      /* the next visit would not fit in the budget */
	TUNE_STOP_VISITS,      /* --max-visits */
	TUNE_STOP_INTERRUPTED, /* Ctrl-C, SIGTERM */
	TUNE_STOP_ERROR,       /* a setting could not be made */
};
const char *tune_stop_name(enum tune_stop s);

enum tune_stage_kind { TUNE_STAGE_SEARCH, TUNE_STAGE_CONFIRM };

struct tune_search {
	struct tune_config cfg;
	unsigned nr_cands;
	struct tune_candidate cands[TUNE_MAX_CANDIDATES];
	unsigned nr_visits, cap;
	struct tune_visit *visits; /* in time order */
	unsigned round;		   /* the round under way */
	unsigned stage;		   /* 0: the coarse grid; each refinement one more */
	enum tune_stage_kind kind;
	double step;		/* the log2 step of the stage */
	unsigned confirm_round; /* its first round; TUNE_NO_ROUND before */
	enum tune_stop stop;
	int status; /* the probe's stop status (128+N), or 0 */
	double elapsed_s;
	char error[512]; /* TUNE_STOP_ERROR: why */
	/*
	 * Per shape: its visits at one value agree (the median relative MAD
	 * at most TUNE_REGIME_QUIET_PCT), so a visit more than
	 * TUNE_REGIME_SPLIT_PCT from its value's median is in another
	 * throughput regime and left out of that value's statistics
	 * (tune_search_regimes, after every visit).
	 */
	bool regime[TUNE_MAX_SHAPES];
	/*
	 * Visits that set another value than the one the parameter held (a
	 * module reload where it is not writable at run time); the probe
	 * leaves the value alone when it holds it already.
	 */
	unsigned writes;
	bool holding; /* the parameter holds @held (the host's own value at first) */
	uint64_t held;
};

struct tune_probe {
	void *ctx;
	/*
	 * Measure every shape at @c into @v (ok, y and fig per shape; a shape
	 * that failed is !ok, with v->error). 0 when measured; > 0 to stop
	 * (128+N after signal N, nothing measured); < 0 when the setting could
	 * not be made, with @err (the search stops).
	 */
	int (*measure)(void *ctx, const struct tune_search *s, const struct tune_candidate *c,
		       struct tune_visit *v, char *err, size_t errlen);
	/* Seconds since the tune began. */
	double (*elapsed_s)(void *ctx);
	/* After each visit (NULL: nothing). */
	void (*progress)(void *ctx, const struct tune_search *s, const struct tune_visit *v);
};

/* The defaults of a config: 2 rounds a stage, 2 confirmation rounds, tolerance 5 %. */
void tune_config_defaults(struct tune_config *c);

/* Candidates of the coarse grid and the settings always measured; no visit yet. 0 or -1. */
int tune_search_init(struct tune_search *s, const struct tune_config *cfg);
/* Measure until resolved, the budget is spent, or the probe stops. Returns s->status. */
int tune_search_run(struct tune_search *s, const struct tune_probe *p);
void tune_search_free(struct tune_search *s);

/* The candidate with the role (the first), or -1. */
int tune_search_role(const struct tune_search *s, unsigned role);

/*
 * After each stage: what no longer needs visits, and what the next
 * stage adds (exposed for the tests).
 */
void tune_search_eliminate(struct tune_search *s);
unsigned tune_search_refine(struct tune_search *s, double step);
bool tune_search_resolved(const struct tune_search *s);

#endif
