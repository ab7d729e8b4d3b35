/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TokenBucket: BURST tokens at once, then one more per INTERVAL, up to
 * BURST. It is kept as one number, a "theoretical arrival time" (the generic
 * cell rate algorithm): a token costs one interval, and the bucket has one
 * while it is at most BURST - 1 intervals in debt; no refill arithmetic, no
 * floating point. A take may cost several tokens and may go below zero by
 * MAX_DEBT tokens at most, for costs charged after the fact.
 *
 * Used by the rename rate limiter (per process and global, daemon/watch/ratelimit.c)
 * and the per-user thread budget (daemon/watch/user-budget.c). Pure logic: time is
 * passed in (CLOCK_MONOTONIC usec). A zeroed TokenBucket is full.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct TokenBucket {
        uint64_t tat;
} TokenBucket;

/* The earliest time at or after NOW at which the bucket has a token. */
uint64_t token_bucket_ready_at(const TokenBucket *b, unsigned burst, uint64_t interval,
                               uint64_t now);

/* Has the bucket a token at NOW? */
static inline bool token_bucket_ready(const TokenBucket *b, unsigned burst, uint64_t interval,
                                      uint64_t now)
{
        return token_bucket_ready_at(b, burst, interval, now) == now;
}

/* Is the bucket full (BURST tokens) at NOW? */
static inline bool token_bucket_full(const TokenBucket *b, uint64_t now)
{
        return b->tat <= now;
}

/* Take COST tokens at NOW, leaving MAX_DEBT tokens below zero at most. */
void token_bucket_take(TokenBucket *b, unsigned burst, uint64_t interval, uint64_t cost,
                       unsigned max_debt, uint64_t now);
