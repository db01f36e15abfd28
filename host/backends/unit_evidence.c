// SPDX-License-Identifier: GPL-2.0
#include "backends/unit_evidence.h"

#include <stdio.h>

#include "util/errbuf.h"

void unit_mark_take(struct unit_mark *m, pid_t tid)
{
	char err[ERRBUF_SIZE];
	m->tid = tid;
	m->have_sched = tid > 0 && schedstat_read(tid, &m->sched, err, sizeof(err)) == 0;
}

void unit_evidence_take(struct unit_evidence *e, const struct unit_mark *m, pid_t tid,
			uint64_t waited_ns)
{
	char err[ERRBUF_SIZE];
	struct schedstat now;
	*e = (struct unit_evidence){.tid = tid, .waited_ns = waited_ns};
	if (tid <= 0)
		return;
	e->have_state = thread_state_read(tid, &e->state, err, sizeof(err)) == 0;
	if (schedstat_read(tid, &now, err, sizeof(err)))
		return;
	if (m->tid == tid && m->have_sched) {
		struct schedstat d;
		schedstat_delta(&m->sched, &now, &d);
		e->ran_ns = d.run_ns;
		e->have_ran = true;
	} else if (m->tid <= 0) { /* started after the mark: its whole life is in the wait */
		e->ran_ns = now.run_ns;
		e->have_ran = true;
	}
}

bool unit_evidence_starved(const struct unit_evidence *e)
{
	return e->have_state && e->state.state == 'R' && e->have_ran && e->ran_ns < UNIT_STARVED_NS;
}

void unit_evidence_describe(const struct unit_evidence *e, const char *since, char *buf, size_t len)
{
	const double wait_s = (double)e->waited_ns / 1e9;
	const double ran_ms = (double)e->ran_ns / 1e6;
	if (e->tid <= 0)
		snprintf(buf, len, "its thread has not started running in the %.1f s since %s",
			 wait_s, since);
	else if (!e->have_state || !e->have_ran)
		snprintf(buf, len, "its thread %d could not be read in /proc", (int)e->tid);
	else if (unit_evidence_starved(e))
		snprintf(buf, len,
			 "its thread %d was runnable (R) on CPU %d but ran %.1f ms in the %.1f s "
			 "since %s: the host gave it no CPU (a busy host, not a hung guest)",
			 (int)e->tid, e->state.cpu, ran_ms, wait_s, since);
	else if (e->state.state == 'R')
		snprintf(buf, len, "its thread %d (R, CPU %d) ran %.1f ms of the %.1f s since %s",
			 (int)e->tid, e->state.cpu, ran_ms, wait_s, since);
	else
		snprintf(buf, len,
			 "its thread %d is not runnable (state %c, CPU %d) and ran %.1f ms in the "
			 "%.1f s since %s",
			 (int)e->tid, e->state.state, e->state.cpu, ran_ms, wait_s, since);
}
