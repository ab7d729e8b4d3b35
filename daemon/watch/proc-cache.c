/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "daemon/watch/pidmap.h"
#include "daemon/watch/proc-cache.h"
#include "lib/macro.h"

typedef struct Entry {
        void *value;
        uid_t uid;
        uint64_t generation;
        uint64_t stored_usec;
} Entry;

struct ProcCache {
        PidMap map; /* pid -> Entry */
        size_t max;
        uint64_t ttl_usec;
        uint64_t generation;
        proc_cache_free_t free_value;
        size_t evict_state; /* where the next eviction looks first */
        uint64_t n_hits, n_misses;
};

int proc_cache_new(size_t max, uint64_t ttl_usec, proc_cache_free_t free_value, ProcCache **ret)
{
        ProcCache *c;

        if (max == 0 || ttl_usec == 0 || !free_value)
                return -EINVAL;
        c = calloc(1, sizeof(*c));
        if (!c)
                return -ENOMEM;
        c->max = max;
        c->ttl_usec = ttl_usec;
        c->free_value = free_value;
        *ret = c;
        return 0;
}

static void entry_free(ProcCache *c, Entry *e)
{
        if (!e)
                return;
        c->free_value(e->value);
        free(e);
}

ProcCache *proc_cache_free(ProcCache *c)
{
        size_t state = 0;
        pid_t pid;
        void *v;

        if (!c)
                return NULL;
        while (pidmap_iterate(&c->map, &state, &pid, &v))
                entry_free(c, v);
        pidmap_done(&c->map);
        free(c);
        return NULL;
}

static Entry *entry_valid(ProcCache *c, pid_t pid, uint64_t now)
{
        Entry *e = pidmap_get(&c->map, pid);

        if (!e)
                return NULL;
        if (e->generation == c->generation && now >= e->stored_usec &&
            now - e->stored_usec < c->ttl_usec)
                return e;
        entry_free(c, pidmap_remove(&c->map, pid));
        return NULL;
}

void *proc_cache_get(ProcCache *c, pid_t pid, uint64_t now, uid_t *ret_uid)
{
        Entry *e = entry_valid(c, pid, now);

        if (!e) {
                c->n_misses++;
                return NULL;
        }
        c->n_hits++;
        if (ret_uid)
                *ret_uid = e->uid;
        return e->value;
}

int proc_cache_uid(const ProcCache *c, pid_t pid, uid_t *ret)
{
        const Entry *e = pidmap_get(&c->map, pid);

        /* The uid has events of its own (the value is dropped then): it
         * outlives the TTL. */
        if (!e || e->generation != c->generation)
                return -ENOENT;
        *ret = e->uid;
        return 0;
}

/* Make room for one more: drop an expired or, failing that, any entry,
 * looking from where the last eviction stopped (no order is kept: a
 * process whose value goes is read again at its next thread event). */
static void evict_one(ProcCache *c)
{
        pid_t pid;
        void *v;

        if (!pidmap_iterate(&c->map, &c->evict_state, &pid, &v)) {
                c->evict_state = 0;
                if (!pidmap_iterate(&c->map, &c->evict_state, &pid, &v))
                        return;
        }
        entry_free(c, pidmap_remove(&c->map, pid));
}

int proc_cache_put(ProcCache *c, pid_t pid, uid_t uid, void *value, uint64_t now)
{
        Entry *e;
        int r;

        if (pid <= 0 || !value) {
                if (value)
                        c->free_value(value);
                return -EINVAL;
        }
        proc_cache_drop(c, pid);
        e = malloc(sizeof(*e));
        if (!e) {
                c->free_value(value);
                return -ENOMEM;
        }
        *e = (Entry){ .value = value, .uid = uid, .generation = c->generation,
                      .stored_usec = now };
        while (pidmap_size(&c->map) >= c->max)
                evict_one(c);
        r = pidmap_put(&c->map, pid, e);
        if (r < 0)
                entry_free(c, e);
        return r;
}

void proc_cache_drop(ProcCache *c, pid_t pid)
{
        if (c && pid > 0)
                entry_free(c, pidmap_remove(&c->map, pid));
}

void proc_cache_flush(ProcCache *c)
{
        /* Entries of an older generation are invalid (never handed out
         * again) but still say that their process had thread events
         * (proc_cache_has()); they are freed at their next lookup or
         * replaced. */
        if (c)
                c->generation++;
}

bool proc_cache_has(const ProcCache *c, pid_t pid)
{
        return c && pidmap_get(&c->map, pid);
}

size_t proc_cache_size(const ProcCache *c)
{
        return c ? pidmap_size(&c->map) : 0;
}

uint64_t proc_cache_n_hits(const ProcCache *c)
{
        return c ? c->n_hits : 0;
}

uint64_t proc_cache_n_misses(const ProcCache *c)
{
        return c ? c->n_misses : 0;
}
