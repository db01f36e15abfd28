// SPDX-License-Identifier: GPL-2.0
/* The CSV results file: one row per variant x repeat x vCPU, RFC 4180 quoting. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/csv_cell.h"
#include "output/csv_writer.h"
#include "support/check_main.h"
#include "support/scratch_dir.h"
#include "support/fixtures.h"

#define NR_COLUMNS 61
#define MAX_ROWS   64

static const char *const header =
    "variant,backend,lock,relax,ring,vms,vcpus,pcpus,repeat,ok,vm,vcpu,host_cpu,acquisitions,"
    "contended,stalls,stalled_ns,wait_p50_ns,wait_p99_ns,wait_max_ns,wait_mean_ns,"
    "holder_preemptions,run_delay_ns,run_time_ns,exits,interval_s,ple,irq_exits,"
    "pause_loop_exits,ple_window_updates,directed_yield_attempted,directed_yield_successful,"
    "stalls_self_preempted,holder_preemptions_steal,acq_per_cpu_s,lifetime_exits,"
    "lifetime_pause_loop_exits,lifetime_ple_window_updates,exits_timed,exit_ns,"
    "ple_exits_timed,ple_exit_ns,exit_records_lost,exit_reasons_top,halts,kicks_sent,"
    "kicks_received,spurious_wakeups,early_halts,kick_latency_p50_ns,kick_latency_p99_ns,"
    "kick_latency_max_ns,halt_exits,halt_wakeup,halt_successful_poll,halt_attempted_poll,"
    "halt_poll_invalid,halt_poll_success_ns,halt_poll_fail_ns,halt_poll_ns,host";

static struct outcome rep;
static struct series series[2];
static char dir[SCRATCH_DIR_LEN];
static char path[SCRATCH_DIR_LEN + 16];
static char err[512];

/* The file split into rows of fields, quotes undone. */
static char *cells[MAX_ROWS][NR_COLUMNS + 1];
static unsigned widths[MAX_ROWS];
static unsigned nr_rows;

/* Each record busy with acq + its index; vCPU 1 of each run has no exit count. */
static void fill_run(struct variant_result *r, const struct variant *v, uint64_t acq)
{
	fixture_result(r, v, 0.5);
	for (unsigned i = 0; i < r->nr_records; i++) {
		struct vcpu_record *rec = &r->records[i];
		rec->guest.acquisitions = acq + i;
		rec->guest.contended = 7;
		rec->guest.stalls = 1;
		rec->guest.stalled_cycles = 1000;
		rec->guest.wait_total_cycles = 3 * (acq + i);
		rec->guest.holder_preemptions = 2;
		rec->sched.wait_ns = 123;
		rec->sched.run_ns = 456;
		/* an empty field, not 0 */
		rec->kvm.valid[KVM_STAT_EXITS] = i != 1;
		rec->kvm.value[KVM_STAT_EXITS] = 99;
		/* vCPU 0 has whole-life counts, PAUSE-loop exits among them */
		rec->lifetime.valid = i == 0;
		rec->lifetime.exits_valid = true;
		rec->lifetime.exits = 150;
		rec->lifetime.ple.pause_exits_valid = true;
		rec->lifetime.ple.pause_exits = 12;
		/* --exit-times on the kvm runs: 4 PAUSE-loop exits (VMX) and 6 HLTs timed */
		if (v->backend == BACKEND_KVM) {
			struct exit_times *t = &rec->exit_times;
			t->valid = true;
			t->exits = 10;
			t->ns = 5000;
			t->lost = 3;
			t->nr_reasons = 2;
			t->reason[0] = (struct exit_reason_time){12, 6, 3000};
			t->reason[1] = (struct exit_reason_time){40, 4, 2000};
		}
	}
	r->ple_exit_reason = 40;
}

/* kvm on CPUs 0,2 (a list with a comma) x 3 runs x 2 vCPUs; native floating x 3 runs x 4. */
static void setup(void)
{
	static const unsigned cpus[] = {0, 2};
	struct variant v = fixture_variant(BACKEND_KVM, 2, PLERIG_LOCK_TICKET, PLERIG_RELAX_PAUSE);

	v.ring = PLERIG_RING_USER;
	fixture_pin(&v, cpus, 2);
	fixture_series(&series[0], &v, 3);
	for (unsigned i = 0; i < 3; i++)
		fill_run(&series[0].runs[i], &v, 1000 * (i + 1));

	v.backend = BACKEND_NATIVE;
	v.relax = PLERIG_RELAX_REP_PAUSE;
	v.vms = 2;
	v.pin_each = false;
	fixture_series(&series[1], &v, 3);
	for (unsigned i = 0; i < 3; i++)
		fill_run(&series[1].runs[i], &v, 10);

	memset(&rep, 0, sizeof(rep));
	rep.series = series;
	rep.nr_series = 2;
	rep.repeat = 3;

	scratch_dir(dir, sizeof(dir), "csv");
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	err[0] = '\0';
	nr_rows = 0;
}

