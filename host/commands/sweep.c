// SPDX-License-Identifier: GPL-2.0
#include "commands/sweep.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/run_options.h"
#include "commands/run.h"
#include "ple/param_session.h"
#include "experiment/sweep_curve.h"
#include "cli/sweep_options.h"
#include "util/interrupt.h"
#include "util/strfmt.h"

#define EXIT_FAILED 1
#define EXIT_USAGE  2

struct sweep {
	const struct sweep_options *o;
	const char *guest;
	char tmpdir[PATH_MAX];
	char json[PATH_MAX];
	struct ple_session session;
	struct sweep_curve curve;
};

/*
 * One `plerig run` in this process, its JSON into s->json. Its table goes
 * to stderr as progress, so that stdout holds only the curve.
 */
static int run_matrix(struct sweep *s, char *err, size_t errlen)
{
	int argc = s->o->run_argc + 3;
	char **argv = calloc((size_t)argc + 1, sizeof(*argv));
	if (!argv) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	argv[0] = "run";
	for (int i = 0; i < s->o->run_argc; i++)
		argv[1 + i] = s->o->run_argv[i];
	argv[argc - 2] = "--json";
	argv[argc - 1] = s->json;

	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	if (saved < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		int e = errno;
		snprintf(err, errlen, "redirecting the run's table to stderr: %s", strerror(e));
		if (saved >= 0)
			close(saved);
		free(argv);
		return -e;
	}
	unlink(s->json); /* a failed run must not leave the previous point's results */
	int status = runner_main(argc, argv, s->guest);
	fflush(stdout);
	if (dup2(saved, STDOUT_FILENO) < 0) {
		int e = errno;
		snprintf(err, errlen, "restoring stdout after the run: %s", strerror(e));
		close(saved);
		free(argv);
		return -e;
	}
	close(saved);
	free(argv);
	return status;
}

static void describe(const struct ple_setting *set, unsigned n, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "",
					 set[i].name, set[i].value);
}

/* Every combination in turn. Returns the exit status so far (0, 1 or 128+N). */
static int sweep_all(struct sweep *s)
{
	const struct sweep_options *o = s->o;
	unsigned total = sweep_points(o);
	int status = 0;
	char err[1024], what[256];

	for (unsigned k = 0; k < total; k++) {
		struct ple_setting set[PLE_MAX_PARAMS];
		if (interrupt_requested())
			break;
		sweep_point_settings(o, k, set);
		describe(set, o->nr_axes, what, sizeof(what));
		fprintf(stderr, "plerig sweep: [%u/%u] %s\n", k + 1, total, what);
		if (ple_session_apply(&s->session, set, o->nr_axes, err, sizeof(err))) {
			fprintf(stderr, "plerig sweep: %s\n", err);
			sweep_curve_add_failure(&s->curve, set, err);
			return EXIT_FAILED;
		}
		int rc = run_matrix(s, err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "plerig sweep: %s\n", err);
			return EXIT_FAILED;
		}
		if (rc >= 128) /* interrupted: the runner already said so */
			return rc;
		if (rc == EXIT_USAGE) /* cannot happen after the check, but never loop on it */
			return EXIT_USAGE;
		if (access(s->json, F_OK) == 0) {
			if (sweep_curve_add_results(&s->curve, s->json, set, err, sizeof(err))) {
				fprintf(stderr, "plerig sweep: %s\n", err);
				sweep_curve_add_failure(&s->curve, set, err);
				status = EXIT_FAILED;
			}
		} else {
			sweep_curve_add_failure(&s->curve, set, "the run wrote no results");
		}
		if (rc)
			status = EXIT_FAILED;
	}
	return status;
}

/* Before anything changes: the run options must be valid. */
static int check_run_options(const struct sweep_options *o)
{
	struct run_plan ro;
	char err[512];
	char **argv = calloc((size_t)o->run_argc + 2, sizeof(*argv));
	if (!argv)
		return EXIT_FAILED;
	argv[0] = "run";
	for (int i = 0; i < o->run_argc; i++)
		argv[1 + i] = o->run_argv[i];
	enum run_options_status st =
	    run_options_parse(o->run_argc + 1, argv, &ro, err, sizeof(err));
	free(argv);
	if (st == RUN_OPTIONS_ERROR) {
		fprintf(stderr, "plerig sweep: run options: %s\n", err);
		return EXIT_USAGE;
	}
	return st == RUN_OPTIONS_HELP ? -1 : 0;
}

