// SPDX-License-Identifier: GPL-2.0
/*
 * kvm_stats against the running kernel: a real VM with one vCPU that never
 * runs, so its counters must stand still. Skips (with a reason on stdout)
 * where /dev/kvm cannot be opened.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "measure/kvm_stats.h"
#include "support/check_main.h"

struct test_vm {
	int kvm, vm, vcpu;
};

static char err[256];

/* false (and a SKIP line) when this machine has no usable KVM */
static bool vm_open(struct test_vm *t)
{
	t->vm = t->vcpu = -1;
	t->kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (t->kvm < 0) {
		printf("SKIP: cannot open /dev/kvm: %s\n", strerror(errno));
		return false;
	}
	t->vm = ioctl(t->kvm, KVM_CREATE_VM, 0);
	ck_assert_msg(t->vm >= 0, "KVM_CREATE_VM: %s", strerror(errno));
	t->vcpu = ioctl(t->vm, KVM_CREATE_VCPU, 0);
	ck_assert_msg(t->vcpu >= 0, "KVM_CREATE_VCPU: %s", strerror(errno));
	return true;
}

static void vm_close(struct test_vm *t)
{
	if (t->vcpu >= 0)
		close(t->vcpu);
	if (t->vm >= 0)
		close(t->vm);
	if (t->kvm >= 0)
		close(t->kvm);
}

static const char *type_name(uint32_t flags)
{
	static const char *const names[] = {"cumulative", "instant", "peak", "linear_hist",
					    "log_hist"};
	uint32_t type = (flags & KVM_STATS_TYPE_MASK) >> KVM_STATS_TYPE_SHIFT;

	return type < sizeof(names) / sizeof(names[0]) ? names[type] : "?";
}

/* Independent of the reader on purpose: list what the kernel offers. */
static void print_all_stats(int object_fd, const char *what)
{
	struct kvm_stats_header h;
	int fd = ioctl(object_fd, KVM_GET_STATS_FD, NULL);
	size_t stride;
	char *descs;

	ck_assert_msg(fd >= 0, "KVM_GET_STATS_FD: %s", strerror(errno));
	ck_assert_int_eq(pread(fd, &h, sizeof(h), 0), sizeof(h));
	stride = sizeof(struct kvm_stats_desc) + h.name_size;
	descs = malloc(stride * h.num_desc);
	ck_assert_ptr_nonnull(descs);
	ck_assert_int_eq(pread(fd, descs, stride * h.num_desc, h.desc_offset),
			 (ssize_t)(stride * h.num_desc));
	printf("%s stats offered by this kernel (%u):\n", what, h.num_desc);
	for (unsigned i = 0; i < h.num_desc; i++) {
		struct kvm_stats_desc d;

		memcpy(&d, descs + i * stride, sizeof(d));
		printf("  %-40.*s %-11s size %u offset %u\n", (int)h.name_size,
		       descs + i * stride + sizeof(d), type_name(d.flags), d.size, d.offset);
	}
	free(descs);
	close(fd);
}

START_TEST(test_list_stats)
{
	struct kvm_stats_reader r;
	struct test_vm t;

	if (!vm_open(&t))
		return;
	print_all_stats(t.vm, "VM");
	print_all_stats(t.vcpu, "vCPU");
	ck_assert_msg(kvm_stats_open(&r, t.vcpu, err, sizeof(err)) == 0, "%s", err);
	printf("plerig's vCPU stats on this kernel:\n");
	for (unsigned s = 0; s < KVM_STAT_COUNT; s++)
		printf("  %-28s %s\n", kvm_stat_name(s),
		       r.index[s] >= 0 ? "present" : "ABSENT (reported as invalid)");
	kvm_stats_close(&r);
	vm_close(&t);
}
END_TEST

