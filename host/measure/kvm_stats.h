/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reader for KVM's binary statistics (KVM_GET_STATS_FD, Linux >= 5.14):
 * the descriptors are read once, then every snapshot is one pread of the
 * data block, cheap enough to take at both edges of a measured interval.
 */
#ifndef PLERIG_KVM_STATS_H
#define PLERIG_KVM_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The per-vCPU counters plerig reports; order is the JSON order. */
enum kvm_vcpu_stat {
	KVM_STAT_EXITS,
	KVM_STAT_HALT_EXITS,
	KVM_STAT_IO_EXITS,
	KVM_STAT_MMIO_EXITS,
	KVM_STAT_SIGNAL_EXITS,
	KVM_STAT_IRQ_EXITS,
	KVM_STAT_HALT_WAKEUP,
	KVM_STAT_DIRECTED_YIELD_ATTEMPTED,
	KVM_STAT_DIRECTED_YIELD_SUCCESSFUL,
	KVM_STAT_PREEMPTION_REPORTED,
	KVM_STAT_PREEMPTION_OTHER,
	KVM_STAT_INSN_EMULATION,
	KVM_STAT_INSN_EMULATION_FAIL,
	/* the halt path: how KVM polled before it put a halted vCPU to sleep */
	KVM_STAT_HALT_SUCCESSFUL_POLL,
	KVM_STAT_HALT_ATTEMPTED_POLL,
	KVM_STAT_HALT_POLL_INVALID,
	KVM_STAT_HALT_POLL_SUCCESS_NS,
	KVM_STAT_HALT_POLL_FAIL_NS,
	KVM_STAT_COUNT
};

/* The KVM stat name ("exits", "directed_yield_attempted", ...). */
const char *kvm_stat_name(enum kvm_vcpu_stat s);

struct kvm_stats_reader {
	int fd;		    /* owned: the fd from KVM_GET_STATS_FD */
	size_t data_offset; /* from the header */
	size_t data_size;   /* bytes of u64 data to pread */
	/* offset (in u64 units) of each wanted stat in the data block, or -1
	 * where this kernel does not have it */
	long index[KVM_STAT_COUNT];
	uint64_t *buf; /* data_size bytes */
};

struct kvm_stats_snapshot {
	uint64_t value[KVM_STAT_COUNT];
	bool valid[KVM_STAT_COUNT];
};

/*
 * Open the stats of a vCPU (or VM) fd. Returns 0, or -errno with a
 * message in @err naming the step that failed.
 */
int kvm_stats_open(struct kvm_stats_reader *r, int kvm_object_fd, char *err, size_t errlen);
int kvm_stats_read(struct kvm_stats_reader *r, struct kvm_stats_snapshot *out, char *err,
		   size_t errlen);
void kvm_stats_close(struct kvm_stats_reader *r);

/* out = after - before for each stat valid in both. */
void kvm_stats_delta(const struct kvm_stats_snapshot *before,
		     const struct kvm_stats_snapshot *after, struct kvm_stats_snapshot *out);

#endif
