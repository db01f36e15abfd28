// SPDX-License-Identifier: GPL-2.0
/*
 * What the guests of a libvirt run send on their serial ports, followed
 * until what is awaited arrives (every hello, every report) or a VM
 * fails: a fault or an error the guest reports, a damaged log (a copy
 * kept in the cache dir), QEMU gone, the watchdog, Ctrl-C.
 */
#include "backends/libvirt/lv_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/guest_status.h"
#include "backends/run_result.h"
#include "backends/libvirt/orphans.h"
#include "util/clock.h"
#include "util/errbuf.h"
#include "util/interrupt.h"
#include "util/safe_dir.h"

#define POLL_BOOT_NS	 1000000ull  /* until every hello: boot is short, its end is a figure */
#define POLL_RUN_NS	 20000000ull /* while the guests run: stay out of their way */
#define SERIAL_LOGS_KEPT 32
#define SERIAL_LOG_MAX	 (16u << 20)

static const char *config_error(uint32_t e)
{
	switch (e) {
	case PLERIG_CONFIG_ERR_NO_FW_CFG:
		return "the VM has no fw_cfg device";
	case PLERIG_CONFIG_ERR_NO_FILE:
		return "fw_cfg has no " PLERIG_FW_CFG_CONFIG " (check <sysinfo type='fwcfg'> in "
		       "the domain template)";
	case PLERIG_CONFIG_ERR_SIZE:
		return "the config file has the wrong size (guest and plerig from different "
		       "builds?)";
	case PLERIG_CONFIG_ERR_INVALID:
		return "the config is invalid (guest and plerig from different builds?)";
	case PLERIG_CONFIG_ERR_FLAGS:
		return "the config does not ask for a self-timed run with serial results";
	}
	return "unknown reason";
}

static int fail_fault(struct lv_run *run, const struct lv_domain *d, unsigned vcpu)
{
	char what[192];
	guest_fault_describe(&d->results[vcpu].fault, what, sizeof(what));
	return run_fail(run->r, "VM %u vCPU %u: %s", d->index, vcpu, what);
}

/* The first vCPU whose state is below @state, for a timeout message. */
static int fail_states(struct lv_run *run, const struct lv_domain *d, uint32_t state,
		       const char *what)
{
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		if (d->results[i].state < state)
			return run_fail(run->r,
					"VM %u vCPU %u did not %s within %.1f s (guest "
					"state %s); vCPU 0 reported and powered off",
					d->index, i, what, run->v->timeout_s,
					guest_state_name(d->results[i].state));
	return run_fail(run->r, "VM %u: the guest says a vCPU did not %s", d->index, what);
}

/* A whole report arrived: is it a result, or a failure the guest reported? */
int lv_watch_end_status(struct lv_run *run, const struct lv_domain *d)
{
	const struct plerig_frame_end *e = &d->rep.end;
	for (unsigned i = 0; i < d->nr_vcpus; i++)
		if ((d->rep.vcpus_seen >> i & 1) && d->results[i].state == PLERIG_VCPU_FAULT)
			return fail_fault(run, d, i);
	switch (e->status) {
	case PLERIG_END_OK:
		return 0;
	case PLERIG_END_FAULT:
		return run_fail(run->r, "VM %u: the guest reported a fault without details",
				d->index);
	case PLERIG_END_BAD_CONFIG:
		return run_fail(run->r, "VM %u: %s", d->index, config_error(e->detail));
	case PLERIG_END_BOOT_TIMEOUT:
		return fail_states(run, d, PLERIG_VCPU_READY, "come up");
	case PLERIG_END_STOP_TIMEOUT:
		return fail_states(run, d, PLERIG_VCPU_DONE, "stop");
	}
	return run_fail(run->r, "VM %u: end status %u", d->index, e->status);
}

/* What @d's serial port sent: its log file, or what its console gave. */
static int serial_bytes(const struct lv_domain *d, unsigned char **data, size_t *n, char *err,
			size_t errlen)
{
	if (!d->console)
		return read_whole_file(d->serial_path, SERIAL_LOG_MAX, data, n, err, errlen);
	*data = malloc(d->console_len + 1);
	if (!*data)
		return errbuf_printf(err, errlen, "out of memory");
	memcpy(*data, d->console_buf, d->console_len);
	*n = d->console_len;
	return 0;
}

/*
 * A copy of @d's serial log in CACHE/failed-serial/NAME.serial.log (the
 * newest SERIAL_LOGS_KEPT kept), its path into @out; "(not kept: ...)" when
 * it cannot be copied.
 */
