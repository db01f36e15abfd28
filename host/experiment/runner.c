// SPDX-License-Identifier: GPL-2.0
#include "experiment/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/run_options.h"
#include "experiment/backend.h"
#include "experiment/matrix.h"
#include "experiment/results.h"
#include "kvm/kvm_backend.h"
#include "report/json_report.h"
#include "report/table.h"
#include "util/interrupt.h"

#define EXIT_RUN_FAILED 1
#define EXIT_USAGE	2

static char *join_command_line(int argc, char **argv)
{
	size_t len = sizeof("plerig");
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *s = malloc(len);
	if (!s)
		return NULL;
	strcpy(s, "plerig");
	for (int i = 0; i < argc; i++) {
		strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

static void progress(const struct run_options *o, unsigned i, unsigned n, const struct variant *v)
{
	if (o->quiet)
		return;
	char cpus[64];
	cpulist_format(v->pcpus, v->nr_pcpus, cpus, sizeof(cpus));
	fprintf(stderr, "[%u/%u] %s %s/%s ring %s: %u VM x %u vCPU on CPUs %s, %.1f s ...\n", i + 1,
		n, backend_name(v->backend), lock_name(v->lock), relax_name(v->relax),
		ring_name(v->ring), v->vms, v->vcpus, cpus, v->warmup_s + v->duration_s);
}

/* Run every variant in order; stop early on Ctrl-C. Returns how many ran. */
static unsigned run_matrix(const struct run_options *o, struct backend *b,
			   const struct variant *variants, unsigned nr,
			   struct variant_result *results)
{
	unsigned done = 0;
	for (unsigned i = 0; i < nr && !interrupt_requested(); i++) {
		progress(o, i, nr, &variants[i]);
		b->run(b, &variants[i], &results[i]);
		done = i + 1;
		if (interrupt_requested() && !results[i].ok)
			break; /* the interrupted variant is reported as such, not as a result */
		report_table_row(stdout, &results[i]);
		fflush(stdout);
	}
	return done;
}

int runner_main(int argc, char **argv, const char *default_guest_path)
{
	struct run_options o;
	char err[512];
	switch (run_options_parse(argc, argv, &o, err, sizeof(err))) {
	case RUN_OPTIONS_HELP:
		return 0;
	case RUN_OPTIONS_ERROR:
		fprintf(stderr, "plerig run: %s\n", err);
		return EXIT_USAGE;
	case RUN_OPTIONS_OK:
		break;
	}
	if (interrupt_install()) {
		perror("plerig run: installing signal handlers");
		return EXIT_RUN_FAILED;
	}
	const char *guest = o.guest_path ? o.guest_path : default_guest_path;
	struct backend *b = kvm_backend_open(guest, err, sizeof(err));
	if (!b) {
		fprintf(stderr, "plerig run: %s\n", err);
		return EXIT_RUN_FAILED;
	}

	struct variant *variants = NULL;
	unsigned nr = 0;
	int status = EXIT_RUN_FAILED;
	struct variant_result *results = NULL;
	char *cmdline = join_command_line(argc, argv);
	if (run_options_expand(&o, b->default_ring, &variants, &nr) ||
	    !(results = calloc(nr, sizeof(*results))) || !cmdline) {
		fprintf(stderr, "plerig run: out of memory\n");
		goto out;
	}
	if (!o.quiet)
		fprintf(stderr, "plerig: %s; %u variant(s)\n", b->description, nr);
	report_table_header(stdout);
	unsigned ran = run_matrix(&o, b, variants, nr, results);

	status = 0;
	for (unsigned i = 0; i < ran; i++)
		if (!results[i].ok)
			status = EXIT_RUN_FAILED;
	if (o.json_path &&
	    json_report_write(o.json_path, results, ran, cmdline, err, sizeof(err))) {
		fprintf(stderr, "plerig run: %s\n", err);
		status = EXIT_RUN_FAILED;
	}
	if (!o.quiet)
		report_table_legend(stderr);
	if (interrupt_requested()) {
		fprintf(stderr, "plerig run: interrupted; %u of %u variant(s) completed%s\n",
			ran ? ran - !results[ran - 1].ok : 0, nr,
			o.json_path ? " and written to the JSON file" : "");
		status = 128 + interrupt_signal();
	}
	for (unsigned i = 0; i < ran; i++)
		variant_result_free(&results[i]);
out:
	free(cmdline);
	free(results);
	free(variants);
	b->close(b);
	return status;
}
