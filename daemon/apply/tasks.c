/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/watch/pidmap.h"
#include "daemon/apply/tasks.h"
#include "lib/log.h"
#include "lib/macro.h"

/* tid -> Task*, pid -> number of entries of that process, and pid ->
 * number of its user-owned entries (counts stored in the pointer, never 0
 * while present). */
struct TaskTable {
        PidMap tasks;
        PidMap procs;
        PidMap user_procs;
        size_t n_user_owned;
        StateFile *state;       /* optional, owned */
        bool state_full_warned;
        uint64_t n_unrecorded;
};

#define COUNT_TO_PTR(n) ((void *)(uintptr_t)(n))
#define PTR_TO_COUNT(p) ((size_t)(uintptr_t)(p))

int task_table_new(TaskTable **ret)
{
        TaskTable *t = calloc(1, sizeof(*t));

        if (!t)
                return -ENOMEM;
        *ret = t;
        return 0;
}

static Task *task_free(Task *task)
{
        if (!task)
                return NULL;
        free(task->rule);
        free(task->comm);
        free(task);
        return NULL;
}

TaskTable *task_table_free(TaskTable *t)
{
        size_t state = 0;
        void *v;

        if (!t)
                return NULL;
        while (pidmap_iterate(&t->tasks, &state, NULL, &v))
                task_free(v);
        pidmap_done(&t->tasks);
        pidmap_done(&t->procs);
        pidmap_done(&t->user_procs);
        state_file_free(t->state);
        free(t);
        return NULL;
}

size_t task_table_size(const TaskTable *t)
{
        return pidmap_size(&t->tasks);
}

uint64_t task_table_n_unrecorded(const TaskTable *t)
{
        return t->n_unrecorded;
}

size_t task_table_n_user_owned(const TaskTable *t)
{
        return t->n_user_owned;
}

Task *task_table_get(const TaskTable *t, pid_t tid)
{
        return pidmap_get(&t->tasks, tid);
}

bool task_table_has_process(const TaskTable *t, pid_t pid)
{
        return pidmap_get(&t->procs, pid) != NULL;
}

bool task_table_process_user_owned(const TaskTable *t, pid_t pid)
{
        return pidmap_get(&t->user_procs, pid) != NULL;
}

/* Add DELTA (+1 or -1) to the count of PID in M; the entry goes at 0. */
static int count_add(PidMap *m, pid_t pid, int delta)
{
        size_t count = PTR_TO_COUNT(pidmap_get(m, pid));

        if (delta < 0) {
                if (count <= 1)
                        (void)pidmap_remove(m, pid);
                else
                        (void)pidmap_update(m, pid, COUNT_TO_PTR(count - 1));
                return 0;
        }
        return count == 0 ? pidmap_put(m, pid, COUNT_TO_PTR(1))
                          : pidmap_update(m, pid, COUNT_TO_PTR(count + 1));
}

int task_table_add(TaskTable *t, pid_t pid, pid_t tid, uint64_t starttime, Task **ret)
{
        Task *task, *old;
        size_t count;
        int r;

        if (pid <= 0 || tid <= 0)
                return -EINVAL;

        old = pidmap_get(&t->tasks, tid);
        if (old) {
                if (ret)
                        *ret = old;
                return -EEXIST;
        }

        task = calloc(1, sizeof(*task));
        if (!task)
                return -ENOMEM;
        task->pid = pid;
        task->tid = tid;
        task->starttime = starttime;

        count = PTR_TO_COUNT(pidmap_get(&t->procs, pid));
        r = count == 0 ? pidmap_put(&t->procs, pid, COUNT_TO_PTR(1))
                       : pidmap_update(&t->procs, pid, COUNT_TO_PTR(count + 1));
        if (r < 0) {
                task_free(task);
                return r;
        }
        r = pidmap_put(&t->tasks, tid, task);
        if (r < 0) {
                if (count == 0)
                        (void)pidmap_remove(&t->procs, pid);
                else
                        (void)pidmap_update(&t->procs, pid, COUNT_TO_PTR(count));
                task_free(task);
                return r;
        }

        if (ret)
                *ret = task;
        return 0;
}

void task_table_remove(TaskTable *t, pid_t tid)
{
        Task *task;

        task = pidmap_remove(&t->tasks, tid);
        if (!task)
                return;

        (void)count_add(&t->procs, task->pid, -1);
        if (task->state_slot > 0)
                state_file_release(t->state, task->state_slot - 1);
        if (task->user_owned) {
                t->n_user_owned--;
                (void)count_add(&t->user_procs, task->pid, -1);
        }
        task_free(task);
}

