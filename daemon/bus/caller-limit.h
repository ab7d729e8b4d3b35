/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Caller limit: a token bucket per caller uid (lib/token-bucket.h) for
 * D-Bus methods any user may call often (SetFocus, SetForegroundProcess):
 * BURST calls at once, then one per INTERVAL, for at most CALLER_LIMIT_MAX
 * uids at a time. Pure: time is passed in (CLOCK_MONOTONIC µs).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/token-bucket.h"

#define CALLER_LIMIT_MAX 64

typedef struct CallerLimit {
        unsigned burst;
        uint64_t interval_usec;
        struct {
                uid_t uid;
                TokenBucket bucket;
        } callers[CALLER_LIMIT_MAX];
        size_t n_callers;
} CallerLimit;

/* May UID call at NOW? If so, its call is counted. A uid not seen before
 * takes the place of one whose bucket is full again (it lost nothing);
 * with every place taken by a uid that called lately, false. */
bool caller_limit_take(CallerLimit *l, uid_t uid, uint64_t now);