static void free_cells(void)
{
	for (unsigned r = 0; r < nr_rows; r++)
		for (unsigned c = 0; c < widths[r]; c++)
			free(cells[r][c]);
	nr_rows = 0;
}

static void teardown(void)
{
	free_cells();
	series_free(&series[0]);
	series_free(&series[1]);
	unlink(path);
	rmdir(dir);
}

/* An RFC 4180 reader, strict: a quote inside an unquoted field is an error. */
static void parse(const char *text)
{
	const char *p = text;
	char field[256];

	free_cells();
	while (*p) {
		ck_assert_uint_lt(nr_rows, MAX_ROWS);
		unsigned r = nr_rows++, c = 0;
		widths[r] = 0;
		for (;;) {
			size_t n = 0;
			if (*p == '"') {
				for (p++;; p++) {
					ck_assert_msg(*p, "unterminated quoted field in row %u", r);
					if (*p == '"' && p[1] == '"')
						p++;
					else if (*p == '"')
						break;
					field[n++] = *p;
				}
				p++;
			} else {
				for (; *p && *p != ',' && *p != '\n'; p++) {
					ck_assert_msg(*p != '"' && *p != '\r',
						      "bare quote or CR in row %u", r);
					field[n++] = *p;
				}
			}
			field[n] = '\0';
			ck_assert_uint_le(c, NR_COLUMNS);
			cells[r][c++] = strdup(field);
			widths[r] = c;
			if (*p == ',') {
				p++;
				continue;
			}
			ck_assert_msg(*p == '\n', "row %u does not end in a newline", r);
			p++;
			break;
		}
	}
}

static char *slurp(const char *file)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = fopen(file, "r");

	ck_assert_ptr_nonnull(f);
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = strdup("");
	}
	fclose(f);
	return text;
}

static void write_and_parse(void)
{
	ck_assert_msg(csv_results_write(path, &rep, err, sizeof(err)) == 0, "%s", err);
	char *text = slurp(path);
	parse(text);
	free(text);
}

static const char *cell(unsigned row, const char *column)
{
	for (unsigned c = 0; c < widths[0]; c++)
		if (!strcmp(cells[0][c], column))
			return cells[row][c];
	ck_abort_msg("no column %s", column);
	return NULL;
}

START_TEST(test_header_and_rows)
{
	char *text;

	ck_assert_int_eq(csv_results_write(path, &rep, err, sizeof(err)), 0);
	text = slurp(path);
	ck_assert_msg(!strncmp(text, header, strlen(header)) && text[strlen(header)] == '\n',
		      "header is '%.300s'", text);
	parse(text);
	free(text);
	/* variants x runs x vCPUs, plus the header */
	ck_assert_uint_eq(nr_rows, 3 * 2 + 3 * 4 + 1);
	for (unsigned r = 0; r < nr_rows; r++)
		ck_assert_msg(widths[r] == NR_COLUMNS, "row %u has %u fields", r, widths[r]);
}
END_TEST

