/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A policy from text, for the unit tests that decide on it (test-boost.c,
 * test-decide-task.c). Header only, as test-util.h: an error counts in the
 * including test's own tally of failed checks.
 */
#pragma once

#include <stdio.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/policy.h"
#include "tests/unit/test-util.h"

/* Load TEXT as the policy file NAME. Every diagnostic is printed; each
 * error is a failed check. */
static inline Policy *test_policy_load(const char *name, const char *text)
{
        Diagnostics d = {};
        Policy *p = NULL;

        CHECK(policy_load_string(name, text, strlen(text), &p, &d) == 0);
        for (size_t i = 0; i < d.n; i++) {
                _cleanup_free_ char *s = diagnostic_format(&d.items[i]);
                fprintf(stderr, "%s\n", s);
                if (d.items[i].level == DIAG_ERROR)
                        test_failures++;
        }
        diagnostics_done(&d);
        return p;
}
