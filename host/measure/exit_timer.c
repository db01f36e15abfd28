// SPDX-License-Identifier: GPL-2.0
#include "measure/exit_timer.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "measure/trace_counter.h"
#include "measure/tracefs.h"
#include "util/errbuf.h"

struct exit_reason_time exit_times_reason(const struct exit_times *t, uint32_t reason)
{
	for (unsigned i = 0; i < t->nr_reasons; i++)
		if (t->reason[i].reason == reason)
			return t->reason[i];
	return (struct exit_reason_time){.reason = reason};
}

/* ---- pairing ---- */

void exit_pairing_init(struct exit_pairing *p)
{
	memset(p, 0, sizeof(*p));
	p->start_ns = p->stop_ns = UINT64_MAX;
}

void exit_pairing_window(struct exit_pairing *p, uint64_t start_ns, uint64_t stop_ns)
{
	p->start_ns = start_ns;
	p->stop_ns = stop_ns ? stop_ns : UINT64_MAX;
}

static bool inside(const struct exit_pairing *p, uint64_t t)
{
	return t >= p->start_ns && t <= p->stop_ns;
}

/* The pending exit will never be timed (its entry is lost, or out of order). */
static void drop_pending(struct exit_pairing *p)
{
	if (p->pending && inside(p, p->pending_ns))
		p->t.unpaired++;
	p->pending = false;
}

/* Records of one thread in one buffer come in order: one that does not is dropped. */
static bool in_order(struct exit_pairing *p, uint64_t t_ns)
{
	if (t_ns < p->last_ns) {
		drop_pending(p);
		p->t.unpaired++;
		return false;
	}
	p->last_ns = t_ns;
	return true;
}

static void add_time(struct exit_times *t, uint32_t reason, uint64_t ns)
{
	t->exits++;
	t->ns += ns;
	for (unsigned i = 0; i < t->nr_reasons; i++)
		if (t->reason[i].reason == reason) {
			t->reason[i].count++;
			t->reason[i].ns += ns;
			return;
		}
	if (t->nr_reasons < EXIT_TIMES_REASONS) {
		t->reason[t->nr_reasons++] = (struct exit_reason_time){reason, 1, ns};
		return;
	}
	t->other_count++;
	t->other_ns += ns;
}

void exit_pairing_exit(struct exit_pairing *p, uint64_t t_ns, uint32_t reason)
{
	if (!in_order(p, t_ns))
		return;
	drop_pending(p); /* two exits in a row: the first one's entry is missing */
	p->pending = true;
	p->pending_ns = t_ns;
	p->pending_reason = reason;
	if (inside(p, t_ns))
		p->t.seen++;
}

void exit_pairing_entry(struct exit_pairing *p, uint64_t t_ns)
{
	if (!in_order(p, t_ns))
		return;
	if (!p->pending) {
		if (inside(p, t_ns))
			p->t.unpaired++;
		return;
	}
	p->pending = false;
	if (p->pending_ns >= p->start_ns && t_ns <= p->stop_ns)
		add_time(&p->t, p->pending_reason, t_ns - p->pending_ns);
	else if (p->pending_ns <= p->stop_ns && t_ns >= p->start_ns)
		p->t.cut++; /* overlaps an edge of the interval */
}

void exit_pairing_lost(struct exit_pairing *p, uint64_t n)
{
	p->t.lost += n;
	drop_pending(p);
}

