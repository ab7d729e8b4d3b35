/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The real-time grants' counts (daemon/apply/tasks.h task_table_n_granted(),
 * daemon/apply/rt-grants.h rt_grants_user_count()) are kept, not walked: a
 * random run of what processes and latniced do - start, make and end
 * threads, exit, exec, change user, be changed by someone else; a reload
 * of the policy, a new priority cap or per-user limit, a crash and the
 * next latniced's adoption - through the applier on the fake kernel, and
 * after each step the kept counts against a count of the table made here.
 * LATNICE_RT_COUNT_SEED picks another run (the seed is printed).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/apply/apply.h"
#include "daemon/apply/rt-grants.h"
#include "daemon/apply/tasks.h"
#include "daemon/state/adopt.h"
#include "daemon/state/state-file.h"
#include "lib/macro.h"
#include "policy/policy.h"
#include "tests/unit/fake-kernel.h"
#include "tests/unit/test-util.h"

#define N_STEPS 1500
#define MAX_PROCS 10
#define MAX_THREADS 6

static const char *const comms[] = { "rt-a", "rt-b", "fair" };
/* The policy grants real time to root's processes only (for another user
 * only a trusted executable's own rules do, which the model has not): a
 * process that changes user to 1000 or 1001 loses its grants, the counts
 * of those users are checked to stay 0 (test-rt-grants moves a count from
 * user to user). */
static const uid_t uids[] = { 0, 1000, 1001 };
static const char *const policies[] = {
        "[Rule a]\nMatch = comm:rt-a\nPolicy = rr\nRealtimePriority = 50\n"
        "[Rule b]\nMatch = comm:rt-b\nPolicy = fifo\nRealtimePriority = 5\n"
        "[Rule f]\nMatch = comm:fair\nNice = 3\n",
        /* rt-a's grant changes (given back and made anew); rt-b's goes */
        "[Rule a]\nMatch = comm:rt-a\nPolicy = fifo\nRealtimePriority = 15\nNice = -1\n"
        "[Rule b]\nMatch = comm:rt-b\nNice = 2\n",
        "[Rule f]\nMatch = comm:fair\nNice = 1\n",
};

typedef struct World {
        Applier a;
        ApplyContext ctx;
        TaskTable *tt;
        RtGrants *rt;
        Policy *policy[ELEMENTSOF(policies)];
        unsigned cur_policy;
        unsigned max_per_user;
        pid_t procs[MAX_PROCS];
        size_t n_procs;
        char path[PATH_MAX];
        unsigned step;
} World;

static uint64_t rng;

static unsigned rnd(unsigned n)
{
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return (unsigned)(rng % n);
}

static Policy *load(const char *text)
{
        Policy *p = NULL;
        Diagnostics d = {};

        CHECK(policy_load_string("test.policy", text, strlen(text), &p, &d) == 0);
        CHECK(diagnostics_count(&d, DIAG_ERROR) == 0);
        diagnostics_done(&d);
        return p;
}

/* A latniced's grants and applier on its table W->tt. */
static void latniced_attach(World *w)
{
        CHECK(rt_grants_new(w->tt, &fake_kernel_ops, fake_proc_root(), &w->rt) == 0);
        rt_grants_set_bounds_hard(w->rt, true);
        rt_grants_set_max_per_user(w->rt, w->max_per_user);
        CHECK(rt_grants_adopt(w->rt) >= 0);
        applier_init(&w->a, w->tt, &w->ctx);
        applier_set_policy(&w->a, w->policy[w->cur_policy]);
        w->a.rt = w->rt;
}

static void latniced_start(World *w)
{
        CHECK(task_table_new(&w->tt) == 0);
        CHECK(tasks_open_state(w->tt, w->path, fake_proc_root(), true) == 0);
        latniced_attach(w);
}

/* It dies: nothing given back. */
static void latniced_crash(World *w)
{
        w->rt = rt_grants_free(w->rt);
        w->tt = task_table_free(w->tt);
}

/* It dies and the next one starts: the thread records it left are taken
 * over as tasks_adopt() takes a record whose thread is as latniced left it,
 * by task_table_add_record() (tasks_adopt() itself reads the threads from
 * the real kernel, not from the model); then the limits' records
 * (rt_grants_adopt()). */
