/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Task table: the threads latniced changed, keyed by tid.
 *
 * An entry remembers what was applied, the attributes the thread had before
 * (to restore them), what the attributes read back as right after applying
 * (to notice that someone else changed them since), and the start time of
 * the thread, so a recycled tid is never mistaken for the task it was.
 * Per-process counts answer "does latniced manage any thread of PID",
 * "how many of its threads hold a real-time grant" and
 * "does any thread of PID belong to someone else" (a thread created later
 * in such a process inherited their attributes and is theirs too).
 *
 * Ownership is per attribute, by the ledger's claim (thread-claim.h): the
 * attributes it holds are still latniced's to restore;
 * an attribute someone else changed leaves it, and the thread is then
 * user-owned (nothing more is applied to it), while the attributes still
 * as latniced left them are restored as usual.
 *
 * With a state file attached (state-file.h), every entry also has a record
 * there, so that a latniced that dies does not take its originals along:
 * entries are written when added, when ownership changes, and by
 * task_table_save() (apply.c calls it right before changing a thread and
 * after), and freed when removed. Each record written is one pwrite() and
 * one fstat(); see state-file.h for why a record is never left half written
 * and why no write can fault.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/state/state-file.h"
#include "daemon/state/thread-claim.h"
#include "lib/sched.h"
#include "lib/settings.h"

typedef struct Task {
        pid_t pid, tid;
        uint64_t starttime;     /* /proc/PID/task/TID/stat field 22 */
        char *rule;             /* rule that decided the settings (owned), "manual" for SetTask */
        char *comm;             /* thread name when last applied (owned), for listings */
        Settings settings;      /* what the policy asked for */
        /* The ledger's claim on its attributes (daemon/state/thread-claim.h):
         * the attributes held, their originals and expected values. */
        ThreadClaim claim;
        uint64_t applied_ns;    /* CLOCK_MONOTONIC when latniced last changed it (0: not yet) */
        bool user_owned;        /* changed by someone else (or SetTask): nothing more applied */
        bool mark;              /* scratch flag for rescans */
        bool state_unrecorded;  /* its record could not be added (counted once) */
        bool rt_counted;        /* counted as holding a grant (task_table_grant_sync()) */
        uint32_t state_slot;    /* 1 + its record in the state file, 0 none */
} Task;

typedef struct TaskTable TaskTable;

int task_table_new(TaskTable **ret);
/* Frees every entry. Accepts NULL. */
TaskTable *task_table_free(TaskTable *t);
static inline void task_table_freep(TaskTable **t)
{
        if (*t)
                task_table_free(*t);
}

size_t task_table_size(const TaskTable *t);
/* Number of user-owned entries. */
size_t task_table_n_user_owned(const TaskTable *t);
/* Entries that wanted a record in the state file and got none (no space to
 * grow it, or the file could not be kept): each counted once. */
uint64_t task_table_n_unrecorded(const TaskTable *t);

Task *task_table_get(const TaskTable *t, pid_t tid);
/* True if some thread of PID has an entry. */
bool task_table_has_process(const TaskTable *t, pid_t pid);
/* True if some thread of PID has a user-owned entry. */
bool task_table_process_user_owned(const TaskTable *t, pid_t pid);

/* Add a zeroed entry for TID (rule NULL, nothing applied). -EEXIST if TID has
 * one already (*ret then points at it), -EINVAL for bad ids, -ENOMEM. */
int task_table_add(TaskTable *t, pid_t pid, pid_t tid, uint64_t starttime, Task **ret);
/* Drop the entry of TID, if any. Safe during task_table_iterate(). */
void task_table_remove(TaskTable *t, pid_t tid);

/* Replace the owned rule / comm strings (NULL clears). -ENOMEM leaves them. */
int task_set_rule(Task *task, const char *rule);
int task_set_comm(Task *task, const char *comm);

/* Mark the entry user-owned (or not) and keep the counts right. -ENOMEM
 * (only when marking) leaves the entry as it was. */
int task_table_set_user_owned(TaskTable *t, Task *task, bool b);

/* Keep every entry in F from now on (F is owned by the table and closed,
 * not emptied, by task_table_free()). Entries already there get records. */
void task_table_attach_state(TaskTable *t, StateFile *f);
StateFile *task_table_state(const TaskTable *t);

/* Write TASK's record (allocating one if it has none). PENDING_MASK names
 * the attributes about to be changed (0 once the change is over): should
 * latniced die before the next save, a restarted one treats them as
 * changed. -ENOMEM/-ENOSPC when the file cannot grow: the entry then
 * has no record (it is not crash-safe, everything else works; a warning
 * the first time, and task_table_n_unrecorded() counts it; a later save
 * tries again). No-op without a state file. */
int task_table_save(TaskTable *t, Task *task, uint32_t pending_mask);
/* task_table_save(t, entry of TID, 0) if TID has an entry. */
void task_table_sync(TaskTable *t, pid_t tid);

/* Add the entry of record REC (adoption after a restart): its values, bound
 * to its slot. Errors as task_table_add(). */
int task_table_add_record(TaskTable *t, const StateRecord *rec, Task **ret);

/* Does TASK hold latniced's real-time grant (its claim holds Policy, at a
 * real-time policy as read back after the write)? */
bool task_rt_granted(const Task *task);
/*
 * The grants are counted, not walked (a user who can make many threads
 * must not make each decision cost a walk of the table): TASK's claim may
 * have changed, count its grant in or out of its process's count as
 * task_rt_granted() now says. task_table_save() does it; so does the
 * applier right after each change of a claim, before a count is read
 * again; removing an entry counts it out. Never allocates.
 */
void task_table_grant_sync(TaskTable *t, Task *task);
/* Threads of PID counted as holding a grant. O(1). */
size_t task_table_n_granted(const TaskTable *t, pid_t pid);
/* WATCH(USERDATA, PID, DELTA) right after the count of PID changes by
 * DELTA (+1, -1): daemon/apply/rt-grants.c keeps each user's count by it.
 * NULL: none. */
typedef void (*task_grant_watch_t)(void *userdata, pid_t pid, int delta);
void task_table_set_grant_watch(TaskTable *t, task_grant_watch_t watch, void *userdata);

/* Iterate: *state starts at 0. Removing the current entry is allowed;
 * adding entries during iteration is not. */
bool task_table_iterate(const TaskTable *t, size_t *state, Task **ret);
