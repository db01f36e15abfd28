/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host a run was measured on, in JSON: one shape for every document
 * plerig writes (results files, baselines), and one reader for it.
 */
#ifndef PLERIG_HOST_JSON_H
#define PLERIG_HOST_JSON_H

#include <json-c/json.h>

#include "measure/host_info.h"

/*
 * {"kernel", "kvm_module", "kvm_module_source" (only where the module was
 * inferred, not read: how), "cpu_model", "cpus", "cpus_online" (null:
 * unknown), "smt" (true, false, null: unknown), "ple_params": {"name":
 * value, ...}}: integers as numbers, anything else as text.
 */
json_object *host_json(const struct host_info *h);

/*
 * @h from @o, of host_json's shape or of the one baselines had before it
 * (ple_params "name=value ..." as one string, cpus_online always a number).
 * What is absent or of another type is empty, 0, or smt -1 (unknown).
 */
void host_from_json(json_object *o, struct host_info *h);

#endif