static void latniced_restart(World *w)
{
        _cleanup_(state_file_load_done) StateFileLoad l = {};
        StateFile *f = NULL;

        latniced_crash(w);
        CHECK(task_table_new(&w->tt) == 0);
        CHECK(state_file_open(w->path, &f, &l) == 0);
        task_table_attach_state(w->tt, f);
        for (size_t i = 0; i < l.n_records; i++) {
                const StateRecord *rec = &l.records[i];
                const FakeTask *ft = fake_task(rec->tid);

                if (ft && ft->pid == rec->pid && ft->starttime == rec->starttime)
                        CHECK(task_table_add_record(w->tt, rec, NULL) == 0);
                else
                        state_file_release(f, rec->slot);
        }
        latniced_attach(w);
}

/* The counts as the table has them, counted here, against the kept ones. */
static void check_counts(World *w, const char *when)
{
        size_t per_uid[ELEMENTSOF(uids)] = {}, state = 0;
        Task *t;

        for (size_t i = 0; i < w->n_procs; i++) {
                pid_t pid = w->procs[i];
                size_t n = 0, s = 0;

                while (task_table_iterate(w->tt, &s, &t))
                        n += t->pid == pid && task_rt_granted(t);
                if (task_table_n_granted(w->tt, pid) != n) {
                        fprintf(stderr, "step %u%s: process %d: %zu granted, kept %zu\n",
                                w->step, when, (int)pid, n, task_table_n_granted(w->tt, pid));
                        check(false);
                }
        }
        while (task_table_iterate(w->tt, &state, &t)) {
                uid_t uid;

                if (!task_rt_granted(t) || !rt_grants_process_user(w->rt, t->pid, &uid))
                        continue;
                for (size_t u = 0; u < ELEMENTSOF(uids); u++)
                        per_uid[u] += uids[u] == uid;
        }
        for (size_t u = 0; u < ELEMENTSOF(uids); u++)
                if (rt_grants_user_count(w->rt, uids[u]) != per_uid[u]) {
                        fprintf(stderr, "step %u%s: user %u: %zu granted, kept %u\n",
                                w->step, when, (unsigned)uids[u], per_uid[u],
                                rt_grants_user_count(w->rt, uids[u]));
                        check(false);
                }
}

static void spawn(World *w)
{
        pid_t pid;

        if (w->n_procs == MAX_PROCS)
                return;
        pid = fake_process_new(0, comms[rnd(ELEMENTSOF(comms))], 1, 1 + rnd(3));
        fake_process_setuid(pid, rnd(3) ? 0 : uids[rnd(ELEMENTSOF(uids))]);
        w->procs[w->n_procs++] = pid;
        (void)applier_process(&w->a, pid);
}

/* The threads of PID, its leader first (the model lists them by slot). */
static size_t threads_of(pid_t pid, pid_t tids[static MAX_THREADS + 1])
{
        size_t n = fake_threads(pid, tids, MAX_THREADS + 1);

        CHECK(n <= MAX_THREADS + 1);
        for (size_t j = 0; j < n; j++)
                if (tids[j] == pid) {
                        tids[j] = tids[0];
                        tids[0] = pid;
                }
        CHECK(n > 0 && tids[0] == pid);
        return n;
}

static void thread_new(World *w, pid_t pid)
{
        pid_t tids[MAX_THREADS + 1], nt;
        size_t n = threads_of(pid, tids);

        if (n >= MAX_THREADS)
                return;
        nt = fake_thread_new(tids[rnd((unsigned)n)]);
        (void)applier_thread(&w->a, pid, nt);
}

static void thread_exit(World *w, pid_t pid)
{
        pid_t tids[MAX_THREADS + 1], tid;
        size_t n = threads_of(pid, tids);

        if (n < 2)
                return;
        tid = tids[1 + rnd((unsigned)n - 1)];
        fake_thread_exit(tid);
        applier_forget(&w->a, pid, tid);
}

/* Process I exits: each thread's exit event, the leader's last. */
static void process_exit(World *w, size_t i)
{
        pid_t pid = w->procs[i], tids[MAX_THREADS + 1];
        size_t n = threads_of(pid, tids);

        fake_process_exit(pid);
        for (size_t j = n; j > 0; j--) /* the leader last */
                applier_forget(&w->a, pid, tids[j - 1]);
        w->procs[i] = w->procs[--w->n_procs];
}

