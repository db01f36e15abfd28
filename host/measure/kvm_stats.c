// SPDX-License-Identifier: GPL-2.0
/*
 * KVM binary statistics: header at offset 0, then num_desc descriptors of
 * sizeof(struct kvm_stats_desc) + name_size bytes each at desc_offset, and
 * the u64 data block at data_offset, laid out as the kernel's stats struct.
 * Descriptor offsets are byte offsets into that data block.
 */
#include "util/errbuf.h"
#include "measure/kvm_stats.h"

#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/*
 * Sanity bounds on what the kernel reports (it has ~60 vCPU stats with
 * 48-byte names): a wild header must not make us allocate gigabytes.
 */
#define KVM_STATS_MAX_DESC 4096u
#define KVM_STATS_MAX_NAME 4096u
#define KVM_STATS_MAX_DATA (16u << 20)

static const char *const stat_names[KVM_STAT_COUNT] = {
    [KVM_STAT_EXITS] = "exits",
    [KVM_STAT_HALT_EXITS] = "halt_exits",
    [KVM_STAT_IO_EXITS] = "io_exits",
    [KVM_STAT_MMIO_EXITS] = "mmio_exits",
    [KVM_STAT_SIGNAL_EXITS] = "signal_exits",
    [KVM_STAT_IRQ_EXITS] = "irq_exits",
    [KVM_STAT_HALT_WAKEUP] = "halt_wakeup",
    [KVM_STAT_DIRECTED_YIELD_ATTEMPTED] = "directed_yield_attempted",
    [KVM_STAT_DIRECTED_YIELD_SUCCESSFUL] = "directed_yield_successful",
    [KVM_STAT_PREEMPTION_REPORTED] = "preemption_reported",
    [KVM_STAT_PREEMPTION_OTHER] = "preemption_other",
    [KVM_STAT_INSN_EMULATION] = "insn_emulation",
    [KVM_STAT_INSN_EMULATION_FAIL] = "insn_emulation_fail",
    [KVM_STAT_HALT_SUCCESSFUL_POLL] = "halt_successful_poll",
    [KVM_STAT_HALT_ATTEMPTED_POLL] = "halt_attempted_poll",
    [KVM_STAT_HALT_POLL_INVALID] = "halt_poll_invalid",
    [KVM_STAT_HALT_POLL_SUCCESS_NS] = "halt_poll_success_ns",
    [KVM_STAT_HALT_POLL_FAIL_NS] = "halt_poll_fail_ns",
};

const char *kvm_stat_name(enum kvm_vcpu_stat s)
{
	if ((unsigned)s >= KVM_STAT_COUNT)
		return "?";
	return stat_names[s];
}

/* pread exactly @len bytes; 0, or -errno (-EIO for a short read). */
static int pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}

static int read_header(int fd, struct kvm_stats_header *h, char *err, size_t errlen)
{
	int ret = pread_full(fd, h, sizeof(*h), 0);

	if (ret) {
		errbuf_printf(err, errlen, "reading the KVM stats header: %s", strerror(-ret));
		return ret;
	}
	if (h->name_size == 0 || h->name_size > KVM_STATS_MAX_NAME ||
	    h->num_desc > KVM_STATS_MAX_DESC) {
		errbuf_printf(err, errlen,
			      "implausible KVM stats header (name_size %u, num_desc %u): "
			      "kernel and <linux/kvm.h> disagree?",
			      h->name_size, h->num_desc);
		return -EPROTO;
	}
	return 0;
}

/* Only plain counters can be subtracted; histograms and peaks cannot. */
static bool is_counter(const struct kvm_stats_desc *d)
{
	uint32_t type = d->flags & KVM_STATS_TYPE_MASK;

	if (type != KVM_STATS_TYPE_CUMULATIVE && type != KVM_STATS_TYPE_INSTANT)
		return false;
	return d->size >= 1 && d->offset % sizeof(uint64_t) == 0;
}

static void match_wanted(struct kvm_stats_reader *r, const struct kvm_stats_desc *d,
			 const char *name)
{
	for (unsigned s = 0; s < KVM_STAT_COUNT; s++) {
		if (r->index[s] < 0 && strcmp(name, stat_names[s]) == 0 && is_counter(d))
			r->index[s] = (long)(d->offset / sizeof(uint64_t));
	}
}

/*
 * Match the wanted names and size the data block: the end of the furthest
 * stat, over all descriptors, so one pread always covers every index.
 */