START_TEST(test_fields)
{
	write_and_parse();
	/* row 1: kvm, repeat 0, vCPU 0 */
	ck_assert_str_eq(cell(1, "variant"), "0");
	ck_assert_str_eq(cell(1, "backend"), "kvm");
	ck_assert_str_eq(cell(1, "lock"), "ticket");
	ck_assert_str_eq(cell(1, "relax"), "pause");
	ck_assert_str_eq(cell(1, "ring"), "user");
	ck_assert_str_eq(cell(1, "pcpus"), "0,2");
	ck_assert_str_eq(cell(1, "repeat"), "0");
	ck_assert_str_eq(cell(1, "ok"), "1");
	ck_assert_str_eq(cell(1, "vm"), "0");
	ck_assert_str_eq(cell(1, "vcpu"), "0");
	ck_assert_str_eq(cell(1, "host_cpu"), "0");
	ck_assert_str_eq(cell(1, "acquisitions"), "1000");
	ck_assert_str_eq(cell(1, "contended"), "7");
	ck_assert_str_eq(cell(1, "stalls"), "1");
	ck_assert_str_eq(cell(1, "stalled_ns"), "1000");
	ck_assert_str_eq(cell(1, "wait_mean_ns"), "3");
	ck_assert_str_eq(cell(1, "holder_preemptions"), "2");
	ck_assert_str_eq(cell(1, "run_delay_ns"), "123");
	ck_assert_str_eq(cell(1, "run_time_ns"), "456");
	ck_assert_str_eq(cell(1, "exits"), "99");
	ck_assert_str_eq(cell(1, "interval_s"), "0.5");
	/* 1000 acquisitions in 456 ns of CPU received */
	ck_assert_double_eq_tol(strtod(cell(1, "acq_per_cpu_s"), NULL), 1000 / 456e-9, 1.0);
	ck_assert_str_eq(cell(1, "ple"), "on");
	ck_assert_str_eq(cell(1, "lifetime_exits"), "150");
	ck_assert_str_eq(cell(1, "lifetime_pause_loop_exits"), "12");
	ck_assert_str_eq(cell(1, "lifetime_ple_window_updates"), ""); /* not counted */
	ck_assert_str_eq(cell(1, "exits_timed"), "10");
	ck_assert_str_eq(cell(1, "exit_ns"), "5000");
	ck_assert_str_eq(cell(1, "ple_exits_timed"), "4");
	ck_assert_str_eq(cell(1, "ple_exit_ns"), "2000");
	ck_assert_str_eq(cell(1, "exit_records_lost"), "3");
	ck_assert_str_eq(cell(1, "exit_reasons_top"), "12:6:3000 40:4:2000");
	/* row 2: vCPU 1 on CPU 2, without an exit count */
	ck_assert_str_eq(cell(2, "host_cpu"), "2");
	ck_assert_str_eq(cell(2, "exits"), "");
	ck_assert_str_eq(cell(2, "irq_exits"), "");
	ck_assert_str_eq(cell(2, "lifetime_exits"), ""); /* no whole-life counts */
	/* row 6: kvm, repeat 2, vCPU 1 */
	ck_assert_str_eq(cell(6, "repeat"), "2");
	ck_assert_str_eq(cell(6, "acquisitions"), "3001");
	/* row 7: native, VM 0 vCPU 0, floating: no host CPU */
	ck_assert_str_eq(cell(7, "variant"), "1");
	ck_assert_str_eq(cell(7, "backend"), "native");
	ck_assert_str_eq(cell(7, "relax"), "rep-pause");
	ck_assert_str_eq(cell(7, "vms"), "2");
	ck_assert_str_eq(cell(7, "host_cpu"), "");
	/* no exit times there: empty, not 0 */
	ck_assert_str_eq(cell(7, "exits_timed"), "");
	ck_assert_str_eq(cell(7, "ple_exit_ns"), "");
	ck_assert_str_eq(cell(7, "exit_reasons_top"), "");
	/* row 10: VM 1 vCPU 1 */
	ck_assert_str_eq(cell(10, "vm"), "1");
	ck_assert_str_eq(cell(10, "vcpu"), "1");
}
END_TEST

/* The CPU list is always quoted (it holds commas); text is never left raw. */
START_TEST(test_quoting)
{
	char *text;

	ck_assert_int_eq(csv_results_write(path, &rep, err, sizeof(err)), 0);
	text = slurp(path);
	ck_assert_ptr_nonnull(strstr(text, ",\"0,2\","));
	ck_assert_ptr_null(strstr(text, ",0,2,"));
	free(text);

	/* a single CPU is quoted too: the column's type does not change by row */
	series[0].variant.nr_pcpus = 1;
	ck_assert_int_eq(csv_results_write(path, &rep, err, sizeof(err)), 0);
	text = slurp(path);
	ck_assert_ptr_nonnull(strstr(text, ",kvm,ticket,pause,user,1,2,\"0\",0,1,"));
	free(text);
}
END_TEST

/* A run that failed before any vCPU ran still has its row, with ok = 0. */
START_TEST(test_failed_run)
{
	variant_result_free(&series[0].runs[1]);
	series[0].runs[1].ok = false;
	series[0].runs[1].interval_s = 0.0;
	write_and_parse();
	ck_assert_uint_eq(nr_rows, 2 + 1 + 2 + 3 * 4 + 1);
	ck_assert_str_eq(cell(3, "repeat"), "1");
	ck_assert_str_eq(cell(3, "ok"), "0");
	ck_assert_str_eq(cell(3, "vm"), "");
	ck_assert_str_eq(cell(3, "acquisitions"), "");
	ck_assert_str_eq(cell(3, "exits"), "");
	ck_assert_str_eq(cell(3, "interval_s"), "0");
	ck_assert_str_eq(cell(3, "pause_loop_exits"), "");
	ck_assert_str_eq(cell(3, "holder_preemptions_steal"), "");
	ck_assert_str_eq(cell(3, "acq_per_cpu_s"), "");
	ck_assert_str_eq(cell(4, "repeat"), "2");
	for (unsigned r = 0; r < nr_rows; r++)
		ck_assert_uint_eq(widths[r], NR_COLUMNS);
}
END_TEST

