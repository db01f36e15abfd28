/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The main() of every Check test: run a suite at the verbosity CK_VERBOSITY
 * asks for (normal when unset), free it, and turn the outcome into an exit
 * status. A test that cannot run here says why and exits with meson's skip
 * status, EXIT_SKIP. The files a case writes go in its scratch directory
 * (support/scratch_dir.h), which check_run removes after the last case.
 *
 *   CHECK_MAIN(units_suite)                       the whole main()
 *   return check_run(s, CK_NOFORK);               tests sharing process state
 *   return check_skip("%s is absent", path);      nothing to test here
 */
#ifndef PLERIG_TESTS_CHECK_MAIN_H
#define PLERIG_TESTS_CHECK_MAIN_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "support/scratch_dir.h"

#define EXIT_SKIP 77 /* meson: the test did not run, and said why */

/*
 * Runs @s (and frees it); @fork: CK_FORK_GETENV unless the tests need CK_NOFORK.
 * The scratch root is made and removed here, in the parent: a case that fails
 * in its own process never reaches its teardown.
 */
static inline int check_run(Suite *s, enum fork_status fork)
{
	SRunner *sr = srunner_create(s);
	int failed;

	if (scratch_root_make()) {
		srunner_free(sr);
		return EXIT_FAILURE;
	}
	srunner_set_fork_status(sr, fork);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	scratch_root_remove();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* Prints "SKIP: <why>" and returns EXIT_SKIP, for main() to return. */
__attribute__((format(printf, 1, 2))) static inline int check_skip(const char *fmt, ...)
{
	va_list ap;

	fputs("SKIP: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return EXIT_SKIP;
}

/* main() for a test that is one suite, built by @suite_fn(). */
#define CHECK_MAIN(suite_fn)                                                                       \
	int main(void)                                                                             \
	{                                                                                          \
		return check_run(suite_fn(), CK_FORK_GETENV);                                      \
	}

#endif