static int scan_descs(struct kvm_stats_reader *r, const struct kvm_stats_header *h,
		      const uint8_t *descs, char *err, size_t errlen)
{
	size_t stride = sizeof(struct kvm_stats_desc) + h->name_size;
	uint64_t data_end = 0;

	for (unsigned i = 0; i < h->num_desc; i++) {
		const uint8_t *p = descs + (size_t)i * stride;
		struct kvm_stats_desc d;
		const char *name = (const char *)p + sizeof(d);
		uint64_t end;

		memcpy(&d, p, sizeof(d));
		end = (uint64_t)d.offset + (uint64_t)d.size * sizeof(uint64_t);
		if (end > data_end)
			data_end = end;
		/* a name without its NUL within name_size is not one of ours */
		if (strnlen(name, h->name_size) < h->name_size)
			match_wanted(r, &d, name);
	}
	if (data_end > KVM_STATS_MAX_DATA) {
		errbuf_printf(err, errlen, "implausible KVM stats data block of %llu bytes",
			      (unsigned long long)data_end);
		return -EPROTO;
	}
	r->data_size = (size_t)data_end;
	return 0;
}

static int read_descs(struct kvm_stats_reader *r, const struct kvm_stats_header *h, char *err,
		      size_t errlen)
{
	size_t stride = sizeof(struct kvm_stats_desc) + h->name_size;
	size_t size = stride * h->num_desc; /* both bounded: no overflow */
	uint8_t *descs;
	int ret;

	if (size == 0) {
		r->data_size = 0;
		return 0;
	}
	descs = malloc(size);
	if (!descs) {
		errbuf_printf(err, errlen, "out of memory for %zu bytes of KVM stats descriptors",
			      size);
		return -ENOMEM;
	}
	ret = pread_full(r->fd, descs, size, (off_t)h->desc_offset);
	if (ret)
		errbuf_printf(err, errlen, "reading %u KVM stats descriptors at offset %u: %s",
			      h->num_desc, h->desc_offset, strerror(-ret));
	else
		ret = scan_descs(r, h, descs, err, errlen);
	free(descs);
	return ret;
}

int kvm_stats_open(struct kvm_stats_reader *r, int kvm_object_fd, char *err, size_t errlen)
{
	struct kvm_stats_header h;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	for (unsigned s = 0; s < KVM_STAT_COUNT; s++)
		r->index[s] = -1;

	r->fd = ioctl(kvm_object_fd, KVM_GET_STATS_FD, NULL);
	if (r->fd < 0) {
		ret = -errno;
		errbuf_printf(
		    err, errlen,
		    "KVM_GET_STATS_FD on fd %d: %s (needs Linux >= 5.14 and a KVM VM or vCPU fd)",
		    kvm_object_fd, strerror(-ret));
		r->fd = -1;
		return ret;
	}
	ret = read_header(r->fd, &h, err, errlen);
	if (!ret)
		ret = read_descs(r, &h, err, errlen);
	if (!ret && r->data_size) {
		r->buf = malloc(r->data_size);
		if (!r->buf) {
			errbuf_printf(err, errlen, "out of memory for %zu bytes of KVM stats data",
				      r->data_size);
			ret = -ENOMEM;
		}
	}
	if (ret) {
		kvm_stats_close(r);
		return ret;
	}
	r->data_offset = h.data_offset;
	return 0;
}

int kvm_stats_read(struct kvm_stats_reader *r, struct kvm_stats_snapshot *out, char *err,
		   size_t errlen)
{
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (r->data_size)
		ret = pread_full(r->fd, r->buf, r->data_size, (off_t)r->data_offset);
	if (ret) {
		errbuf_printf(err, errlen, "reading %zu bytes of KVM stats data: %s", r->data_size,
			      strerror(-ret));
		return ret;
	}
	for (unsigned s = 0; s < KVM_STAT_COUNT; s++) {
		if (r->index[s] < 0)
			continue;
		out->value[s] = r->buf[r->index[s]];
		out->valid[s] = true;
	}
	return 0;
}

void kvm_stats_close(struct kvm_stats_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	r->fd = -1;
	r->buf = NULL;
	r->data_size = 0;
	for (unsigned s = 0; s < KVM_STAT_COUNT; s++)
		r->index[s] = -1;
}

void kvm_stats_delta(const struct kvm_stats_snapshot *before,
		     const struct kvm_stats_snapshot *after, struct kvm_stats_snapshot *out)
{
	for (unsigned s = 0; s < KVM_STAT_COUNT; s++) {
		out->valid[s] = before->valid[s] && after->valid[s];
		/* instant stats may fall: report no growth rather than a 2^64 wrap */
		if (out->valid[s] && after->value[s] >= before->value[s])
			out->value[s] = after->value[s] - before->value[s];
		else
			out->value[s] = 0;
	}
}
