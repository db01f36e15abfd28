// SPDX-License-Identifier: GPL-2.0
/*
 * Every vCPU of a VM with an in-kernel APIC is reachable by its APIC ID,
 * the last one created too: lock pvqspin's KVM_HC_KICK_CPU and pv-yield's
 * KVM_HC_SCHED_YIELD find their target through KVM's map of APIC IDs.
 * KVM builds that map while it resets a new vCPU's APIC, before the vCPU
 * counts as online, so without a rebuild the map lacks the last vCPU: under
 * Linux 6.1 a kick to it reached nobody and it stayed halted for good.
 *
 * Asked through KVM_SIGNAL_MSI, which delivers as a kick does (physical
 * destination, kvm_irq_delivery_to_apic) and returns how many APICs took
 * it: an NMI, which an APIC takes software-disabled as it is at reset. The
 * vCPUs never run. Skips (77, with the reason) where there is no usable
 * KVM or no KVM_SIGNAL_MSI.
 */
#include <check.h>
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "backends/kvm/elf_image.h"
#include "backends/kvm/vm.h"
#include "model/variant.h"
#include "measure/kvm_system.h"
#include "util/errbuf.h"
#include "support/check_main.h"

#define VCPUS	       4
#define MSI_ADDRESS    0xfee00000u /* destination APIC ID in bits 12-19, physical mode */
#define MSI_NMI	       (4u << 8)   /* delivery mode NMI */
#define MSI_DEST_SHIFT 12

static struct kvm_system sys;
static struct guest_image image;
static void *image_data;

/* How many APICs took an NMI sent to APIC ID @id; -errno on failure. */
static int nmi_to(const struct kvm_vm *vm, unsigned id)
{
	struct kvm_msi msi = {.address_lo = MSI_ADDRESS | id << MSI_DEST_SHIFT, .data = MSI_NMI};
	const int n = ioctl(vm->fd, KVM_SIGNAL_MSI, &msi);
	return n < 0 ? -errno : n;
}

START_TEST(every_vcpu_is_reachable_by_its_apic_id)
{
	struct plerig_config cfg = {.nr_vcpus = VCPUS};
	const struct vm_options opts = {.in_kernel_apic = true, .halt_poll_ns = HALT_POLL_HOST};
	struct kvm_vm vm;
	char err[ERRBUF_SIZE];
	ck_assert_msg(!kvm_vm_create(&vm, &sys, 0, &image, &cfg, &opts, err, sizeof(err)), "%s",
		      err);
	for (unsigned id = 0; id < VCPUS; id++) {
		const int took = nmi_to(&vm, id);
		ck_assert_msg(took == 1,
			      "an NMI to APIC ID %u of %u vCPUs reached %d APICs (1 expected): "
			      "KVM's APIC map lacks that vCPU",
			      id, VCPUS, took);
	}
	kvm_vm_destroy(&vm);
}
END_TEST

int main(void)
{
	char err[ERRBUF_SIZE];
	const char *guest = getenv("PLERIG_GUEST");
	if (!guest)
		return check_skip("PLERIG_GUEST must name the guest image");
	if (kvm_system_open(&sys, err, sizeof(err)))
		return check_skip("%s", err);
	if (ioctl(sys.fd, KVM_CHECK_EXTENSION, KVM_CAP_SIGNAL_MSI) <= 0)
		return check_skip("this KVM has no KVM_SIGNAL_MSI to ask its APIC map with");
	if (elf_image_read_file(guest, &image_data, &image.size, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	image.data = image_data;
	image.path = guest;
	Suite *s = suite_create("kvm apic");
	TCase *tc = tcase_create("map");
	tcase_add_test(tc, every_vcpu_is_reachable_by_its_apic_id);
	suite_add_tcase(s, tc);
	const int rc = check_run(s, CK_FORK_GETENV);
	free(image_data);
	kvm_system_close(&sys);
	return rc;
}
