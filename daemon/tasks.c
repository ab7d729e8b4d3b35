/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/tasks.h"
#include "lib/macro.h"

/*
 * Two open-addressing tables with linear probing and tombstones (removal
 * never moves other entries, so iteration may remove the current one):
 * tid -> Task*, and pid -> number of entries of that process.
 */

#define SLOT_EMPTY 0
#define SLOT_DELETED (-1)
#define MIN_CAPACITY 16u

typedef struct Slot {
        pid_t key; /* > 0, or SLOT_EMPTY / SLOT_DELETED */
        union {
                Task *task;
                size_t count;
        };
} Slot;

typedef struct IntMap {
        Slot *slots;
        size_t capacity; /* power of two, or 0 */
        size_t n_used;   /* live entries */
        size_t n_filled; /* live + tombstones */
} IntMap;

struct TaskTable {
        IntMap tasks;
        IntMap procs;
        size_t n_user_owned;
};

static size_t hash_pid(pid_t k)
{
        uint32_t x = (uint32_t)k;

        /* A cheap integer mixer; pids are sequential, so spread them. */
        x ^= x >> 16;
        x *= 0x7feb352du;
        x ^= x >> 15;
        x *= 0x846ca68bu;
        x ^= x >> 16;
        return x;
}

static Slot *intmap_find(const IntMap *m, pid_t key)
{
        if (m->capacity == 0)
                return NULL;
        for (size_t i = hash_pid(key) & (m->capacity - 1), n = 0; n < m->capacity;
             i = (i + 1) & (m->capacity - 1), n++) {
                Slot *s = &m->slots[i];
                if (s->key == SLOT_EMPTY)
                        return NULL;
                if (s->key == key)
                        return s;
        }
        return NULL;
}

static int intmap_resize(IntMap *m, size_t capacity)
{
        Slot *old = m->slots, *slots;
        size_t old_capacity = m->capacity;

        slots = calloc(capacity, sizeof(Slot));
        if (!slots)
                return -ENOMEM;
        m->slots = slots;
        m->capacity = capacity;
        m->n_filled = m->n_used;

        for (size_t j = 0; j < old_capacity; j++) {
                if (old[j].key <= 0)
                        continue;
                size_t i = hash_pid(old[j].key) & (capacity - 1);
                while (slots[i].key != SLOT_EMPTY)
                        i = (i + 1) & (capacity - 1);
                slots[i] = old[j];
        }
        free(old);
        return 0;
}

/* Find KEY or make room for it; *ret_new tells which. */
static int intmap_slot(IntMap *m, pid_t key, Slot **ret, bool *ret_new)
{
        Slot *s, *tomb = NULL;
        int r;

        s = intmap_find(m, key);
        if (s) {
                *ret = s;
                *ret_new = false;
                return 0;
        }

        /* Keep live + tombstones under 1/2; shrink back when mostly empty. */
        if ((m->n_filled + 1) * 2 > m->capacity) {
                size_t c = MIN_CAPACITY;
                while (c < (m->n_used + 1) * 4)
                        c *= 2;
                r = intmap_resize(m, c);
                if (r < 0)
                        return r;
        }

        for (size_t i = hash_pid(key) & (m->capacity - 1);; i = (i + 1) & (m->capacity - 1)) {
                s = &m->slots[i];
                if (s->key == SLOT_DELETED && !tomb)
                        tomb = s;
                if (s->key == SLOT_EMPTY)
                        break;
        }
        if (tomb)
                s = tomb;
        else
                m->n_filled++;
        s->key = key;
        s->task = NULL;
        m->n_used++;
        *ret = s;
        *ret_new = true;
        return 0;
}

static void intmap_delete(IntMap *m, Slot *s)
{
        s->key = SLOT_DELETED;
        s->task = NULL;
        m->n_used--;
}

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
        if (!t)
                return NULL;
        for (size_t i = 0; i < t->tasks.capacity; i++)
                if (t->tasks.slots[i].key > 0)
                        task_free(t->tasks.slots[i].task);
        free(t->tasks.slots);
        free(t->procs.slots);
        free(t);
        return NULL;
}

size_t task_table_size(const TaskTable *t)
{
        return t->tasks.n_used;
}

size_t task_table_n_user_owned(const TaskTable *t)
{
        return t->n_user_owned;
}

Task *task_table_get(const TaskTable *t, pid_t tid)
{
        Slot *s;

        if (tid <= 0)
                return NULL;
        s = intmap_find(&t->tasks, tid);
        return s ? s->task : NULL;
}

bool task_table_has_process(const TaskTable *t, pid_t pid)
{
        return pid > 0 && intmap_find(&t->procs, pid);
}

int task_table_add(TaskTable *t, pid_t pid, pid_t tid, uint64_t starttime, Task **ret)
{
        Slot *s, *p;
        Task *task;
        bool is_new;
        int r;

        if (pid <= 0 || tid <= 0)
                return -EINVAL;

        s = intmap_find(&t->tasks, tid);
        if (s) {
                if (ret)
                        *ret = s->task;
                return -EEXIST;
        }

        task = calloc(1, sizeof(*task));
        if (!task)
                return -ENOMEM;
        task->pid = pid;
        task->tid = tid;
        task->starttime = starttime;

        /* Reserve the process count first: it is the one that may fail
         * without side effects on the task map. */
        r = intmap_slot(&t->procs, pid, &p, &is_new);
        if (r < 0) {
                task_free(task);
                return r;
        }
        if (is_new)
                p->count = 0;

        r = intmap_slot(&t->tasks, tid, &s, &is_new);
        if (r < 0) {
                if (p->count == 0)
                        intmap_delete(&t->procs, p);
                task_free(task);
                return r;
        }
        s->task = task;
        /* The task map may have been resized, the proc map was not touched. */
        p = intmap_find(&t->procs, pid);
        p->count++;

        if (ret)
                *ret = task;
        return 0;
}

void task_table_remove(TaskTable *t, pid_t tid)
{
        Slot *s, *p;
        Task *task;

        if (tid <= 0)
                return;
        s = intmap_find(&t->tasks, tid);
        if (!s)
                return;
        task = s->task;
        intmap_delete(&t->tasks, s);

        p = intmap_find(&t->procs, task->pid);
        if (p && --p->count == 0)
                intmap_delete(&t->procs, p);
        if (task->user_owned)
                t->n_user_owned--;
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

void task_table_set_user_owned(TaskTable *t, Task *task, bool b)
{
        if (task->user_owned == b)
                return;
        task->user_owned = b;
        if (b)
                t->n_user_owned++;
        else
                t->n_user_owned--;
}

bool task_table_iterate(const TaskTable *t, size_t *state, Task **ret)
{
        for (size_t i = *state; i < t->tasks.capacity; i++)
                if (t->tasks.slots[i].key > 0) {
                        *state = i + 1;
                        *ret = t->tasks.slots[i].task;
                        return true;
                }
        *state = t->tasks.capacity;
        return false;
}
