/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything one `plerig tune` found: the search with every visit, the
 * recommendation, and the provenance a maintainer needs to act on it
 * (the host, the parameter's values before and after, a PAUSE's cost
 * here, the time spent). experiment/tune fills it, output/tune_writer
 * prints it.
 */
#ifndef PLERIG_TUNE_RESULT_H
#define PLERIG_TUNE_RESULT_H

#include <stdbool.h>

#include "measure/host_info.h"
#include "measure/pause_cost.h"
#include "model/metrics.h"
#include "model/tune_recommend.h"
#include "model/tune_search.h"
#include "ple/host_params.h"

struct tune_result {
	struct tune_search search;
	struct tune_recommendation rec;
	const struct metric *metric; /* the objective */
	char module[PLE_MODULE_LEN]; /* the KVM module whose parameter it is */
	char param_why[256];	     /* why this parameter, when tune chose it */
	char ple_off_why[256];	     /* why per-VM PLE off was not measured; "" when it was */
	bool runtime_writable;	     /* the parameter was written at run time (no reload) */
	char before[PLE_MAX_VALUE_TEXT], after[PLE_MAX_VALUE_TEXT]; /* "name=value ..." */
	bool host_valid;					    /* from the first visit */
	struct host_info host;
	struct pause_cost pause;
	char command_line[1024];
	char date[32];	/* when it began, UTC (ISO 8601); "" unknown */
	double seconds; /* the whole tune, restoring included, in the host's seconds (host.clock) */
	unsigned failed_visits;
};

static inline void tune_result_free(struct tune_result *r)
{
	tune_search_free(&r->search);
}

#endif
