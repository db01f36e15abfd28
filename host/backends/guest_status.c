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
