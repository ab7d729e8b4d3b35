/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/watch/ancestors.h"
#include "daemon/watch/pidmap.h"
#include "lib/macro.h"
#include "lib/proc.h"

/* A deeper chain than this is cut (pid namespaces nest, processes do not
 * usually). */
#define MAX_DEPTH 64
/* More entries than this: start over (a fork bomb of parents). */
#define MAX_ENTRIES 4096

typedef struct Entry {
        pid_t pid, ppid;
        bool stale;
        char *comm, *argv0, *exe;
} Entry;

struct AncestorCache {
        char *proc_root;
        PidMap map;
        TaskNames names[MAX_DEPTH];
};

static Entry *entry_free(Entry *e)
{
        if (!e)
                return NULL;
        free(e->comm);
        free(e->argv0);
        free(e->exe);
        free(e);
        return NULL;
}

int ancestor_cache_new(const char *proc_root, AncestorCache **ret)
{
        AncestorCache *c = calloc(1, sizeof(*c));

        if (!c)
                return -ENOMEM;
        c->proc_root = strdup(proc_root ? proc_root : "/proc");
        if (!c->proc_root) {
                free(c);
                return -ENOMEM;
        }
        *ret = c;
        return 0;
}

void ancestor_cache_flush(AncestorCache *c)
{
        size_t state = 0;
        void *v;

        while (pidmap_iterate(&c->map, &state, NULL, &v))
                entry_free(v);
        pidmap_done(&c->map);
}

AncestorCache *ancestor_cache_free(AncestorCache *c)
{
        if (!c)
                return NULL;
        ancestor_cache_flush(c);
        free(c->proc_root);
        free(c);
        return NULL;
}

size_t ancestor_cache_size(const AncestorCache *c)
{
        return pidmap_size(&c->map);
}

static int dup_or_null(const char *s, char **ret)
{
        *ret = NULL;
        if (!s)
                return 0;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

/* (Re)read the names and parent of PID into E. */
static int entry_read(AncestorCache *c, pid_t pid, Entry *e)
{
        _cleanup_(proc_task_freep) ProcTask *t = NULL;
        char *comm, *argv0, *exe;
        int r;

        /* Names only: no uid/gid, user/group names or cgroup. */
        r = proc_task_read(c->proc_root, pid, 0,
                           PROC_READ_STAT | PROC_READ_CMDLINE | PROC_READ_EXE, &t);
        if (r < 0)
                return r;
        r = dup_or_null(t->view.names.comm, &comm);
        if (r < 0)
                return r;
        r = dup_or_null(t->view.names.argv0, &argv0);
        if (r < 0) {
                free(comm);
                return r;
        }
        r = dup_or_null(t->view.names.exe, &exe);
        if (r < 0) {
                free(comm);
                free(argv0);
                return r;
        }
        free(e->comm);
        free(e->argv0);
        free(e->exe);
        e->comm = comm;
        e->argv0 = argv0;
        e->exe = exe;
        e->pid = pid;
        e->ppid = t->ppid;
        e->stale = false;
        return 0;
}

int ancestor_cache_get(AncestorCache *c, pid_t ppid, const TaskNames **ret, size_t *ret_n)
{
        size_t n = 0;
        int r;

        /* Make room before the walk: names[] points into the entries. */
        if (pidmap_size(&c->map) + MAX_DEPTH >= MAX_ENTRIES)
                ancestor_cache_flush(c);

        for (pid_t pid = ppid; pid > 0 && n < MAX_DEPTH;) {
                Entry *e = pidmap_get(&c->map, pid);

                if (!e) {
                        e = calloc(1, sizeof(*e));
                        if (!e)
                                return -ENOMEM;
                        r = entry_read(c, pid, e);
                        if (r < 0) {
                                entry_free(e);
                                if (r == -ENOMEM)
                                        return r;
                                break; /* gone or unreadable: the chain ends */
                        }
                        r = pidmap_put(&c->map, pid, e);
                        if (r < 0) {
                                entry_free(e);
                                return r;
                        }
                } else if (e->stale) {
                        r = entry_read(c, pid, e);
                        if (r < 0) {
                                (void)pidmap_remove(&c->map, pid);
                                entry_free(e);
                                if (r == -ENOMEM)
                                        return r;
                                break;
                        }
                }

                c->names[n++] = (TaskNames){ .comm = e->comm ? e->comm : "",
                                             .argv0 = e->argv0,
                                             .exe = e->exe };
                if (e->ppid == pid)
                        break;
                pid = e->ppid;
        }

        *ret = c->names;
        *ret_n = n;
        return 0;
}

void ancestor_cache_stale(AncestorCache *c, pid_t pid)
{
        Entry *e = pidmap_get(&c->map, pid);

        if (e)
                e->stale = true;
}

void ancestor_cache_exit(AncestorCache *c, pid_t pid)
{
        Entry *e = pidmap_remove(&c->map, pid);
        size_t state = 0;
        pid_t k;
        void *v;

        if (!e)
                return;
        entry_free(e);
        /* Its children were reparented: their cached parent is wrong now. */
        while (pidmap_iterate(&c->map, &state, &k, &v))
                if (((Entry *)v)->ppid == pid) {
                        (void)pidmap_remove(&c->map, k);
                        entry_free(v);
                }
}
