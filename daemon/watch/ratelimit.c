/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "daemon/watch/pidmap.h"
#include "daemon/watch/ratelimit.h"
#include "lib/macro.h"
#include "lib/token-bucket.h"

/* Each process's bucket and the global one: lib/token-bucket.h. */
typedef struct Entry {
        TokenBucket bucket;
        pid_t pending_tid; /* 0: nothing pending; == pid: the whole process */
} Entry;

struct RateLimiter {
        RateLimitConfig config;
        PidMap entries;
        TokenBucket global;
        size_t n_pending;
        size_t cursor; /* where rate_limiter_pop_due() looks first */
        uint64_t last_purge;
};

int rate_limiter_new(const RateLimitConfig *c, RateLimiter **ret)
{
        RateLimiter *l;

        if (!c || !ret || c->burst == 0 || c->interval_usec == 0 || c->global_burst == 0 ||
            c->global_interval_usec == 0 || c->max_entries == 0)
                return -EINVAL;
        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->config = *c;
        *ret = l;
        return 0;
}

RateLimiter *rate_limiter_free(RateLimiter *l)
{
        size_t state = 0;
        void *v;

        if (!l)
                return NULL;
        while (pidmap_iterate(&l->entries, &state, NULL, &v))
                free(v);
        pidmap_done(&l->entries);
        free(l);
        return NULL;
}

static void entry_remove(RateLimiter *l, pid_t pid)
{
        Entry *e = pidmap_remove(&l->entries, pid);

        if (e && e->pending_tid > 0)
                l->n_pending--;
        free(e);
}

/* Drop entries that carry no information any more: nothing pending and a
 * full bucket, exactly what a new entry would be. At most once per
 * interval, so a table full of live entries does not cost a walk per call. */
static void purge(RateLimiter *l, uint64_t now)
{
        size_t state = 0;
        pid_t pid;
        void *v;

        if (l->last_purge != 0 && now - l->last_purge < l->config.interval_usec)
                return;
        l->last_purge = now;
        while (pidmap_iterate(&l->entries, &state, &pid, &v)) {
                Entry *e = v;

                if (e->pending_tid == 0 && token_bucket_full(&e->bucket, now))
                        entry_remove(l, pid);
        }
}

static void entry_add_pending(RateLimiter *l, Entry *e, pid_t pid, pid_t tid)
{
        if (e->pending_tid == 0) {
                e->pending_tid = tid;
                l->n_pending++;
        } else if (e->pending_tid != tid)
                e->pending_tid = pid; /* two threads or more: the whole process */
}

int rate_limiter_check(RateLimiter *l, pid_t pid, pid_t tid, uint64_t now)
{
        const RateLimitConfig *c = &l->config;
        Entry *e;
        int r;

        if (pid <= 0 || tid <= 0)
                return -EINVAL;

        e = pidmap_get(&l->entries, pid);
        if (!e) {
                if (pidmap_size(&l->entries) >= c->max_entries)
                        purge(l, now);
                if (pidmap_size(&l->entries) >= c->max_entries)
                        return RATE_LIMIT_FULL;
                e = calloc(1, sizeof(*e));
                if (!e)
                        return -ENOMEM;
                r = pidmap_put(&l->entries, pid, e);
                if (r < 0) {
                        free(e);
                        return r;
                }
        }

        if (e->pending_tid > 0) {
                entry_add_pending(l, e, pid, tid);
                return RATE_LIMIT_DEFERRED;
        }
        if (token_bucket_ready(&e->bucket, c->burst, c->interval_usec, now) &&
            token_bucket_ready(&l->global, c->global_burst, c->global_interval_usec, now)) {
                token_bucket_take(&e->bucket, c->burst, c->interval_usec, 1, 0, now);
                token_bucket_take(&l->global, c->global_burst, c->global_interval_usec, 1, 0,
                                  now);
                return RATE_LIMIT_NOW;
        }
        entry_add_pending(l, e, pid, tid);
        return RATE_LIMIT_DEFERRED;
}

uint64_t rate_limiter_next_due(const RateLimiter *l, uint64_t now)
{
        const RateLimitConfig *c = &l->config;
        uint64_t due = UINT64_MAX;
        size_t state = 0;
        void *v;

        if (l->n_pending == 0)
                return UINT64_MAX;
        while (pidmap_iterate(&l->entries, &state, NULL, &v)) {
                const Entry *e = v;

                if (e->pending_tid > 0)
                        due = MIN(due, token_bucket_ready_at(&e->bucket, c->burst,
                                                             c->interval_usec, now));
        }
        return MAX(due, token_bucket_ready_at(&l->global, c->global_burst,
                                              c->global_interval_usec, now));
}

/* Is E pending and due at NOW? */
static bool entry_due(const RateLimiter *l, const Entry *e, uint64_t now)
{
        return e->pending_tid > 0 &&
               token_bucket_ready(&e->bucket, l->config.burst, l->config.interval_usec, now);
}

int rate_limiter_pop_due(RateLimiter *l, uint64_t now, pid_t *ret_pid, pid_t *ret_tid)
{
        const RateLimitConfig *c = &l->config;
        size_t state;
        pid_t pid = 0;
        Entry *e = NULL;
        void *v;

        if (l->n_pending == 0 ||
            !token_bucket_ready(&l->global, c->global_burst, c->global_interval_usec, now))
                return 0;

        /* Round robin from where the last one was found: when the global
         * bucket is what limits, every pending process gets its turn. */
        state = l->cursor;
        while (pidmap_iterate(&l->entries, &state, &pid, &v))
                if (entry_due(l, v, now)) {
                        e = v;
                        break;
                }
        if (!e) {
                state = 0;
                while (state < l->cursor && pidmap_iterate(&l->entries, &state, &pid, &v))
                        if (entry_due(l, v, now)) {
                                e = v;
                                break;
                        }
        }
        if (!e)
                return 0;

        l->cursor = state;
        token_bucket_take(&e->bucket, c->burst, c->interval_usec, 1, 0, now);
        token_bucket_take(&l->global, c->global_burst, c->global_interval_usec, 1, 0, now);
        *ret_pid = pid;
        *ret_tid = e->pending_tid;
        e->pending_tid = 0;
        l->n_pending--;
        return 1;
}

void rate_limiter_exit(RateLimiter *l, pid_t pid, pid_t tid)
{
        Entry *e;

        if (tid != pid)
                return;
        e = pidmap_get(&l->entries, pid);
        if (e && e->pending_tid == 0)
                entry_remove(l, pid);
}

void rate_limiter_clear_pending(RateLimiter *l)
{
        size_t state = 0;
        void *v;

        while (pidmap_iterate(&l->entries, &state, NULL, &v))
                ((Entry *)v)->pending_tid = 0;
        l->n_pending = 0;
}

size_t rate_limiter_size(const RateLimiter *l)
{
        return pidmap_size(&l->entries);
}

size_t rate_limiter_n_pending(const RateLimiter *l)
{
        return l->n_pending;
}
