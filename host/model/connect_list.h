/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `--connect URI1,URI2`: the hosts an experiment runs on, one libvirt URI
 * each. One place splits and checks the list, so `run`, `check` and the
 * suite file agree on what a list is.
 */
#ifndef PLERIG_CONNECT_LIST_H
#define PLERIG_CONNECT_LIST_H

#include <stdbool.h>
#include <stddef.h>

#define CONNECT_MAX_HOSTS 16u
#define CONNECT_URI_MAX	  1024u

/* An item of the list that means plerig's own embedded driver (the default with no --connect). */
#define CONNECT_EMBEDDED "embedded"
/*
 * An item that means the emulated host (backends/emulated/): Bochs, L1,
 * kvm_intel inside; "emulated:VENDOR" that of another emulated CPU vendor
 * (a section of images/l1/vendors.cfg: emulated:amd, kvm_amd under an
 * emulated Ryzen).
 */
#define CONNECT_EMULATED "emulated"
/*
 * `--connect auto` (alone; make run gives it): this machine where its KVM
 * device opens and a kvm variant would need it, else the emulated host.
 */
#define CONNECT_AUTO "auto"

struct connect_list {
	char uris[CONNECT_MAX_HOSTS][CONNECT_URI_MAX];
	unsigned nr;
};

/*
 * Split @text at its commas into @out: no empty item, none longer than
 * CONNECT_URI_MAX - 1, none twice (two connections to one daemon would run
 * two schedules on one machine's CPUs), at most CONNECT_MAX_HOSTS. NULL or
 * "" is no list (nr 0: the embedded driver). 0, or -1 with @err.
 */
int connect_list_parse(const char *text, struct connect_list *out, char *err, size_t errlen);

/* The URI to open for host @i: NULL for CONNECT_EMBEDDED. */
const char *connect_list_uri(const struct connect_list *l, unsigned i);

/* Is @uri (an item, or connect_list_uri's answer) the emulated host, of any vendor? */
bool connect_is_emulated(const char *uri);
/* The vendor of an emulated item: "amd" of emulated:amd; NULL for emulated (Intel's). */
const char *connect_emulated_vendor(const char *uri);
/*
 * How many items of @l are emulated hosts: one per vendor at most (emulated
 * and emulated:intel are the same one), emulated,emulated:amd the two side by
 * side, each under a Bochs of its own, which the experiment runs in turn.
 */
unsigned connect_list_emulated(const struct connect_list *l);

/*
 * The host part of @uri ("hostA" of qemu+ssh://root@hostA:22/system), what
 * a host that could not be reached is called; "" for a URI of this machine.
 */
void connect_uri_host(const char *uri, char *out, size_t len);

#endif