static const char *tmp_root(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

/*
 * A sweep killed with -9 cannot remove its directory, named after its
 * pid: remove those whose sweep is gone (a directory holds at most the
 * results file of one run).
 */
static void remove_stale_tmp(void)
{
	DIR *d = opendir(tmp_root());
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		int pid;
		char path[PATH_MAX], proc[32];
		if (sscanf(e->d_name, "plerig-sweep-%d-", &pid) != 1 || pid <= 0)
			continue;
		snprintf(proc, sizeof(proc), "/proc/%d", pid);
		if (access(proc, F_OK) == 0 ||
		    pathf(path, sizeof(path), "%s/%s/run.json", tmp_root(), e->d_name))
			continue;
		unlink(path);
		if (!pathf(path, sizeof(path), "%s/%s", tmp_root(), e->d_name))
			rmdir(path);
	}
	closedir(d);
}

static int make_tmp(struct sweep *s)
{
	const char *t = tmp_root();
	remove_stale_tmp();
	if (pathf(s->tmpdir, sizeof(s->tmpdir), "%s/plerig-sweep-%d-XXXXXX", t, (int)getpid()) ||
	    !mkdtemp(s->tmpdir)) {
		fprintf(stderr, "plerig sweep: creating a temporary directory %s: %s\n", s->tmpdir,
			strerror(errno));
		return -1;
	}
	return pathf(s->json, sizeof(s->json), "%s/run.json", s->tmpdir);
}

static int write_outputs(const struct sweep *s)
{
	char err[512];
	int rc = 0;
	/* the table goes to stdout unless a file took stdout */
	bool stdout_taken = (s->o->json_path && !strcmp(s->o->json_path, "-")) ||
			    (s->o->csv_path && !strcmp(s->o->csv_path, "-"));
	sweep_curve_print(stdout_taken ? stderr : stdout, &s->curve);
	if (s->o->json_path &&
	    sweep_curve_write_json(&s->curve, s->o->json_path, err, sizeof(err))) {
		fprintf(stderr, "plerig sweep: %s\n", err);
		rc = -1;
	}
	if (s->o->csv_path && sweep_curve_write_csv(&s->curve, s->o->csv_path, err, sizeof(err))) {
		fprintf(stderr, "plerig sweep: %s\n", err);
		rc = -1;
	}
	return rc;
}

static int restore_only(void)
{
	char msg[1024];
	remove_stale_tmp();
	int rc = ple_restore_from_state(msg, sizeof(msg));
	if (rc < 0) {
		fprintf(stderr, "plerig sweep --restore: %s\n", msg);
		return EXIT_FAILED;
	}
	printf("plerig sweep --restore: %s%s\n", rc ? "restored " : "", msg);
	return 0;
}

int sweep_main(int argc, char **argv, const char *default_guest_path)
{
	struct sweep_options o;
	char err[1024];
	switch (sweep_options_parse(argc, argv, &o, err, sizeof(err))) {
	case SWEEP_OPTIONS_HELP:
		return 0;
	case SWEEP_OPTIONS_ERROR:
		fprintf(stderr, "plerig sweep: %s\n", err);
		return EXIT_USAGE;
	case SWEEP_OPTIONS_OK:
		break;
	}
	if (o.restore)
		return restore_only();
	int st = check_run_options(&o);
	if (st)
		return st < 0 ? 0 : st;
	/* from here on Ctrl-C only raises a flag: the originals always go back */
	if (interrupt_install()) {
		perror("plerig sweep: installing signal handlers");
		return EXIT_FAILED;
	}

	static struct sweep s; /* the curve and the session are large */
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.guest = default_guest_path;
	const char *names[PLE_MAX_PARAMS];
	struct ple_setting axes[PLE_MAX_PARAMS];
	for (unsigned i = 0; i < o.nr_axes; i++) {
		names[i] = o.axes[i].name;
		snprintf(axes[i].name, sizeof(axes[i].name), "%s", o.axes[i].name);
	}
	if (ple_session_begin(&s.session, names, o.nr_axes, err, sizeof(err))) {
		fprintf(stderr, "plerig sweep: %s\n", err);
		return EXIT_FAILED;
	}
	sweep_curve_init(&s.curve, axes, o.nr_axes);
	int status = make_tmp(&s) ? EXIT_FAILED : sweep_all(&s);

	if (ple_session_restore(&s.session, err, sizeof(err))) {
		fprintf(stderr, "plerig sweep: restoring the original values: %s\n", err);
		if (status == 0)
			status = EXIT_FAILED;
	} else {
		fprintf(stderr, "plerig sweep: original %s parameters restored\n",
			s.session.state.module);
	}
	if (s.tmpdir[0]) {
		unlink(s.json);
		rmdir(s.tmpdir);
	}
	if (write_outputs(&s) && status == 0)
		status = EXIT_FAILED;
	sweep_curve_free(&s.curve);
	if (interrupt_requested()) {
		fprintf(stderr, "plerig sweep: interrupted\n");
		status = 128 + interrupt_signal();
	}
	return status;
}
