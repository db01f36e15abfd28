/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvirt keys its QEMU capability cache to the host's CPUID as read by
 * the thread that starts the embedded driver. Where CPUID differs from
 * CPU to CPU (the APIC ID in it does under PVM here; hybrid cores differ
 * in more), a plerig that connects from another CPU than the last finds
 * the cache "outdated: host cpuid changed" and probes QEMU again: seconds,
 * and the probe restores the flag that makes the next domain start check
 * the guest CPU in ~800 monitor round trips (connection.c). Connecting
 * from one CPU, always the same, keeps the cache valid.
 */
#ifndef PLERIG_LIBVIRT_PROBE_CPU_H
#define PLERIG_LIBVIRT_PROBE_CPU_H

#include <sched.h>
#include <stdbool.h>

struct probe_cpu {
	cpu_set_t before; /* the caller's CPUs */
	cpu_set_t one;	  /* the lowest of them */
	bool pinned;
};

/* Pin the calling thread to the lowest CPU it may use; best effort. */
void probe_cpu_enter(struct probe_cpu *p);
/*
 * Give the calling thread, and every thread of the process born on the one
 * CPU meanwhile (libvirt's workers inherit it), the caller's CPUs back.
 */
void probe_cpu_leave(struct probe_cpu *p);

#endif
