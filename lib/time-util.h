/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Clock reading in microseconds.
 */
#pragma once

#include <stdint.h>
#include <time.h>

#define USEC_PER_SEC UINT64_C(1000000)

/* CLOCK now, in microseconds. clock_gettime() cannot fail for the clocks
 * latnice uses (CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME). */
uint64_t now_usec(clockid_t clock);
/* The same in nanoseconds (the proc connector stamps events so, CLOCK_MONOTONIC). */
uint64_t now_nsec(clockid_t clock);