static int by_time(const void *a, const void *b)
{
	const struct exit_reason_time *x = a, *y = b;
	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

void exit_pairing_result(const struct exit_pairing *p, struct exit_times *out)
{
	*out = p->t;
	out->valid = true;
	if (p->pending && inside(p, p->pending_ns))
		out->cut++; /* its entry comes after the end, if at all */
	qsort(out->reason, out->nr_reasons, sizeof(out->reason[0]), by_time);
}

/* ---- perf ---- */

/* Samples of every hit, timed on CLOCK_MONOTONIC; *lost_readable: PERF_FORMAT_LOST works. */
static int sample_open(struct perf_event_attr *attr, uint64_t sample_type,
		       const struct exit_timer_events *ev, const char *event, pid_t tid,
		       uint64_t *id, bool *lost_readable, char *err, size_t errlen)
{
	memset(attr, 0, sizeof(*attr));
	attr->sample_period = 1; /* every hit */
	attr->sample_type = sample_type;
	attr->use_clockid = 1;
	attr->clockid = CLOCK_MONOTONIC; /* the clock of the measured interval */
	attr->read_format = PERF_FORMAT_LOST;
	int fd = trace_perf_open(attr, ev->tracefs, ev->system, event, tid, err, errlen);
	if (fd == -EINVAL) { /* before Linux 6.0 */
		attr->read_format = 0;
		*lost_readable = false;
		fd = trace_perf_open(attr, ev->tracefs, ev->system, event, tid, err, errlen);
	}
	if (fd < 0)
		return fd;
	if (ioctl(fd, PERF_EVENT_IOC_ID, id) < 0) {
		int e = errno;
		errbuf_printf(err, errlen, "PERF_EVENT_IOC_ID on %s:%s: %s", ev->system, event,
			      strerror(e));
		close(fd);
		return -e;
	}
	return fd;
}

/* Samples of this event the kernel dropped since open, or 0 where it cannot say. */
static uint64_t lost_samples(int fd)
{
	uint64_t v[2]; /* value, lost */
	ssize_t n;
	do
		n = read(fd, v, sizeof(v));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(v) ? v[1] : 0;
}

int exit_timer_open(struct exit_timer *t, const struct exit_timer_events *ev, pid_t tid,
		    unsigned pages, char *err, size_t errlen)
{
	struct perf_event_attr attr;
	char what[96];
	int rc;

	memset(t, 0, sizeof(*t));
	t->exit_fd = t->entry_fd = -1;
	t->lost_readable = true;
	t->reason = ev->reason;
	exit_pairing_init(&t->pairing);
	rc = sample_open(&attr, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW, ev,
			 ev->exit_event, tid, &t->exit_id, &t->lost_readable, err, errlen);
	if (rc < 0)
		return rc;
	t->exit_fd = rc;
	snprintf(what, sizeof(what), "%s:%s of thread %d", ev->system, ev->exit_event, (int)tid);
	rc = perf_ring_map(&t->ring, t->exit_fd, pages, what, err, errlen);
	if (rc)
		goto fail;
	rc = sample_open(&attr, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME, ev, ev->entry_event, tid,
			 &t->entry_id, &t->lost_readable, err, errlen);
	if (rc < 0)
		goto fail;
	t->entry_fd = rc;
	/* one buffer for both: the thread's exits and entries in the order it made them */
	if (ioctl(t->entry_fd, PERF_EVENT_IOC_SET_OUTPUT, t->exit_fd) < 0) {
		rc = -errno;
		errbuf_printf(err, errlen, "PERF_EVENT_IOC_SET_OUTPUT from %s:%s to %s: %s",
			      ev->system, ev->entry_event, what, strerror(-rc));
		goto fail;
	}
	return 0;
fail:
	exit_timer_close(t);
	return rc;
}

void exit_timer_window(struct exit_timer *t, uint64_t start_ns, uint64_t stop_ns)
{
	exit_pairing_window(&t->pairing, start_ns, stop_ns);
}

/* A sample: u64 id (PERF_SAMPLE_IDENTIFIER), u64 time, and for the exit u32 size + raw. */
static void on_record(uint32_t type, const void *body, size_t size, void *arg)
{
	struct exit_timer *t = arg;
	const uint8_t *b = body;
	uint64_t id, time, reason = 0;
	uint32_t raw_size;

	if (type == PERF_RECORD_LOST) {
		uint64_t lost[2]; /* id, lost */
		if (size >= sizeof(lost)) {
			memcpy(lost, b, sizeof(lost));
			exit_pairing_lost(&t->pairing, lost[1]);
		}
		return;
	}
	if (type != PERF_RECORD_SAMPLE || size < 2 * sizeof(uint64_t))
		return;
	memcpy(&id, b, sizeof(id));
	memcpy(&time, b + 8, sizeof(time));
	if (id == t->entry_id) {
		exit_pairing_entry(&t->pairing, time);
		return;
	}
	if (id != t->exit_id)
		return;
	if (t->reason && size >= 16 + sizeof(raw_size)) {
		memcpy(&raw_size, b + 16, sizeof(raw_size));
		if (16 + sizeof(raw_size) + raw_size <= size &&
		    trace_field_value(t->reason, b + 16 + sizeof(raw_size), raw_size, &reason))
			reason = UINT32_MAX; /* undecodable: kept apart, not merged into 0 */
	}
	exit_pairing_exit(&t->pairing, time, (uint32_t)reason);
}

/* Less room than a few records: the kernel may be dropping them right now. */
#define FULL_MARGIN 256

void exit_timer_drain(struct exit_timer *t)
{
	if (perf_ring_pending(&t->ring) + FULL_MARGIN > t->ring.data_len)
		t->saw_full = true;
	perf_ring_drain(&t->ring, on_record, t);
}

void exit_timer_result(struct exit_timer *t, struct exit_times *out)
{
	exit_timer_drain(t);
	uint64_t lost = t->pairing.t.lost;
	if (t->lost_readable && t->exit_fd >= 0 && t->entry_fd >= 0)
		lost = lost_samples(t->exit_fd) + lost_samples(t->entry_fd);
	else if (t->saw_full && !lost)
		lost = 1; /* at least */
	if (lost > t->pairing.t.lost)
		exit_pairing_lost(&t->pairing, lost - t->pairing.t.lost);
	exit_pairing_result(&t->pairing, out);
}

void exit_timer_close(struct exit_timer *t)
{
	/* the entry event writes into the exit event's buffer: close it first */
	if (t->entry_fd >= 0)
		close(t->entry_fd);
	perf_ring_unmap(&t->ring);
	if (t->exit_fd >= 0)
		close(t->exit_fd);
	t->entry_fd = t->exit_fd = -1;
}