START_TEST(test_vcpu_exits_valid)
{
	struct kvm_stats_reader r;
	struct kvm_stats_snapshot snap;
	struct test_vm t;

	if (!vm_open(&t))
		return;
	ck_assert_msg(kvm_stats_open(&r, t.vcpu, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_ge(r.fd, 0);
	ck_assert_int_ge(r.index[KVM_STAT_EXITS], 0);
	ck_assert_uint_ge(r.data_size, (r.index[KVM_STAT_EXITS] + 1) * sizeof(uint64_t));
	ck_assert_msg(kvm_stats_read(&r, &snap, err, sizeof(err)) == 0, "%s", err);
	ck_assert(snap.valid[KVM_STAT_EXITS]);
	for (unsigned s = 0; s < KVM_STAT_COUNT; s++)
		ck_assert_int_eq(snap.valid[s], r.index[s] >= 0);
	kvm_stats_close(&r);
	ck_assert_int_eq(r.fd, -1);
	kvm_stats_close(&r); /* closing twice is harmless */
	vm_close(&t);
}
END_TEST

START_TEST(test_idle_delta_zero)
{
	struct kvm_stats_snapshot a, b, d;
	struct kvm_stats_reader r;
	struct test_vm t;

	if (!vm_open(&t))
		return;
	ck_assert_msg(kvm_stats_open(&r, t.vcpu, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(kvm_stats_read(&r, &a, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(kvm_stats_read(&r, &b, err, sizeof(err)) == 0, "%s", err);
	kvm_stats_delta(&a, &b, &d);
	ck_assert(d.valid[KVM_STAT_EXITS]);
	for (unsigned s = 0; s < KVM_STAT_COUNT; s++)
		ck_assert_msg(d.value[s] == 0, "%s moved by %llu on an idle vCPU", kvm_stat_name(s),
			      (unsigned long long)d.value[s]);
	kvm_stats_close(&r);
	vm_close(&t);
}
END_TEST

/* Real mode at 0x1000: out 0x10, al three times, then hlt. */
static void run_tiny_guest(struct test_vm *t, void *mem)
{
	static const uint8_t code[] = {0xe6, 0x10, 0xe6, 0x10, 0xe6, 0x10, 0xf4};
	struct kvm_userspace_memory_region region = {
	    .guest_phys_addr = 0x1000,
	    .memory_size = 0x1000,
	    .userspace_addr = (uintptr_t)mem,
	};
	struct kvm_regs regs = {.rip = 0x1000, .rflags = 2};
	struct kvm_sregs sregs;
	struct kvm_run *run;
	int run_size;

	memcpy(mem, code, sizeof(code));
	ck_assert_msg(ioctl(t->vm, KVM_SET_USER_MEMORY_REGION, &region) == 0, "memory: %s",
		      strerror(errno));
	run_size = ioctl(t->kvm, KVM_GET_VCPU_MMAP_SIZE, 0);
	ck_assert_int_gt(run_size, 0);
	run = mmap(NULL, (size_t)run_size, PROT_READ | PROT_WRITE, MAP_SHARED, t->vcpu, 0);
	ck_assert_ptr_ne(run, MAP_FAILED);
	ck_assert_int_eq(ioctl(t->vcpu, KVM_GET_SREGS, &sregs), 0);
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	ck_assert_int_eq(ioctl(t->vcpu, KVM_SET_SREGS, &sregs), 0);
	ck_assert_int_eq(ioctl(t->vcpu, KVM_SET_REGS, &regs), 0);
	for (int i = 0; i < 8; i++) {
		ck_assert_msg(ioctl(t->vcpu, KVM_RUN, 0) == 0, "KVM_RUN: %s", strerror(errno));
		if (run->exit_reason != KVM_EXIT_IO)
			break;
	}
	ck_assert_uint_eq(run->exit_reason, KVM_EXIT_HLT);
	munmap(run, (size_t)run_size);
}

/* Proves the offsets are right: the counters move when, and only when, it runs. */
START_TEST(test_running_vcpu_counts)
{
	struct kvm_stats_snapshot a, b, d;
	struct kvm_stats_reader r;
	struct test_vm t;
	void *mem;

	if (!vm_open(&t))
		return;
	mem = mmap(NULL, 0x1000, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	ck_assert_msg(kvm_stats_open(&r, t.vcpu, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(kvm_stats_read(&r, &a, err, sizeof(err)) == 0, "%s", err);
	run_tiny_guest(&t, mem);
	ck_assert_msg(kvm_stats_read(&r, &b, err, sizeof(err)) == 0, "%s", err);
	kvm_stats_delta(&a, &b, &d);
	printf("after 3 OUTs and a HLT:");
	for (unsigned s = 0; s < KVM_STAT_COUNT; s++)
		if (d.value[s])
			printf(" %s=%llu", kvm_stat_name(s), (unsigned long long)d.value[s]);
	printf("\n");
	ck_assert(d.valid[KVM_STAT_EXITS]);
	ck_assert_uint_ge(d.value[KVM_STAT_EXITS], 1);
	ck_assert_uint_eq(d.value[KVM_STAT_INSN_EMULATION_FAIL], 0);
	kvm_stats_close(&r);
	vm_close(&t);
	munmap(mem, 0x1000);
}
END_TEST

START_TEST(test_vm_fd)
{
	struct kvm_stats_snapshot snap;
	struct kvm_stats_reader r;
	struct test_vm t;

	if (!vm_open(&t))
		return;
	/* VM-wide stats open and read fine; they just lack the per-vCPU names */
	ck_assert_msg(kvm_stats_open(&r, t.vm, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(kvm_stats_read(&r, &snap, err, sizeof(err)) == 0, "%s", err);
	ck_assert(!snap.valid[KVM_STAT_EXITS]);
	kvm_stats_close(&r);
	vm_close(&t);
}
END_TEST

START_TEST(test_not_kvm_fd)
{
	struct kvm_stats_reader r;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	err[0] = '\0';
	ck_assert_int_lt(kvm_stats_open(&r, fd, err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "KVM_GET_STATS_FD"), "got: %s", err);
	ck_assert_int_eq(r.fd, -1);
	ck_assert_ptr_null(r.buf);
	kvm_stats_close(&r);
	close(fd);

	ck_assert_int_eq(kvm_stats_open(&r, -1, err, sizeof(err)), -EBADF);
}
END_TEST

START_TEST(test_delta)
{
	struct kvm_stats_snapshot a = {0}, b = {0}, d;

	a.valid[0] = b.valid[0] = true;
	a.value[0] = 10;
	b.value[0] = 25;
	b.valid[1] = true; /* valid only after */
	b.value[1] = 7;
	a.valid[2] = b.valid[2] = true; /* an instant stat that fell */
	a.value[2] = 9;
	b.value[2] = 4;
	kvm_stats_delta(&a, &b, &d);
	ck_assert(d.valid[0]);
	ck_assert_uint_eq(d.value[0], 15);
	ck_assert(!d.valid[1]);
	ck_assert_uint_eq(d.value[1], 0);
	ck_assert(d.valid[2]);
	ck_assert_uint_eq(d.value[2], 0);
	ck_assert(!d.valid[3]);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(kvm_stat_name(KVM_STAT_EXITS), "exits");
	ck_assert_str_eq(kvm_stat_name(KVM_STAT_INSN_EMULATION_FAIL), "insn_emulation_fail");
	for (unsigned i = 0; i < KVM_STAT_COUNT; i++) {
		ck_assert_ptr_nonnull(kvm_stat_name(i));
		for (unsigned j = 0; j < i; j++)
			ck_assert_str_ne(kvm_stat_name(i), kvm_stat_name(j));
	}
	ck_assert_str_eq(kvm_stat_name(KVM_STAT_COUNT), "?");
}
END_TEST

static Suite *kvm_stats_suite(void)
{
	Suite *s = suite_create("kvm_stats");
	TCase *kvm = tcase_create("real_vm");
	TCase *pure = tcase_create("pure");

	tcase_add_test(kvm, test_list_stats);
	tcase_add_test(kvm, test_vcpu_exits_valid);
	tcase_add_test(kvm, test_idle_delta_zero);
	tcase_add_test(kvm, test_running_vcpu_counts);
	tcase_add_test(kvm, test_vm_fd);
	tcase_add_test(kvm, test_not_kvm_fd);
	tcase_add_test(pure, test_delta);
	tcase_add_test(pure, test_names);
	suite_add_tcase(s, kvm);
	suite_add_tcase(s, pure);
	return s;
}

int main(void)
{
	int kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	int rc;

	if (kvm >= 0)
		close(kvm);
	rc = check_run(kvm_stats_suite(), CK_FORK_GETENV);
	if (rc != EXIT_SUCCESS || kvm >= 0)
		return rc;
	/* the pure tests ran; the VM ones returned early and said why */
	return check_skip("/dev/kvm is not usable here: only the pure tests ran");
}
