/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ProcCache: what latniced read and decided of a process, kept for its
 * threads, so that a new or renamed thread costs only its own name and its
 * own decision.
 *
 * A thread's decision needs its process's snapshot (names, cmdline, exe,
 * ids, cgroup, ancestors), its boost facts (trust verdict, nice floor) and
 * its [Unit] base settings, which are the same for every thread. Read for
 * each thread, they made a storm of 10,000 threads in one process cost
 * latniced tens of seconds (PID/stat alone sums up every thread's CPU time).
 * The applier stores its evaluation of the process here (an opaque value,
 * freed with the function given) when a thread event made it read one.
 *
 * A value holds for the process as it was read, keyed by pid, and is
 * dropped when that can have changed:
 *   - its exec, uid or gid change, main-thread rename: the applier reads
 *     the whole process again and keeps that instead; its exit: the applier
 *     drops it (proc_cache_drop());
 *   - a rescan and a policy load: proc_cache_flush() (a generation count;
 *     the rescan's whole evaluations keep what they read);
 *   - TTL after it was read: what comes without an event (a move to another
 *     cgroup, a new RLIMIT_NICE) is seen that late at most.
 * The start time (a reused pid) is the applier's to check before it acts on
 * a cached process, as for one it has just read.
 *
 * At most MAX values are kept; a new one beyond that replaces an old one.
 * Pure bookkeeping: time is passed in (CLOCK_MONOTONIC usec), nothing here
 * reads /proc or logs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef void (*proc_cache_free_t)(void *value);

typedef struct ProcCache ProcCache;

/* -EINVAL for MAX or TTL_USEC 0 or no FREE_VALUE. */
int proc_cache_new(size_t max, uint64_t ttl_usec, proc_cache_free_t free_value, ProcCache **ret);
ProcCache *proc_cache_free(ProcCache *c);
static inline void proc_cache_freep(ProcCache **c)
{
        if (*c)
                proc_cache_free(*c);
}

/* PID's value if it is still valid at NOW (*RET_UID: the uid stored with
 * it), else NULL (an expired one is dropped). */
void *proc_cache_get(ProcCache *c, pid_t pid, uint64_t now, uid_t *ret_uid);
/* The uid stored with PID's value, also after its TTL (a uid change drops
 * the value); -ENOENT if there is none. */
int proc_cache_uid(const ProcCache *c, pid_t pid, uid_t *ret);
/* Keep VALUE (owned from now on, freed also on failure) for PID, whose real
 * uid is UID, read at NOW; a value PID had is freed. -ENOMEM, -EINVAL. */
int proc_cache_put(ProcCache *c, pid_t pid, uid_t uid, void *value, uint64_t now);
/* Drop (and free) PID's value, if any. */
void proc_cache_drop(ProcCache *c, pid_t pid);
/* Invalidate every value: none is handed out again (a rescan, a new
 * policy). */
void proc_cache_flush(ProcCache *c);
/* Was anything kept for PID, valid or not (then a whole evaluation of it
 * keeps its result too: the process has thread events)? */
bool proc_cache_has(const ProcCache *c, pid_t pid);

size_t proc_cache_size(const ProcCache *c);
uint64_t proc_cache_n_hits(const ProcCache *c);
uint64_t proc_cache_n_misses(const ProcCache *c);
