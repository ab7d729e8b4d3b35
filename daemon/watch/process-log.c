/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/watch/pidmap.h"
#include "daemon/watch/process-log.h"
#include "lib/macro.h"
#include "lib/util.h"

/* Reasons kept per process; a new one beyond replaces the one said longest
 * ago (what it counted goes unsaid). */
#define REASONS 4

typedef struct Reason {
        char *text;          /* NULL: a free slot */
        uint64_t said_usec;  /* when it was last said */
        uint64_t n_unsaid;   /* threads counted since */
} Reason;

typedef struct Entry {
        Reason reasons[REASONS];
} Entry;

struct ProcessLog {
        PidMap map; /* pid -> Entry */
        size_t max;
        uint64_t interval_usec;
        size_t evict_state;
};

int process_log_new(size_t max, uint64_t interval_usec, ProcessLog **ret)
{
        ProcessLog *l;

        if (max == 0 || interval_usec == 0)
                return -EINVAL;
        l = calloc(1, sizeof(*l));
        if (!l)
                return -ENOMEM;
        l->max = max;
        l->interval_usec = interval_usec;
        *ret = l;
        return 0;
}

static void entry_free(Entry *e)
{
        if (!e)
                return;
        for (size_t i = 0; i < REASONS; i++)
                free(e->reasons[i].text);
        free(e);
}

ProcessLog *process_log_free(ProcessLog *l)
{
        size_t state = 0;
        pid_t pid;
        void *v;

        if (!l)
                return NULL;
        while (pidmap_iterate(&l->map, &state, &pid, &v))
                entry_free(v);
        pidmap_done(&l->map);
        free(l);
        return NULL;
}

/* A new entry for PID, making room first (an old process is forgotten). */
static int entry_add(ProcessLog *l, pid_t pid, Entry **ret)
{
        Entry *e;
        pid_t old;
        void *v;
        int r;

        while (pidmap_size(&l->map) >= l->max) {
                if (!pidmap_iterate(&l->map, &l->evict_state, &old, &v)) {
                        l->evict_state = 0;
                        if (!pidmap_iterate(&l->map, &l->evict_state, &old, &v))
                                break;
                }
                entry_free(pidmap_remove(&l->map, old));
        }
        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        r = pidmap_put(&l->map, pid, e);
        if (r < 0) {
                free(e);
                return r;
        }
        *ret = e;
        return 0;
}

/* E's slot for REASON: its own, else a free one, else the one said
 * longest ago (emptied). */
static Reason *reason_slot(Entry *e, const char *reason)
{
        Reason *oldest = &e->reasons[0];

        for (size_t i = 0; i < REASONS; i++) {
                Reason *r = &e->reasons[i];

                if (r->text && streq(r->text, reason))
                        return r;
        }
        for (size_t i = 0; i < REASONS; i++) {
                Reason *r = &e->reasons[i];

                if (!r->text)
                        return r;
                if (r->said_usec < oldest->said_usec)
                        oldest = r;
        }
        oldest->text = mfree(oldest->text);
        oldest->n_unsaid = 0;
        return oldest;
}

int process_log_note(ProcessLog *l, pid_t pid, const char *reason, uint64_t n, uint64_t now,
                     uint64_t *ret_n)
{
        Entry *e = pidmap_get(&l->map, pid);
        Reason *r;
        int k;

        *ret_n = n;
        reason = reason ?: "";
        if (!e) {
                k = entry_add(l, pid, &e);
                if (k < 0)
                        return k;
        }
        r = reason_slot(e, reason);
        if (r->text) {
                if (now - r->said_usec < l->interval_usec) {
                        r->n_unsaid += n;
                        return 0;
                }
                *ret_n = r->n_unsaid + n;
                r->n_unsaid = 0;
                r->said_usec = now;
                return 1;
        }
        /* A new reason is said now. */
        r->text = strdup(reason);
        if (!r->text)
                return -ENOMEM;
        r->said_usec = now;
        r->n_unsaid = 0;
        return 1;
}

uint64_t process_log_forget(ProcessLog *l, pid_t pid, char **ret_reason)
{
        Entry *e = l && pid > 0 ? pidmap_remove(&l->map, pid) : NULL;
        uint64_t n = 0;

        *ret_reason = NULL;
        if (!e)
                return 0;
        /* The reason with the most threads unsaid (one line at the exit). */
        for (size_t i = 0; i < REASONS; i++) {
                Reason *r = &e->reasons[i];

                if (r->text && r->n_unsaid > n) {
                        n = r->n_unsaid;
                        free(*ret_reason);
                        *ret_reason = TAKE_PTR(r->text);
                }
        }
        entry_free(e);
        return n;
}

size_t process_log_size(const ProcessLog *l)
{
        return l ? pidmap_size(&l->map) : 0;
}
