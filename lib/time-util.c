/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Clock reading in microseconds, and a CLOCK_MONOTONIC time told as a
 * wall-clock time (see time-util.h).
 */
#include <stdio.h>

#include "lib/macro.h"
#include "lib/time-util.h"

uint64_t now_usec(clockid_t clock)
{
        struct timespec ts;

        (void) clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * USEC_PER_SEC + (uint64_t) ts.tv_nsec / 1000u;
}

uint64_t now_nsec(clockid_t clock)
{
        struct timespec ts;

        (void) clock_gettime(clock, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

void time_format_clock(uint64_t mono, uint64_t mono_now, uint64_t real_now, char *buf,
                       size_t size)
{
        uint64_t real = mono <= mono_now ? real_now - MIN(real_now, mono_now - mono) : real_now;
        time_t t = (time_t)(real / USEC_PER_SEC);
        struct tm tm;

        if (!localtime_r(&t, &tm) || strftime(buf, size, "%H:%M:%S", &tm) == 0)
                snprintf(buf, size, "?");
}
