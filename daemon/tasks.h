/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Task table: the threads latniced changed, keyed by tid.
 *
 * An entry remembers what was applied, the attributes the thread had before
 * (to restore them), what the attributes read back as right after applying
 * (to notice that someone else changed them since), and the start time of
 * the thread, so a recycled tid is never mistaken for the task it was.
 * Per-process counts answer "does latniced manage any thread of PID" and
 * "does any thread of PID belong to someone else" (a thread created later
 * in such a process inherited their attributes and is theirs too).
 *
 * Ownership is per attribute: applied_mask names the attributes that are
 * still latniced's to restore; an attribute someone else changed leaves it,
 * and the thread is then user-owned (nothing more is applied to it), while
 * the attributes still as latniced left them are restored as usual.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/sched.h"
#include "lib/settings.h"

typedef struct Task {
        pid_t pid, tid;
        uint64_t starttime;     /* /proc/PID/task/TID/stat field 22 */
        char *rule;             /* rule that decided the settings (owned), "manual" for SetTask */
        char *comm;             /* thread name when last applied (owned), for listings */
        Settings settings;      /* what the policy asked for */
        uint32_t applied_mask;  /* SETTING_BITs latniced changed and still owns */
        SchedState orig;        /* before latniced first touched it */
        SchedState expected;    /* as read back after latniced's last change */
        bool user_owned;        /* changed by someone else (or SetTask): nothing more applied */
        bool mark;              /* scratch flag for rescans */
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

/* Iterate: *state starts at 0. Removing the current entry is allowed;
 * adding entries during iteration is not. */
bool task_table_iterate(const TaskTable *t, size_t *state, Task **ret);
