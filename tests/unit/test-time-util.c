/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test of time_format_clock() (lib/time-util.h), the "since HH:MM:SS"
 * of the focus and audio facts: a CLOCK_MONOTONIC time told on the wall
 * clock, in UTC here (TZ set) so the answer is known.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/time-util.h"
#include "tests/unit/test-util.h"

/* 10:00:05 UTC on the first day of the epoch, in microseconds. */
#define REAL_NOW ((10 * 3600 + 5) * USEC_PER_SEC)
#define MONO_NOW (10000 * USEC_PER_SEC)

static void check_clock(uint64_t mono, uint64_t real_now, const char *want)
{
        char buf[32];

        time_format_clock(mono, MONO_NOW, real_now, buf, sizeof(buf));
        check_streq(buf, want);
}

int main(void)
{
        char small[4] = "x";

        CHECK(setenv("TZ", "UTC", 1) == 0);
        tzset();
        check_clock(MONO_NOW, REAL_NOW, "10:00:05");                   /* now */
        check_clock(MONO_NOW - 5 * USEC_PER_SEC, REAL_NOW, "10:00:00"); /* 5 s ago */
        check_clock(MONO_NOW - 3605 * USEC_PER_SEC - 1, REAL_NOW, "08:59:59");
        check_clock(MONO_NOW + 60 * USEC_PER_SEC, REAL_NOW, "10:00:05"); /* still to come: now */
        check_clock(0, 2 * USEC_PER_SEC, "00:00:00"); /* longer ago than the epoch */
        /* No room for HH:MM:SS: "?" */
        time_format_clock(MONO_NOW, MONO_NOW, REAL_NOW, small, sizeof(small));
        check_streq(small, "?");
        return test_result();
}
