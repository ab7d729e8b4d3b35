/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Duration comparisons: the pattern of a match key whose value is a time
 * span, not a name (unfocused:>5min, unfocused:<10s; policy/keys.h,
 * MatchKeyInfo.duration). The grammar is '<' or '>', a whole number and a
 * unit, "s", "min" or "h", with nothing between them ("30s", "5min",
 * "2h"); from 1 s to 24 h.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DURATION_MIN_USEC UINT64_C(1000000)
#define DURATION_MAX_USEC (UINT64_C(24) * 3600 * 1000000)

typedef struct DurationCompare {
        char op;       /* '<' (less than) or '>' (at least) */
        uint64_t usec; /* the span */
} DurationCompare;

/*
 * Parse PATTERN (NUL-terminated). 0 and *RET; -EINVAL with a message in
 * *RET_ERROR (naming what was expected and found) and the byte of PATTERN
 * at fault in *RET_AT; -ENOMEM.
 */
int duration_compare_parse(const char *pattern, DurationCompare *ret, char **ret_error,
                           size_t *ret_at);

/* Does a span of VALUE µs satisfy C? '<': VALUE < span; '>': VALUE >= span
 * (it flips exactly when the span has passed, so a timer set for that
 * moment sees the new result). */
bool duration_compare_match(const DurationCompare *c, uint64_t value);
