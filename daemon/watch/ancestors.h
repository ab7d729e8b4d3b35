/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Ancestor cache: the names (comm, argv[0], exe) of the processes that are
 * parents of other processes, so that matching "parent:" and "ancestor:"
 * keys does not walk /proc up to init for every exec.
 *
 * Correctness comes from the proc connector: an entry is dropped when its
 * process exits (and with it every entry that named it as parent, as those
 * were reparented), its names are re-read after exec or a rename, and the
 * whole cache is dropped when events were lost. Bounded in size.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "lib/task.h"

typedef struct AncestorCache AncestorCache;

int ancestor_cache_new(const char *proc_root, AncestorCache **ret);
AncestorCache *ancestor_cache_free(AncestorCache *c);
static inline void ancestor_cache_freep(AncestorCache **c)
{
        if (*c)
                ancestor_cache_free(*c);
}

/*
 * The ancestors of a process whose parent is PPID: [0] the parent, [1] the
 * grandparent, ... up to init, as the matcher wants them. The array and its
 * strings are borrowed until the next call on the cache. A chain that
 * breaks (an ancestor exits meanwhile) ends there. -ENOMEM only.
 */
int ancestor_cache_get(AncestorCache *c, pid_t ppid, const TaskNames **ret, size_t *ret_n);

/* Process PID execed or renamed its main thread: re-read its names on use. */
void ancestor_cache_stale(AncestorCache *c, pid_t pid);
/* Process PID exited. */
void ancestor_cache_exit(AncestorCache *c, pid_t pid);
/* Events were lost: forget everything. */
void ancestor_cache_flush(AncestorCache *c);

size_t ancestor_cache_size(const AncestorCache *c);
