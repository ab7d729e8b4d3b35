/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/apply/budget.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/util.h"
#include "policy/decide.h"

#define NSEC_PER_USEC_ UINT64_C(1000)
#define NSEC_PER_SEC_ UINT64_C(1000000000)

typedef struct BudgetThread {
        pid_t tid;
        uint64_t last_ns; /* run time at the last sample */
} BudgetThread;

struct BudgetProcess {
        pid_t pid;
        uint64_t starttime;
        bool whole;            /* every thread boosted: the process's stat total */
        bool have_last;        /* LAST_NS holds a reading (whole) */
        uint64_t last_ns;      /* whole: the process's CPU time at the last sample */
        BudgetThread *threads; /* not whole: the boosted threads */
        size_t n_threads;
        uint64_t window_start_ns;
        uint64_t used_ns;      /* CPU time of the boosted threads since then */
        char *rule;
        char *revoked;         /* why its boosts are withheld, or NULL */
};

int budget_judge(const BudgetConfig *c, uint64_t cpu_ns, uint64_t wall_ns, unsigned *ret_permille)
{
        uint64_t permille = wall_ns > 0 ? cpu_ns / (wall_ns / 1000 ? wall_ns / 1000 : 1) : 0;

        *ret_permille = permille > UINT32_MAX ? UINT32_MAX : (unsigned)permille;
        if (c->share_permille == 0)
                return 0;
        if (wall_ns < c->window_usec * NSEC_PER_USEC_ / 2)
                return -EAGAIN;
        return permille > c->share_permille;
}

int budget_parse_stat(const char *buf, size_t size, unsigned long tick_hz, uint64_t *ret_ns)
{
        const char *p = NULL, *end = buf + size;
        unsigned long long v[2];

        /* The comm may hold anything, ")" included: the fields follow the
         * last ")". */
        for (const char *q = buf; q < end && *q; q++)
                if (*q == ')')
                        p = q;
        if (!p || tick_hz == 0)
                return -EIO;
        p++;
        /* Field 3 (the state) comes next; utime is field 14. */
        for (unsigned field = 2; field < 13; field++) {
                while (p < end && *p == ' ')
                        p++;
                while (p < end && *p && *p != ' ')
                        p++;
                if (p >= end || *p != ' ')
                        return -EIO;
        }
        for (unsigned i = 0; i < 2; i++) {
                char *e;

                while (p < end && *p == ' ')
                        p++;
                if (p >= end || *p < '0' || *p > '9')
                        return -EIO;
                errno = 0;
                v[i] = strtoull(p, &e, 10);
                if (errno || e > end || (e < end && *e != ' ' && *e != '\n'))
                        return -EIO;
                p = e;
        }
        if (v[0] > UINT64_MAX / 2 / NSEC_PER_SEC_ || v[1] > UINT64_MAX / 2 / NSEC_PER_SEC_)
                return -EIO;
        *ret_ns = (v[0] + v[1]) * NSEC_PER_SEC_ / tick_hz;
        return 0;
}

int budget_parse_schedstat(const char *buf, size_t size, uint64_t *ret_ns)
{
        unsigned long long v;
        char *e;

        if (size == 0 || buf[0] < '0' || buf[0] > '9' || !memchr(buf, ' ', size))
                return -EIO;
        errno = 0;
        v = strtoull(buf, &e, 10);
        if (errno || e >= buf + size || *e != ' ')
                return -EIO;
        *ret_ns = v;
        return 0;
}

/* Read a small /proc file into BUF; -ESRCH if the task is gone. */
static int read_small(const char *path, char *buf, size_t size, size_t *ret_n)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        ssize_t n;

        if (fd < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        n = read(fd, buf, size - 1);
        if (n < 0)
                return errno == ESRCH ? -ESRCH : -errno;
        if (n == 0)
                return -ESRCH; /* a zombie's thread */
        buf[n] = 0;
        *ret_n = (size_t)n;
        return 0;
}

/* The CPU time of process PID (TID 0: every thread, ended ones too) or of
 * its thread TID, in ns. */
static int cpu_read(const Budget *b, pid_t pid, pid_t tid, uint64_t *ret_ns)
{
        const char *root = b->proc_root ? b->proc_root : "/proc";
        char path[128], buf[1024];
        size_t n = 0;
        int r;

        if (tid <= 0)
                snprintf(path, sizeof(path), "%s/%d/stat", root, (int)pid);
        else
                snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat", root, (int)pid,
                         (int)tid);
        r = read_small(path, buf, sizeof(buf), &n);
        if (r < 0)
                return r;
        return tid <= 0 ? budget_parse_stat(buf, n, b->tick_hz, ret_ns)
                        : budget_parse_schedstat(buf, n, ret_ns);
}

static BudgetProcess *process_free(BudgetProcess *p)
{
        if (!p)
                return NULL;
        free(p->threads);
        free(p->rule);
        free(p->revoked);
        free(p);
        return NULL;
}