/* PID execs: its other threads' exit events, then the exec's. */
static void process_exec(World *w, pid_t pid)
{
        pid_t tids[MAX_THREADS + 1];
        size_t n = threads_of(pid, tids);

        fake_process_exec(pid, comms[rnd(ELEMENTSOF(comms))]);
        for (size_t j = 1; j < n; j++)
                applier_forget(&w->a, pid, tids[j]);
        (void)applier_exec(&w->a, pid);
}

/* Someone else takes a thread of PID out of real time, or sets its nice. */
static void meddle(World *w, pid_t pid)
{
        pid_t tids[MAX_THREADS + 1];
        size_t n = threads_of(pid, tids);
        FakeTask *t = fake_task(tids[rnd((unsigned)n)]);

        if (rnd(2)) {
                t->policy = SCHED_OTHER;
                t->rt_priority = 0;
        } else
                t->nice = 7;
        (void)applier_process(&w->a, pid);
}

static void step(World *w)
{
        size_t i = w->n_procs ? rnd((unsigned)w->n_procs) : 0;
        pid_t pid = w->n_procs ? w->procs[i] : 0;
        unsigned op = rnd(20);

        if (!pid || op < 4)
                spawn(w);
        else if (op < 8)
                thread_new(w, pid);
        else if (op < 10)
                thread_exit(w, pid);
        else if (op < 12)
                process_exit(w, i);
        else if (op < 13)
                process_exec(w, pid);
        else if (op < 14) {
                fake_process_setuid(pid, uids[rnd(ELEMENTSOF(uids))]);
                (void)applier_process(&w->a, pid);
        } else if (op < 15)
                meddle(w, pid);
        else if (op < 16) {
                w->cur_policy = rnd(ELEMENTSOF(policies));
                applier_set_policy(&w->a, w->policy[w->cur_policy]);
                (void)applier_rescan(&w->a);
        } else if (op < 17) {
                w->ctx.rt_max_priority = w->a.ctx.rt_max_priority = rnd(2) ? 20 : 10;
                (void)applier_rescan(&w->a);
        } else if (op < 18) {
                w->max_per_user = rnd(5);
                rt_grants_set_max_per_user(w->rt, w->max_per_user);
                (void)applier_rescan(&w->a);
        } else if (op < 19) {
                latniced_restart(w);
                check_counts(w, " (restarted, before its rescan)");
                (void)applier_rescan(&w->a);
        } else
                (void)applier_process(&w->a, pid);
}

int main(void)
{
        char dir[] = "/tmp/test-rt-count.XXXXXX";
        const char *seed = getenv("LATNICE_RT_COUNT_SEED");
        World w = {
                .ctx = { .kernel = &fake_kernel_ops, .backend = LATENCY_BACKEND_SLICE,
                         .rt_max_priority = 20 },
                .max_per_user = 3,
        };
        size_t max_granted = 0;

        rng = seed ? strtoull(seed, NULL, 0) : 0x5eed1a7c0u;
        rng = rng ?: 1;
        printf("seed %#llx\n", (unsigned long long)rng);
        CHECK(mkdtemp(dir) != NULL);
        snprintf(w.path, sizeof(w.path), "%s/tasks.state", dir);
        fake_kernel_init(0);
        w.ctx.proc_root = fake_proc_root();
        for (size_t i = 0; i < ELEMENTSOF(policies); i++)
                w.policy[i] = load(policies[i]);
        latniced_start(&w);
        for (w.step = 0; w.step < N_STEPS && test_result() == 0; w.step++) {
                step(&w);
                check_counts(&w, "");
                for (size_t u = 0; u < ELEMENTSOF(uids); u++)
                        max_granted = MAX(max_granted, rt_grants_user_count(w.rt, uids[u]));
        }
        /* The run made grants at all. */
        check(max_granted >= 2);
        (void)applier_restore_all(&w.a);
        check(rt_grants_n_processes(w.rt) == 0);
        latniced_crash(&w);
        for (size_t i = 0; i < ELEMENTSOF(policies); i++)
                policy_free(w.policy[i]);
        fake_kernel_done();
        (void)unlink(w.path);
        (void)rmdir(dir);
        return test_result();
}
