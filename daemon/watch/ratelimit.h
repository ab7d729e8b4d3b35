/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RateLimiter: per-process token buckets for re-evaluations that a process
 * can trigger at will (renames: prctl(PR_SET_NAME) needs no privilege).
 *
 * A process gets a few re-evaluations at once (the burst); beyond that its
 * requests are coalesced into one pending re-evaluation, handed out by
 * rate_limiter_pop_due() when its bucket has a token again. A request is
 * never dropped: the pending one runs after the last request, so the state
 * it evaluates is the final one. A global bucket bounds the sum over all
 * processes in the same way.
 *
 * Memory is bounded: at most max_entries processes are tracked; an entry
 * whose bucket is full again and that has nothing pending is worth nothing
 * and is purged. When the table is full of live entries a request gets
 * RATE_LIMIT_FULL, and the caller must fall back to something coarser that
 * still sees the final state (latniced: a rate-limited rescan).
 *
 * Pure logic: time is passed in (CLOCK_MONOTONIC usec), nothing here logs,
 * sleeps or arms timers.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct RateLimitConfig {
        unsigned burst;                /* re-evaluations a process gets at once (>= 1) */
        uint64_t interval_usec;        /* then one per interval (> 0) */
        unsigned global_burst;         /* the same over all processes */
        uint64_t global_interval_usec;
        size_t max_entries;            /* processes tracked at most (>= 1) */
} RateLimitConfig;

typedef enum RateLimitVerdict {
        RATE_LIMIT_NOW,      /* a token was taken: evaluate now */
        RATE_LIMIT_DEFERRED, /* pending (new or coalesced): rate_limiter_pop_due() hands it out */
        RATE_LIMIT_FULL,     /* not tracked, table full: the caller must fall back */
} RateLimitVerdict;

typedef struct RateLimiter RateLimiter;

/* -EINVAL for a config with a zero burst, interval or max_entries. */
int rate_limiter_new(const RateLimitConfig *c, RateLimiter **ret);
RateLimiter *rate_limiter_free(RateLimiter *l);
static inline void rate_limiter_freep(RateLimiter **l)
{
        if (*l)
                rate_limiter_free(*l);
}

/*
 * Thread TID of process PID asks for a re-evaluation at NOW. Returns a
 * RateLimitVerdict, or -ENOMEM, -EINVAL (pid or tid <= 0). Several pending
 * requests of one process for different threads become one for the whole
 * process (tid == pid).
 */
int rate_limiter_check(RateLimiter *l, pid_t pid, pid_t tid, uint64_t now);

/* The earliest time at or after NOW at which rate_limiter_pop_due() can
 * hand something out; UINT64_MAX when nothing is pending. */
uint64_t rate_limiter_next_due(const RateLimiter *l, uint64_t now);

/* Hand out one pending re-evaluation whose time has come (taking its
 * tokens): returns 1 and sets *ret_pid and *ret_tid (tid == pid: the whole
 * process), 0 if none is due (outputs untouched). */
int rate_limiter_pop_due(RateLimiter *l, uint64_t now, pid_t *ret_pid, pid_t *ret_tid);

/* Thread TID of PID exited. The main thread's exit drops the entry unless a
 * re-evaluation is pending (it then finds the process gone, cheaply). */
void rate_limiter_exit(RateLimiter *l, pid_t pid, pid_t tid);

/* A full rescan evaluated every process at NOW: what was pending is done.
 * The buckets stay as they are (a rescan is no way to refill them). */
void rate_limiter_clear_pending(RateLimiter *l);

size_t rate_limiter_size(const RateLimiter *l);
size_t rate_limiter_n_pending(const RateLimiter *l);
