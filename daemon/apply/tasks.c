/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/watch/pidmap.h"
#include "daemon/apply/tasks.h"
#include "lib/invariant.h"
#include "lib/log.h"
#include "lib/macro.h"

/* tid -> Task*, pid -> ProcCounts of that process (allocated with its
 * first entry, so that a grant counted later never allocates), and pid ->
 * number of its user-owned entries (counts stored in the pointer, never 0
 * while present). */
typedef struct ProcCounts {
        size_t n;         /* entries */
        size_t n_granted; /* entries counted as holding a real-time grant */
} ProcCounts;

struct TaskTable {
        PidMap tasks;
        PidMap procs;
        PidMap user_procs;
        task_grant_watch_t grant_watch;
        void *grant_watch_userdata;
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
        state = 0;
        while (pidmap_iterate(&t->procs, &state, NULL, &v))
                free(v);
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
        ProcCounts *pc, *new_pc = NULL;
        Task *task, *old;
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

        pc = pidmap_get(&t->procs, pid);
        if (!pc) {
                new_pc = pc = calloc(1, sizeof(*pc));
                r = pc ? pidmap_put(&t->procs, pid, pc) : -ENOMEM;
                if (r < 0) {
                        free(new_pc);
                        task_free(task);
                        return r;
                }
        }
        r = pidmap_put(&t->tasks, tid, task);
        if (r < 0) {
                if (new_pc)
                        free(pidmap_remove(&t->procs, pid));
                task_free(task);
                return r;
        }
        pc->n++;

        if (ret)
                *ret = task;
        return 0;
}

/* Count TASK's grant in (DELTA +1) or out (-1) of its process's and tell
 * the watcher. Never allocates: the process's counts exist while TASK does. */
static void grant_count(TaskTable *t, Task *task, int delta)
{
        ProcCounts *pc = pidmap_get(&t->procs, task->pid);

        ln_assert(pc && (delta > 0 || pc->n_granted > 0));
        pc->n_granted += delta;
        task->rt_counted = delta > 0;
        if (t->grant_watch)
                t->grant_watch(t->grant_watch_userdata, task->pid, delta);
}

void task_table_grant_sync(TaskTable *t, Task *task)
{
        bool granted = task_rt_granted(task);

        if (granted != task->rt_counted)
                grant_count(t, task, granted ? 1 : -1);
}

void task_table_set_grant_watch(TaskTable *t, task_grant_watch_t watch, void *userdata)
{
        t->grant_watch = watch;
        t->grant_watch_userdata = userdata;
}

void task_table_remove(TaskTable *t, pid_t tid)
{
        ProcCounts *pc;
        Task *task;

        task = pidmap_get(&t->tasks, tid);
        if (!task)
                return;
        if (task->rt_counted)
                grant_count(t, task, -1);
        (void)pidmap_remove(&t->tasks, tid);
        pc = pidmap_get(&t->procs, task->pid);
        if (pc && --pc->n == 0)
                free(pidmap_remove(&t->procs, task->pid));
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

        /* Saved after every change of its claim: its grant is counted here
         * too (and where apply.c changes the claim before a grant is
         * counted, task_table_grant_sync()). */
        task_table_grant_sync(t, task);
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
        const ProcCounts *pc = pidmap_get(&t->procs, pid);

        return pc ? pc->n_granted : 0;
}
