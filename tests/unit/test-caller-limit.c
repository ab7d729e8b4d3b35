/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/bus/caller-limit.c: the rate limit of SetFocus and
 * SetForegroundProcess per caller uid. */
#include "daemon/bus/caller-limit.h"
#include "test-util.h"

#define MS 1000u

static void test_burst_then_rate(void)
{
        CallerLimit l = { .burst = 20, .interval_usec = 50 * MS };
        uint64_t now = 1000 * MS;

        for (int i = 0; i < 20; i++)
                check(caller_limit_take(&l, 1000, now));
        check(!caller_limit_take(&l, 1000, now));
        check(!caller_limit_take(&l, 1000, now + 49 * MS));
        check(caller_limit_take(&l, 1000, now + 50 * MS));
        check(!caller_limit_take(&l, 1000, now + 50 * MS));
        /* another uid has a bucket of its own */
        check(caller_limit_take(&l, 65534, now));
}

static void test_bounded(void)
{
        CallerLimit l = { .burst = 2, .interval_usec = 1000 * MS };
        uint64_t now = 5000 * MS;

        /* every place taken by a uid that just called */
        for (uid_t u = 0; u < CALLER_LIMIT_MAX; u++)
                check(caller_limit_take(&l, u, now));
        check(l.n_callers == CALLER_LIMIT_MAX);
        check(!caller_limit_take(&l, 9999, now));
        /* once one is full again, a new uid takes its place */
        check(caller_limit_take(&l, 9999, now + 1000 * MS));
        check(l.n_callers == CALLER_LIMIT_MAX);
}

int main(void)
{
        test_burst_then_rate();
        test_bounded();
        return test_result();
}