static int set_string(char **field, const char *s)
{
        char *c = NULL;

        if (streq_ptr(*field, s))
                return 0;
        if (s) {
                c = strdup(s);
                if (!c)
                        return -ENOMEM;
        }
        free(*field);
        *field = c;
        return 0;
}

int task_set_rule(Task *task, const char *rule)
{
        return set_string(&task->rule, rule);
}

int task_set_comm(Task *task, const char *comm)
{
        return set_string(&task->comm, comm);
}

int task_table_set_user_owned(TaskTable *t, Task *task, bool b)
{
        int r;

        if (task->user_owned == b)
                return 0;
        r = count_add(&t->user_procs, task->pid, b ? 1 : -1);
        if (r < 0)
                return r;
        task->user_owned = b;
        if (b)
                t->n_user_owned++;
        else
                t->n_user_owned--;
        (void)task_table_save(t, task, 0);
        return 0;
}

void task_table_attach_state(TaskTable *t, StateFile *f)
{
        size_t state = 0;
        void *v;

        state_file_free(t->state);
        t->state = f;
        while (pidmap_iterate(&t->tasks, &state, NULL, &v)) {
                ((Task *)v)->state_slot = 0;
                (void)task_table_save(t, v, 0);
        }
}

StateFile *task_table_state(const TaskTable *t)
{
        return t->state;
}

int task_table_save(TaskTable *t, Task *task, uint32_t pending_mask)
{
        StateRecord rec;
        uint32_t slot;
        int r;

        if (!t->state)
                return 0;
        if (task->state_slot == 0) {
                r = state_file_alloc(t->state, &slot);
                if (r < 0) {
                        if (!t->state_full_warned)
                                log_warning_errno(r, "Cannot add to the state file %s (%m): "
                                                     "entries beyond its %zu are not kept "
                                                     "across a crash of latniced (said once; "
                                                     "UnrecordedTasks counts them).",
                                                  state_file_path(t->state),
                                                  state_file_n_used(t->state));
                        t->state_full_warned = true;
                        if (!task->state_unrecorded)
                                t->n_unrecorded++;
                        task->state_unrecorded = true;
                        return r;
                }
                task->state_slot = slot + 1;
                task->state_unrecorded = false;
        }
        rec = (StateRecord){
                .slot = task->state_slot - 1,
                .pid = task->pid,
                .tid = task->tid,
                .starttime = task->starttime,
                .user_owned = task->user_owned,
                .claim = task->claim,
                .pending_mask = pending_mask,
                .settings = task->settings,
        };
        state_file_put(t->state, &rec);
        return 0;
}

void task_table_sync(TaskTable *t, pid_t tid)
{
        Task *task;

        if (!t->state)
                return;
        task = task_table_get(t, tid);
        if (task)
                (void)task_table_save(t, task, 0);
}

int task_table_add_record(TaskTable *t, const StateRecord *rec, Task **ret)
{
        Task *task;
        int r;

        r = task_table_add(t, rec->pid, rec->tid, rec->starttime, &task);
        if (r < 0)
                return r;
        task->claim = rec->claim;
        task->settings = rec->settings;
        if (t->state)
                task->state_slot = rec->slot + 1;
        r = task_table_set_user_owned(t, task, rec->user_owned);
        if (r < 0) {
                task->state_slot = 0; /* the record stays for the caller to release */
                task_table_remove(t, rec->tid);
                return r;
        }
        (void)task_table_save(t, task, 0);
        if (ret)
                *ret = task;
        return 0;
}

bool task_table_iterate(const TaskTable *t, size_t *state, Task **ret)
{
        void *v;

        if (!pidmap_iterate(&t->tasks, state, NULL, &v))
                return false;
        *ret = v;
        return true;
}

bool task_rt_granted(const Task *task)
{
        return task && (thread_claim_held(&task->claim) & SETTING_BIT(SETTING_POLICY)) &&
               sched_policy_is_rt(task->claim.expected.policy);
}

size_t task_table_n_granted(const TaskTable *t, pid_t pid)
{
        size_t state = 0, n = 0;
        Task *task;

        if (!task_table_has_process(t, pid))
                return 0;
        while (task_table_iterate(t, &state, &task))
                n += task->pid == pid && task_rt_granted(task);
        return n;
}
