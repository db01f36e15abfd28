// SPDX-License-Identifier: GPL-2.0
#include "backends/guest_status.h"

#include <stdio.h>

const char *guest_state_name(uint32_t state)
{
	static const char *const names[] = {"OFF", "READY", "RUNNING", "DONE", "FAULT"};
	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

static const char *vector_name(uint64_t v)
{
	static const char *const names[] = {"#DE", "#DB", "NMI", "#BP", "#OF", "#BR", "#UD", "#NM",
					    "#DF", "CSO", "#TS", "#NP", "#SS", "#GP", "#PF", "?15",
					    "#MF", "#AC", "#MC", "#XM", "#VE", "#CP"};
	return v < sizeof(names) / sizeof(names[0]) ? names[v] : "exception";
}

static const char *pv_state_name(uint32_t state)
{
	static const char *const names[] = {"running", "halted", "kicked"};
	return state < sizeof(names) / sizeof(names[0]) ? names[state] : "?";
}

/* ", 2 kicks refused (last -1000)": what KVM answered to this waiter's kicks, if not 0 */
static void kick_failures(const struct plerig_pv_node *pv, char *buf, size_t len)
{
	const uint32_t failed = __atomic_load_n(&pv->kick_failures, __ATOMIC_RELAXED);
	if (failed)
		snprintf(buf, len, ", %u kick%s refused (last %d)", failed, failed == 1 ? "" : "s",
			 __atomic_load_n(&pv->kick_last_ret, __ATOMIC_RELAXED));
	else
		buf[0] = 0;
}

void guest_lock_describe(const struct plerig_shared *sh, unsigned vcpu, char *buf, size_t len)
{
	const struct plerig_lock_state *l = &sh->lock;
	const uint32_t lock = __atomic_load_n(&sh->config.lock, __ATOMIC_RELAXED);
	char node[96];
	/* the guest may still run: each word read once, as it was then */
	switch (lock) {
	case PLERIG_LOCK_TICKET:
		snprintf(buf, len, "ticket head %u tail %u",
			 __atomic_load_n(&l->ticket_head, __ATOMIC_RELAXED),
			 __atomic_load_n(&l->ticket_tail, __ATOMIC_RELAXED));
		break;
	case PLERIG_LOCK_TAS:
		snprintf(buf, len, "tas word %u", __atomic_load_n(&l->tas_word, __ATOMIC_RELAXED));
		break;
	case PLERIG_LOCK_MCS:
	case PLERIG_LOCK_PVQSPIN:
		guest_node_describe(sh, vcpu, node, sizeof(node));
		snprintf(buf, len, "queue tail link %u, its node %s",
			 __atomic_load_n(&l->mcs_tail, __ATOMIC_RELAXED), node);
		break;
	default:
		snprintf(buf, len, "lock kind %u unknown", lock);
	}
}

void guest_node_describe(const struct plerig_shared *sh, unsigned vcpu, char *buf, size_t len)
{
	const struct plerig_lock_state *l = &sh->lock;
	const struct plerig_mcs_node *n = &l->mcs_nodes[vcpu % PLERIG_MAX_VCPUS];
	const struct plerig_pv_node *pv = &l->pv_nodes[vcpu % PLERIG_MAX_VCPUS];
	const uint32_t lock = __atomic_load_n(&sh->config.lock, __ATOMIC_RELAXED);
	char kicks[64] = "";
	if (lock != PLERIG_LOCK_MCS && lock != PLERIG_LOCK_PVQSPIN) {
		buf[0] = 0;
		return;
	}
	if (lock == PLERIG_LOCK_PVQSPIN)
		kick_failures(pv, kicks, sizeof(kicks));
	snprintf(buf, len, "locked %u next link %u%s%s%s",
		 __atomic_load_n(&n->locked, __ATOMIC_RELAXED),
		 __atomic_load_n(&n->next, __ATOMIC_RELAXED),
		 lock == PLERIG_LOCK_PVQSPIN ? ", pv state " : "",
		 lock == PLERIG_LOCK_PVQSPIN
		     ? pv_state_name(__atomic_load_n(&pv->state, __ATOMIC_RELAXED))
		     : "",
		 kicks);
}

void guest_fault_describe(const struct plerig_fault *f, char *buf, size_t len)
{
	snprintf(buf, len,
		 "guest exception %s (vector %llu) error code 0x%llx at rip 0x%llx (ring %llu), "
		 "rsp 0x%llx, cr2 0x%llx",
		 vector_name(f->vector), (unsigned long long)f->vector,
		 (unsigned long long)f->error_code, (unsigned long long)f->rip,
		 (unsigned long long)(f->cs & 3), (unsigned long long)f->rsp,
		 (unsigned long long)f->cr2);
}