void budget_init(Budget *b, const char *proc_root)
{
        long hz = sysconf(_SC_CLK_TCK);

        *b = (Budget){
                .config = { .share_permille = BUDGET_SHARE_DEFAULT,
                            .window_usec = BUDGET_WINDOW_DEFAULT_USEC },
                .proc_root = proc_root,
                .tick_hz = hz > 0 ? (unsigned long)hz : 100,
        };
}

static void forget_all(Budget *b)
{
        size_t state = 0;
        void *v;

        while (pidmap_iterate(&b->processes, &state, NULL, &v))
                process_free(v);
        pidmap_done(&b->processes);
}

void budget_done(Budget *b)
{
        forget_all(b);
}

void budget_configure(Budget *b, const BudgetConfig *c, uint64_t now_ns)
{
        size_t state = 0;
        void *v;

        if (c->share_permille == b->config.share_permille &&
            c->window_usec == b->config.window_usec)
                return;
        b->config = *c;
        if (c->share_permille == 0) {
                forget_all(b);
                return;
        }
        while (pidmap_iterate(&b->processes, &state, NULL, &v)) {
                BudgetProcess *p = v;

                p->window_start_ns = now_ns;
                p->used_ns = 0;
        }
}

static BudgetThread *thread_find(BudgetProcess *p, pid_t tid)
{
        for (size_t i = 0; i < p->n_threads; i++)
                if (p->threads[i].tid == tid)
                        return &p->threads[i];
        return NULL;
}

static void thread_drop(BudgetProcess *p, pid_t tid)
{
        BudgetThread *t = thread_find(p, tid);

        if (t)
                *t = p->threads[--p->n_threads];
}

/* The tracked process PID, made if needed. NULL: not tracked (-ENOMEM in
 * *RET_ERR, or 0 if the table is full). */
static BudgetProcess *process_get(Budget *b, pid_t pid, uint64_t starttime, uint64_t now_ns,
                                  int *ret_err)
{
        BudgetProcess *p = pidmap_get(&b->processes, pid);

        *ret_err = 0;
        if (p && p->starttime == starttime)
                return p;
        if (p)
                process_free(pidmap_remove(&b->processes, pid)); /* a reused pid */
        if (pidmap_size(&b->processes) >= BUDGET_PROCESSES_MAX) {
                if (!b->warned_full)
                        log_warning("More than %u boosted processes: %d and later ones are "
                                    "not held to the boost budget.",
                                    BUDGET_PROCESSES_MAX, (int)pid);
                b->warned_full = true;
                return NULL;
        }
        p = calloc(1, sizeof(*p));
        if (!p || pidmap_put(&b->processes, pid, p) < 0) {
                free(p);
                *ret_err = -ENOMEM;
                return NULL;
        }
        p->pid = pid;
        p->starttime = starttime;
        p->window_start_ns = now_ns;
        return p;
}

/* Start measuring what P (or its thread TID) uses from now on. */
static int baseline(Budget *b, BudgetProcess *p, pid_t tid)
{
        BudgetThread *t;
        uint64_t ns = 0;

        if (p->whole) {
                p->have_last = cpu_read(b, p->pid, 0, &p->last_ns) >= 0;
                return 0;
        }
        if (thread_find(p, tid))
                return 0;
        if (cpu_read(b, p->pid, tid, &ns) < 0)
                return 0; /* gone: its exit comes */
        t = reallocarray(p->threads, p->n_threads + 1, sizeof(*t));
        if (!t)
                return -ENOMEM;
        p->threads = t;
        p->threads[p->n_threads++] = (BudgetThread){ .tid = tid, .last_ns = ns };
        return 0;
}

int budget_note(Budget *b, pid_t pid, uint64_t starttime, pid_t tid, bool boosted, bool whole,
                const char *rule, uint64_t now_ns)
{
        BudgetProcess *p;
        int r;

        if (b->config.share_permille == 0 || pid <= 0 || tid <= 0)
                return 0;
        if (!boosted) {
                p = pidmap_get(&b->processes, pid);
                if (!p || p->starttime != starttime || p->revoked)
                        return 0;
                /* Whole: the process's decision has no boost any more. */
                if (!p->whole)
                        thread_drop(p, tid);
                if (p->whole || p->n_threads == 0)
                        process_free(pidmap_remove(&b->processes, pid));
                return 0;
        }
        p = process_get(b, pid, starttime, now_ns, &r);
        if (!p)
                return r;
        if (p->revoked)
                return 0;
        if (rule && (!p->rule || !streq(p->rule, rule))) {
                char *c = strdup(rule);

                if (!c)
                        return -ENOMEM;
                free(p->rule);
                p->rule = c;
        }
        if (whole != p->whole) {
                /* Measured the other way from now on: the window starts again. */
                p->whole = whole;
                p->n_threads = 0;
                p->have_last = false;
                p->window_start_ns = now_ns;
                p->used_ns = 0;
        }
        if (p->whole && p->have_last)
                return 1;
        r = baseline(b, p, tid);
        return r < 0 ? r : 1;
}

