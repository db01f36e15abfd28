/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine a libvirt connection runs VMs on, as libvirt reports it:
 * hostname (virConnectGetHostname), CPUs (virNodeGetInfo), CPU model
 * (virConnectGetSysinfo's processor version, else the host CPU of
 * virConnectGetCapabilities), QEMU and libvirt versions, and the KVM module
 * inferred from the capabilities (lv_caps_kvm_module; kvm_module_source says
 * so). libvirt does not report the host's kernel or PLE parameters: those
 * say "unknown", and unknown_why says so.
 */
#ifndef PLERIG_LV_HOST_INFO_H
#define PLERIG_LV_HOST_INFO_H

#include <libvirt/libvirt.h>

#include "measure/host_info.h"

/* 0, or -1 with @err where libvirt does not answer. @shown: the URI without credentials. */
int lv_host_info(virConnectPtr conn, const char *shown, struct host_info *h, char *err,
		 size_t errlen);

/* The text of the first <@tag>...</@tag> of @xml after @after (NULL: anywhere); 0 or -1. */
int lv_xml_text(const char *xml, const char *after, const char *tag, char *out, size_t len);

#endif