/* --connect LIST: every row names the host its variant ran on, by the host's label. */
START_TEST(test_host_column)
{
	struct run_host hosts[2] = {0};
	snprintf(hosts[0].label, sizeof(hosts[0].label), "hostA");
	snprintf(hosts[1].label, sizeof(hosts[1].label), "node,b");
	rep.hosts = hosts;
	rep.nr_hosts = 2;
	series[1].variant.host = 1;
	write_and_parse();
	rep.hosts = NULL;
	rep.nr_hosts = 0;
	ck_assert_str_eq(cell(1, "host"), "hostA");
	ck_assert_str_eq(cell(nr_rows - 1, "host"), "node,b");
	ck_assert_str_eq(cell(nr_rows - 1, "backend"), "native");
}
END_TEST

/*
 * Text from outside (a host's name here) that a spreadsheet would run as a
 * formula is written after a ', quoted; a number keeps its sign.
 */
START_TEST(test_formula_injection)
{
	static const char *const hostile[] = {
	    "=HYPERLINK(\"http://x/\",\"a\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\t=1+1",
	};
	struct run_host hosts[2] = {0};
	rep.hosts = hosts;
	rep.nr_hosts = 2;
	series[1].variant.host = 1;
	snprintf(hosts[0].label, sizeof(hosts[0].label), "plain");
	for (size_t i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		snprintf(hosts[1].label, sizeof(hosts[1].label), "%s", hostile[i]);
		write_and_parse();
		const char *got = cell(nr_rows - 1, "host");
		ck_assert_msg(got[0] == '\'', "'%s' written as '%s'", hostile[i], got);
		ck_assert(csv_cell_formula(hostile[i]));
	}
	rep.hosts = NULL;
	rep.nr_hosts = 0;
	ck_assert_str_eq(cell(1, "host"), "plain");

	/* numbers stay numbers, whatever their sign */
	static const char *const numbers[] = {"-1", "-3.5", "+2", "-1e-9", "0", "1.5"};
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++)
		ck_assert_msg(!csv_cell_formula(numbers[i]), "%s", numbers[i]);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	csv_cell_write(f, "-3.5", false);
	fputc(',', f);
	csv_cell_write(f, "-x", false);
	fputc(',', f);
	csv_cell_write(f, "-", false);
	fclose(f);
	ck_assert_str_eq(text, "-3.5,\"'-x\",\"'-\"");
	free(text);
}
END_TEST

START_TEST(test_empty_report)
{
	rep.nr_series = 0;
	write_and_parse();
	ck_assert_uint_eq(nr_rows, 1);
}
END_TEST

START_TEST(test_stdout)
{
	int saved = dup(STDOUT_FILENO);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(fd, 0);
	fflush(stdout);
	ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
	close(fd);
	int rc = csv_results_write("-", &rep, err, sizeof(err));
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	ck_assert_msg(rc == 0, "%s", err);
	char *text = slurp(path);
	parse(text);
	free(text);
	ck_assert_uint_eq(nr_rows, 19);
	ck_assert_int_ne(access("-", F_OK), 0);
}
END_TEST

START_TEST(test_unwritable)
{
	const char *bad = "/nonexistent-plerig-dir/out.csv";

	/* the results then go to a fallback file in $TMPDIR: this test's own directory */
	const char *tmpdir = getenv("TMPDIR");
	char *saved = tmpdir ? strdup(tmpdir) : NULL;
	setenv("TMPDIR", dir, 1);
	ck_assert_int_eq(csv_results_write(bad, &rep, err, sizeof(err)), -1);
	if (saved)
		setenv("TMPDIR", saved, 1);
	else
		unsetenv("TMPDIR");
	free(saved);
	ck_assert_msg(strstr(err, bad), "'%s' does not name the path", err);
	ck_assert_msg(strstr(err, "No such file or directory"), "'%s' lacks the reason", err);
	ck_assert_msg(strstr(err, dir), "'%s' does not name the fallback in %s", err, dir);
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	for (struct dirent *e; (e = readdir(d));) {
		char f[PATH_MAX];
		if (strncmp(e->d_name, "plerig-csv-", 11))
			continue;
		snprintf(f, sizeof(f), "%s/%s", dir, e->d_name);
		unlink(f);
	}
	closedir(d);
	ck_assert_int_eq(csv_results_write("", &rep, err, sizeof(err)), -1);
}
END_TEST

static Suite *csv_suite(void)
{
	Suite *s = suite_create("csv_writer");
	TCase *t = tcase_create("csv");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_header_and_rows);
	tcase_add_test(t, test_fields);
	tcase_add_test(t, test_quoting);
	tcase_add_test(t, test_failed_run);
	tcase_add_test(t, test_host_column);
	tcase_add_test(t, test_formula_injection);
	tcase_add_test(t, test_empty_report);
	tcase_add_test(t, test_stdout);
	tcase_add_test(t, test_unwritable);
	suite_add_tcase(s, t);
	return s;
}

CHECK_MAIN(csv_suite)
