/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Clock reading in microseconds (see time-util.h).
 */
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
