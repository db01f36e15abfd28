// SPDX-License-Identifier: GPL-2.0
#include "output/tap_junit.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "measure/host_info.h"
#include "output/html_text.h"
#include "util/atomic_file.h"
#include "util/errbuf.h"
#include "util/printable.h"

static const char *mark(enum check_outcome o)
{
	switch (o) {
	case CHECK_PASS:
		return "ok";
	case CHECK_FAIL:
		return "FAIL";
	case CHECK_SKIP:
		return "skip";
	case CHECK_NOISY:
		return "noisy";
	}
	return "?";
}

void verdicts_summary_print(FILE *out, const struct check_result *r)
{
	char module[sizeof(r->host.kvm_module) + sizeof(r->host.kvm_module_source) + 4];
	host_kvm_module_text(&r->host, module, sizeof(module));
	if (r->host.connection[0]) /* check --connect: which host of the list */
		printable_printf(out,
				 "plerig check: %s; host %s (%s): %s, %u CPUs, %s, kernel %s\n",
				 r->suite, r->host.name, r->host.connection, r->host.cpu_model,
				 r->host.cpus, module, r->host.kernel);
	else
		printable_printf(out, "plerig check: %s; host %s, %u CPUs, %s, kernel %s\n",
				 r->suite, r->host.cpu_model, r->host.cpus, module, r->host.kernel);
	/* each line of the note by the rule, its line breaks kept: "\x0a" said nothing */
	for (const char *line = r->baseline_note; *line;) {
		const size_t n = strcspn(line, "\n");
		printable_printf(out, "%.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
	for (unsigned i = 0; i < r->nr_cases;) {
		unsigned end = i;
		bool all_skipped = true;
		while (end < r->nr_cases && !strcmp(r->cases[end].scenario, r->cases[i].scenario)) {
			all_skipped &= r->cases[end].outcome == CHECK_SKIP &&
				       !strcmp(r->cases[end].text, r->cases[i].text);
			end++;
		}
		printable_fputs(out, r->cases[i].scenario);
		fputc('\n', out);
		if (all_skipped) { /* a scenario the host cannot run: its reason once */
			fprintf(out, "  skip  all %u: ", end - i);
			printable_fputs(out, r->cases[i].text);
			fputc('\n', out);
			i = end;
			continue;
		}
		for (; i < end; i++) {
			const struct check_case *c = &r->cases[i];
			/* a failure with all its figures; the rest in a few words */
			const char *text =
			    c->outcome != CHECK_FAIL && c->brief[0] ? c->brief : c->text;
			printable_printf(out, "  %-5s %s", mark(c->outcome), c->name);
			if (!(c->outcome == CHECK_PASS && !c->brief[0])) {
				fputs(": ", out);
				printable_fputs(out, text);
			}
			fputc('\n', out);
		}
	}
	printable_printf(
	    out,
	    "%u scenario(s) run, %u skipped, in %.1f s: %u passed, %u failed, %u skipped, %u "
	    "too noisy to judge%s\n",
	    r->scenarios_run, r->scenarios_skipped, r->seconds, check_result_count(r, CHECK_PASS),
	    check_result_count(r, CHECK_FAIL), check_result_count(r, CHECK_SKIP),
	    check_result_count(r, CHECK_NOISY), r->interrupted ? " (interrupted)" : "");
}

/* A TAP description or directive must not hold '#' or a line break. */
static bool tap_special(FILE *f, uint32_t cp)
{
	if (cp != '#' && cp != '\n')
		return false;
	fputc(cp == '#' ? '_' : ' ', f);
	return true;
}

static void tap_text(FILE *f, const char *s)
{
	printable_write(f, s, tap_special);
}

static bool yaml_special(FILE *f, uint32_t cp)
{
	if (cp != '\'' && cp != '\n')
		return false;
	fputs(cp == '\'' ? "''" : " ", f);
	return true;
}

/* YAML single-quoted scalar. */
static void yaml_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	printable_write(f, s, yaml_special);
	fputc('\'', f);
}

void verdicts_tap_print(FILE *f, const struct check_result *r)
{
	fprintf(f, "TAP version 13\n1..%u\n", r->nr_cases);
	for (unsigned i = 0; i < r->nr_cases; i++) {
		const struct check_case *c = &r->cases[i];
		printable_printf(f, "%s %u - ", c->outcome == CHECK_FAIL ? "not ok" : "ok", i + 1);
		if (c->host[0]) {
			tap_text(f, c->host);
			fputs("/", f);
		}
		tap_text(f, c->scenario);
		fputs(": ", f);
		tap_text(f, c->name);
		if (c->outcome == CHECK_SKIP || c->outcome == CHECK_NOISY) {
			fputs(c->outcome == CHECK_SKIP ? " # SKIP "
						       : " # SKIP too noisy to judge: ",
			      f);
			tap_text(f, c->text);
		}
		fputc('\n', f);
		if (c->outcome == CHECK_FAIL || c->outcome == CHECK_PASS) {
			fputs("  ---\n  message: ", f);
			yaml_quoted(f, c->text);
			fputs(c->outcome == CHECK_FAIL ? "\n  severity: fail\n  ...\n"
						       : "\n  severity: pass\n  ...\n",
			      f);
		}
	}
}

/* XML keeps its line breaks (a message of several lines); the rest as the report writes it. */
static bool xml_special(FILE *f, uint32_t cp)
{
	if (cp != '\n')
		return markup_entity(f, cp);
	fputc('\n', f);
	return true;
}

static void xml_text(FILE *f, const char *s)
{
	printable_write(f, s, xml_special);
}

static unsigned count_in(const struct check_result *r, unsigned from, unsigned to,
			 enum check_outcome o)
{
	unsigned n = 0;
	for (unsigned i = from; i < to; i++)
		n += r->cases[i].outcome == o;
	return n;
}

/* One <testsuite> per scenario of a host. */
static bool same_suite(const struct check_case *a, const struct check_case *b)
{
	return !strcmp(a->scenario, b->scenario) && !strcmp(a->host, b->host);
}

void verdicts_junit_print(FILE *f, const struct check_result *r)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f,
		"<testsuites name=\"plerig check\" tests=\"%u\" failures=\"%u\" skipped=\"%u\" "
		"time=\"%.3f\">\n",
		r->nr_cases, check_result_count(r, CHECK_FAIL),
		check_result_count(r, CHECK_SKIP) + check_result_count(r, CHECK_NOISY), r->seconds);
	for (unsigned i = 0; i < r->nr_cases;) {
		unsigned end = i;
		while (end < r->nr_cases && same_suite(&r->cases[end], &r->cases[i]))
			end++;
		fputs("  <testsuite name=\"", f);
		if (r->cases[i].host[0]) {
			xml_text(f, r->cases[i].host);
			fputs("/", f);
		}
		xml_text(f, r->cases[i].scenario);
		fprintf(f, "\" tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"%u\">\n",
			end - i, count_in(r, i, end, CHECK_FAIL),
			count_in(r, i, end, CHECK_SKIP) + count_in(r, i, end, CHECK_NOISY));
		for (; i < end; i++) {
			const struct check_case *c = &r->cases[i];
			fputs("    <testcase classname=\"plerig.", f);
			if (c->host[0]) {
				xml_text(f, c->host);
				fputs("/", f);
			}
			xml_text(f, c->scenario);
			fputs("\" name=\"", f);
			xml_text(f, c->name);
			fputs("\"", f);
			if (c->outcome == CHECK_PASS) {
				fputs(">\n      <system-out>", f);
				xml_text(f, c->text);
				fputs("</system-out>\n    </testcase>\n", f);
				continue;
			}
			const bool failed = c->outcome == CHECK_FAIL;
			fputs(failed ? ">\n      <failure message=\""
				     : ">\n      <skipped message=\"",
			      f);
			if (c->outcome == CHECK_NOISY)
				fputs("too noisy to judge: ", f);
			xml_text(f, c->text);
			fputs(failed ? "\" type=\"regression\">" : "\">", f);
			xml_text(f, c->text);
			fputs(failed ? "</failure>\n    </testcase>\n"
				     : "</skipped>\n    </testcase>\n",
			      f);
		}
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
}

static int write_with(void (*print)(FILE *, const struct check_result *), const char *what,
		      const char *fallback, const char *path, const struct check_result *r,
		      char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return errbuf_printf(err, errlen, "cannot write '%s': %s", path, strerror(errno));
	print(f, r);
	if (ferror(f) | fclose(f)) {
		free(text);
		return errbuf_printf(err, errlen, "cannot write '%s': out of memory", path);
	}
	int rc = atomic_file_write_as(path, what, fallback, text, len, err, errlen);
	free(text);
	return rc;
}

int verdicts_tap_write(const char *path, const struct check_result *r, char *err, size_t errlen)
{
	return write_with(verdicts_tap_print, "TAP", "tap.tap", path, r, err, errlen);
}

int verdicts_junit_write(const char *path, const struct check_result *r, char *err, size_t errlen)
{
	return write_with(verdicts_junit_print, "JUnit XML", "junit.xml", path, r, err, errlen);
}
