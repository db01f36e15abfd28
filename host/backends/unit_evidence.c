// SPDX-License-Identifier: GPL-2.0
#include "backends/unit_evidence.h"

#include <stdio.h>

#include "util/errbuf.h"

void unit_mark_take(struct unit_mark *m, pid_t tid, uint64_t now)
{
	char err[ERRBUF_SIZE];
	*m = (struct unit_mark){.tid = tid, .mark_ns = now, .last_ran_ns = now};
	m->have_sched = tid > 0 && schedstat_read(tid, &m->sched, err, sizeof(err)) == 0;
	m->last_run_ns = m->sched.run_ns;
}

void unit_mark_watch(struct unit_mark *m, pid_t tid, uint64_t now)
{
	char err[ERRBUF_SIZE];
	struct schedstat s;
	if (tid <= 0 || schedstat_read(tid, &s, err, sizeof(err)))
		return;
	if (m->tid <= 0) { /* started after the mark: its whole life is in the wait */
		m->tid = tid;
		m->sched = (struct schedstat){0};
		m->have_sched = true;
	}
	if (m->tid == tid && m->have_sched && s.run_ns != m->last_run_ns) {
		m->last_run_ns = s.run_ns;
		m->last_ran_ns = now;
	}
}

void unit_evidence_take(struct unit_evidence *e, struct unit_mark *m, pid_t tid, uint64_t now)
{
	char err[ERRBUF_SIZE];
	*e = (struct unit_evidence){.tid = tid, .waited_ns = now - m->mark_ns};
	if (tid <= 0)
		return;
	e->have_state = thread_state_read(tid, &e->state, err, sizeof(err)) == 0;
	unit_mark_watch(m, tid, now);
	if (m->tid != tid || !m->have_sched) /* unreadable, or another thread at the mark */
		return;
	e->have_ran = true;
	e->ran_ns = m->last_run_ns - m->sched.run_ns;
	e->idle_ns = now - m->last_ran_ns;
}

bool unit_evidence_starved(const struct unit_evidence *e)
{
	return e->have_state && e->state.state == 'R' && e->have_ran &&
	       e->idle_ns >= UNIT_STARVED_NS;
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
		snprintf(
		    buf, len,
		    "its thread %d was runnable (R) on CPU %d but had no CPU for the last "
		    "%.1f s (ran %.1f ms in the %.1f s since %s): a busy host, not a hung guest",
		    (int)e->tid, e->state.cpu, (double)e->idle_ns / 1e9, ran_ms, wait_s, since);
	else if (e->state.state == 'R')
		snprintf(buf, len, "its thread %d (R, CPU %d) ran %.1f ms of the %.1f s since %s",
			 (int)e->tid, e->state.cpu, ran_ms, wait_s, since);
	else
		snprintf(buf, len,
			 "its thread %d is not runnable (state %c, CPU %d) and ran %.1f ms in the "
			 "%.1f s since %s",
			 (int)e->tid, e->state.state, e->state.cpu, ran_ms, wait_s, since);
}
