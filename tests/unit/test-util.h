/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checks shared by the unit tests (tests/unit/test-*.c, one executable each).
 *
 *   check(expr)             a failed check is reported with file:line and
 *                           counted, and the test goes on; main() returns
 *                           test_result()
 *   check_streq(got, want)  the same for two strings (NULL allowed), showing both
 *   test_fail(fmt, ...)     report and count a failure found another way
 *   CHECK(expr)             a failed check is reported and the test aborts at
 *                           once (for steps that later steps build on)
 */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/macro.h"

static unsigned test_failures _unused_;

#define test_fail(...)                                                                      \
        do {                                                                                \
                int _saved_errno = errno; /* for a %m in the message */                     \
                fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                             \
                errno = _saved_errno;                                                       \
                fprintf(stderr, __VA_ARGS__);                                               \
                fputc('\n', stderr);                                                        \
                test_failures++;                                                            \
        } while (0)

#define check(expr)                                                                         \
        do {                                                                                \
                if (!(expr))                                                                \
                        test_fail("check failed: %s", #expr);                               \
        } while (0)

#define check_streq(got, want)                                                              \
        do {                                                                                \
                const char *_got = (got), *_want = (want);                                  \
                if (!streq_ptr(_got, _want))                                                \
                        test_fail("%s is not %s:\n  got  [%s]\n  want [%s]", #got, #want,   \
                                  strna(_got), strna(_want));                               \
        } while (0)

#define CHECK(expr)                                                                         \
        do {                                                                                \
                if (!(expr)) {                                                              \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,    \
                                #expr);                                                     \
                        abort();                                                            \
                }                                                                           \
        } while (0)

/* The exit status of a test: failure if any check failed. */
static inline int test_result(void)
{
        if (test_failures > 0) {
                fprintf(stderr, "%u check(s) failed\n", test_failures);
                return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}