void budget_forget(Budget *b, pid_t pid, pid_t tid)
{
        BudgetProcess *p = pidmap_get(&b->processes, pid);

        if (!p)
                return;
        if (tid == pid) {
                process_free(pidmap_remove(&b->processes, pid));
                return;
        }
        if (!p->whole)
                thread_drop(p, tid);
}

const char *budget_revoked(const Budget *b, pid_t pid, uint64_t starttime)
{
        const BudgetProcess *p = pidmap_get(&b->processes, pid);

        return p && p->starttime == starttime ? p->revoked : NULL;
}

bool budget_active(const Budget *b)
{
        size_t state = 0;
        void *v;

        if (b->config.share_permille == 0)
                return false;
        while (pidmap_iterate(&b->processes, &state, NULL, &v))
                if (!((BudgetProcess *)v)->revoked)
                        return true;
        return false;
}

/* What P's boosted threads used since the last sample. -ESRCH: the process
 * is gone. */
static int process_used(Budget *b, BudgetProcess *p, uint64_t *ret_ns)
{
        uint64_t used = 0, ns;
        int r;

        if (p->whole) {
                r = cpu_read(b, p->pid, 0, &ns);
                if (r < 0)
                        return r;
                if (p->have_last && ns > p->last_ns)
                        used = ns - p->last_ns;
                p->last_ns = ns;
                p->have_last = true;
                *ret_ns = used;
                return 0;
        }
        for (size_t i = 0; i < p->n_threads;) {
                BudgetThread *t = &p->threads[i];

                r = cpu_read(b, p->pid, t->tid, &ns);
                if (r < 0) {
                        /* Ended: what it used since the last sample is lost
                         * (with a thread rule only; see budget.h). */
                        *t = p->threads[--p->n_threads];
                        continue;
                }
                if (ns > t->last_ns)
                        used += ns - t->last_ns;
                t->last_ns = ns;
                i++;
        }
        *ret_ns = used;
        return p->n_threads > 0 ? 0 : -ESRCH;
}

static int budget_revoke(Budget *b, BudgetProcess *p, unsigned permille, uint64_t wall_ns)
{
        const unsigned share = b->config.share_permille;
        _cleanup_free_ char *comm = NULL;
        char *why;

        if (asprintf(&why,
                     BOOST_BUDGET_REASON_PREFIX ": its boosted threads used %u.%u%% of a CPU over "
                     "%" PRIu64 ".%" PRIu64 " s, more than BoostBudgetShare=%u.%u%% (rule %s); "
                     "no boosts until it ends",
                     permille / 10, permille % 10, wall_ns / NSEC_PER_SEC_,
                     wall_ns % NSEC_PER_SEC_ / (NSEC_PER_SEC_ / 10), share / 10, share % 10,
                     strna(p->rule)) < 0)
                return -ENOMEM;
        p->revoked = why;
        p->n_threads = 0;
        b->n_revoked++;
        (void)proc_thread_comm(b->proc_root ? b->proc_root : "/proc", p->pid, p->pid, &comm);
        log_warning("%d (%s): boosts taken back: %s.", (int)p->pid, strna(comm), why);
        return 0;
}

void budget_sample(Budget *b, uint64_t now_ns, void (*revoked)(void *userdata, pid_t pid),
                   void *userdata)
{
        _cleanup_free_ pid_t *over = NULL;
        size_t state = 0, n_over = 0;
        pid_t pid;
        void *v;

        while (pidmap_iterate(&b->processes, &state, &pid, &v)) {
                BudgetProcess *p = v;
                uint64_t used, wall;
                unsigned permille;
                int r;

                if (p->revoked)
                        continue;
                r = process_used(b, p, &used);
                if (r < 0) {
                        if (p->whole || p->n_threads == 0)
                                process_free(pidmap_remove(&b->processes, pid));
                        continue;
                }
                p->used_ns += used;
                wall = now_ns > p->window_start_ns ? now_ns - p->window_start_ns : 0;
                r = budget_judge(&b->config, p->used_ns, wall, &permille);
                if (r == -EAGAIN)
                        continue;
                if (r > 0 && budget_revoke(b, p, permille, wall) >= 0) {
                        pid_t *o = reallocarray(over, n_over + 1, sizeof(pid_t));

                        if (o) {
                                over = o;
                                over[n_over++] = pid;
                        }
                        continue;
                }
                p->window_start_ns = now_ns;
                p->used_ns = 0;
        }
        /* After the walk: the callback may note and forget processes. */
        for (size_t i = 0; revoked && i < n_over; i++)
                revoked(userdata, over[i]);
}