static void keep_serial_log(struct lv_run *run, const struct lv_domain *d, char *out, size_t len)
{
	char dir[PATH_MAX + 16], name[128], err[ERRBUF_SIZE] = "";
	unsigned char *data = NULL;
	size_t n = 0;
	snprintf(dir, sizeof(dir), "%s/failed-serial", run->b->cache);
	snprintf(name, sizeof(name), "%s.serial.log", d->name);
	/* the cache directory by safe_dir's rules: no other user's link leads root's copy */
	const int fd = snprintf(out, len, "%s/%s", dir, name) >= (int)len
			   ? errbuf_printf(err, sizeof(err), "%s", strerror(ENAMETOOLONG))
			   : safe_dir_open(dir, SAFE_DIR_CREATE, err, sizeof(err));
	if (fd < 0 || serial_bytes(d, &data, &n, err, sizeof(err)) ||
	    safe_file_replace(fd, dir, name, data, n, 0644, err, sizeof(err))) {
		snprintf(out, len, "(not kept: %s)", err);
		if (fd >= 0)
			close(fd);
		free(data);
		return;
	}
	close(fd);
	free(data);
	orphans_trim_logs(dir, "plerig-", ".serial.log", SERIAL_LOGS_KEPT);
}

/* Anything wrong with a VM while waiting: corrupt log, early report, QEMU gone. */
static int check_domain(struct lv_run *run, struct lv_domain *d)
{
	if (d->status == SERIAL_CORRUPT) {
		/* the run directory goes at teardown: name a copy that stays */
		char kept[PATH_MAX + 64];
		keep_serial_log(run, d, kept, sizeof(kept));
		return run_fail(run->r, "VM %u: serial log %s: %s", d->index, kept,
				d->decode_error);
	}
	if (d->status == SERIAL_COMPLETE)
		return d->rep.end.status == PLERIG_END_OK ? 0 : lv_watch_end_status(run, d);
	if (!lv_domain_active(d)) {
		lv_domain_poll_serial(d, monotonic_ns()); /* the last bytes before it stopped */
		if (d->status != SERIAL_INCOMPLETE)
			return check_domain(run, d);
		return run_fail(
		    run->r,
		    "VM %u: QEMU stopped before the guest sent its results (%zu bytes of serial "
		    "log%s); see the QEMU log of domain %s%s%s",
		    d->index, d->rep.used, d->rep.have_hello ? ", the guest had booted" : "",
		    d->name, run->b->lc.embedded ? " in " : "",
		    run->b->lc.embedded ? run->b->lc.root : "");
	}
	return 0;
}

enum wait_for { WAIT_HELLO, WAIT_END, WAIT_NOTHING };

static bool arrived(const struct lv_domain *d, enum wait_for what)
{
	return what == WAIT_HELLO ? d->hello_ns != 0 : what == WAIT_END ? d->end_ns != 0 : false;
}

/*
 * Poll every VM's serial log and liveness until @what arrived from all
 * (1), @deadline passed (0), or a VM failed or Ctrl-C came (-1).
 */
static int wait_all(struct lv_run *run, enum wait_for what, uint64_t deadline, uint64_t poll_ns)
{
	for (;;) {
		const uint64_t now = monotonic_ns();
		bool all = true;
		for (unsigned i = 0; i < run->nr_doms; i++) {
			struct lv_domain *d = &run->doms[i];
			lv_domain_poll_serial(d, now);
			if (check_domain(run, d))
				return -1;
			all = all && arrived(d, what);
		}
		run_exit_timers_drain(&run->exit_timers);
		if (interrupt_requested())
			return run_fail(run->r, "interrupted by signal %d", interrupt_signal());
		if (what != WAIT_NOTHING && all)
			return 1;
		if (now >= deadline)
			return 0;
		sleep_ns(deadline - now < poll_ns ? deadline - now : poll_ns);
	}
}

static int watchdog(struct lv_run *run, enum wait_for what)
{
	for (unsigned i = 0; i < run->nr_doms; i++)
		if (!arrived(&run->doms[i], what))
			return run_fail(
			    run->r,
			    what == WAIT_HELLO
				? "watchdog: VM %u did not boot within %.1f s (no hello on its "
				  "serial port); destroyed it"
				: "watchdog: VM %u sent no results within %.1f s of the end of "
				  "its measured interval; destroyed it",
			    i, run->v->timeout_s);
	return -1;
}

/* Until every guest's @what, for the variant's --timeout at most: 0, or -1 failed. */
static int wait_for_all(struct lv_run *run, enum wait_for what)
{
	const uint64_t deadline = monotonic_ns() + (uint64_t)(run->v->timeout_s * 1e9);
	int rc = wait_all(run, what, deadline, POLL_BOOT_NS);
	return rc > 0 ? 0 : rc == 0 ? watchdog(run, what) : -1;
}

int lv_watch_boot(struct lv_run *run)
{
	return wait_for_all(run, WAIT_HELLO);
}

int lv_watch_until(struct lv_run *run, uint64_t deadline)
{
	return wait_all(run, WAIT_NOTHING, deadline, POLL_RUN_NS) < 0 ? -1 : 0;
}

int lv_watch_results(struct lv_run *run)
{
	return wait_for_all(run, WAIT_END);
}
