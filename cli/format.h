/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Formatting values for people: durations.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* "850 ns", "100.0 µs" ("us" when UTF8 is false), "2.80 ms", "1.50 s".
 * NULL on out of memory. */
char *format_duration_ns(uint64_t ns, bool utf8);
