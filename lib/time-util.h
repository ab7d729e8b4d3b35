/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Clock reading in microseconds, and a CLOCK_MONOTONIC time told as a
 * wall-clock time.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define USEC_PER_SEC UINT64_C(1000000)

/* CLOCK now, in microseconds. clock_gettime() cannot fail for the clocks
 * latnice uses (CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME). */
uint64_t now_usec(clockid_t clock);
/* The same in nanoseconds (the proc connector stamps events so, CLOCK_MONOTONIC). */
uint64_t now_nsec(clockid_t clock);

/* The local wall-clock time (HH:MM:SS) of MONO, a CLOCK_MONOTONIC time in
 * microseconds, into BUF (SIZE), MONO_NOW and REAL_NOW being now on
 * CLOCK_MONOTONIC and CLOCK_REALTIME: REAL_NOW less how long ago MONO was
 * (never before the epoch); a MONO still to come is now. "?" if the time
 * cannot be written. */
void time_format_clock(uint64_t mono, uint64_t mono_now, uint64_t real_now, char *buf,
                       size_t size);
