/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/sched.c with real syscalls on threads of this test. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "lib/macro.h"
#include "lib/probe.h"
#include "lib/sched.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

/* A worker thread that publishes its tid and runs commands on request. */
typedef struct Worker {
        pthread_t thread;
        pid_t tid;
        sem_t go, done;
        int cmd; /* 0 quit, 1 read own timer slack */
        unsigned long slack;
} Worker;

static void *worker_main(void *p)
{
        Worker *w = p;

        w->tid = ln_gettid();
        sem_post(&w->done);
        for (;;) {
                sem_wait(&w->go);
                if (w->cmd == 0)
                        break;
                if (w->cmd == 1)
                        w->slack = (unsigned long) prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
                sem_post(&w->done);
        }
        return NULL;
}

static void worker_start(Worker *w)
{
        memset(w, 0, sizeof(*w));
        CHECK(sem_init(&w->go, 0, 0) == 0);
        CHECK(sem_init(&w->done, 0, 0) == 0);
        CHECK(pthread_create(&w->thread, NULL, worker_main, w) == 0);
        sem_wait(&w->done);
        CHECK(w->tid > 0);
}

static void worker_run(Worker *w, int cmd)
{
        w->cmd = cmd;
        sem_post(&w->go);
        if (cmd != 0)
                sem_wait(&w->done);
}

static void worker_stop(Worker *w)
{
        worker_run(w, 0);
        CHECK(pthread_join(w->thread, NULL) == 0);
        sem_destroy(&w->go);
        sem_destroy(&w->done);
}

static int set_slice(pid_t tid, const SchedState *cur, uint64_t slice)
{
        struct ln_sched_attr a = {
                .size = SCHED_ATTR_SIZE_VER0,
                .sched_policy = (uint32_t) cur->policy,
                .sched_nice = cur->nice,
                .sched_runtime = slice,
        };
        return ln_sched_setattr(tid, &a, 0);
}

static void test_slice(const KernelFeatures *k)
{
        Worker w;
        SchedState s;

        worker_start(&w);
        CHECK(setpriority(PRIO_PROCESS, (id_t) w.tid, 3) == 0);
        CHECK(sched_state_read(w.tid, &s) == 0);
        CHECK(s.policy == SCHED_OTHER);
        CHECK(s.nice == 3);

        if (!k->eevdf_slice) {
                printf("EEVDF slice not supported, slice round trip skipped\n");
                worker_stop(&w);
                return;
        }
        CHECK(s.slice_ns == k->base_slice_ns);
        CHECK(!s.custom_slice);

        CHECK(set_slice(w.tid, &s, 3000000) == 0);
        CHECK(sched_state_read(w.tid, &s) == 0);
        CHECK(s.slice_ns == 3000000);
        CHECK(s.custom_slice);
        CHECK(s.nice == 3); /* passed as current: kept */
        /* custom_slice compares with the base slice the caller passes. */
        CHECK(sched_state_read_with_base(w.tid, 3000000, &s) == 0);
        CHECK(s.slice_ns == 3000000 && !s.custom_slice);
        CHECK(sched_state_read_attr_with_base(w.tid, k->base_slice_ns, &s) == 0);
        CHECK(s.slice_ns == 3000000 && s.custom_slice);

        /* The kernel clamps to [0.1 ms, 100 ms]. */
        CHECK(set_slice(w.tid, &s, 50000) == 0);
        CHECK(sched_state_read(w.tid, &s) == 0);
        CHECK(s.slice_ns == 100000);
        CHECK(set_slice(w.tid, &s, 500000000) == 0);
        CHECK(sched_state_read(w.tid, &s) == 0);
        CHECK(s.slice_ns == 100000000);

        /* SCHED_BATCH keeps a slice too. */
        {
                struct ln_sched_attr a = {
                        .size = SCHED_ATTR_SIZE_VER0,
                        .sched_policy = SCHED_BATCH,
                        .sched_nice = 3,
                        .sched_runtime = 2000000,
                };
                CHECK(ln_sched_setattr(w.tid, &a, 0) == 0);
                CHECK(sched_state_read(w.tid, &s) == 0);
                CHECK(s.policy == SCHED_BATCH && s.slice_ns == 2000000 && s.nice == 3);
        }

        /* KEEP_PARAMS makes the kernel ignore sched_runtime (and nice). */
        {
                struct ln_sched_attr a = {
                        .size = SCHED_ATTR_SIZE_VER0,
                        .sched_flags = LN_SCHED_FLAG_KEEP_ALL,
                        .sched_runtime = 5000000,
                };
                CHECK(ln_sched_setattr(w.tid, &a, 0) == 0);
                CHECK(sched_state_read(w.tid, &s) == 0);
                CHECK(s.slice_ns == 2000000);
        }

        /* Omitting nice resets it: sched_setattr() without KEEP_PARAMS sets
         * nice from the attr. */
        {
                struct ln_sched_attr a = {
                        .size = SCHED_ATTR_SIZE_VER0,
                        .sched_policy = SCHED_OTHER,
                        .sched_runtime = 2000000,
                };
                CHECK(ln_sched_setattr(w.tid, &a, 0) == 0);
                CHECK(sched_state_read(w.tid, &s) == 0);
                CHECK(s.policy == SCHED_OTHER && s.nice == 0);
        }

        /* sched_runtime 0 puts the default slice back. */
        CHECK(set_slice(w.tid, &s, 0) == 0);
        CHECK(sched_state_read(w.tid, &s) == 0);
        CHECK(s.slice_ns == k->base_slice_ns);
        CHECK(!s.custom_slice);
        CHECK(sched_state_read_with_base(w.tid, k->base_slice_ns + 1, &s) == 0);
        CHECK(s.slice_ns == k->base_slice_ns && s.custom_slice);
        /* Without a base slice at hand: the one read once per process. */
        CHECK(sched_base_slice() == base_slice_read(NULL));

        worker_stop(&w);
}

static void test_invalid(void)
{
        struct ln_sched_attr a = { .size = SCHED_ATTR_SIZE_VER0, .sched_policy = 42 };
        SchedState s;
        Worker w;

        worker_start(&w);
        CHECK(ln_sched_setattr(w.tid, &a, 0) == -EINVAL);
        a = (struct ln_sched_attr) { .size = SCHED_ATTR_SIZE_VER0, .sched_flags = 0x10000 };
        CHECK(ln_sched_setattr(w.tid, &a, 0) == -EINVAL);
        a = (struct ln_sched_attr) { .size = SCHED_ATTR_SIZE_VER0 };
        CHECK(ln_sched_setattr(w.tid, &a, 1) == -EINVAL); /* syscall flags must be 0 */
        CHECK(ln_sched_getattr(w.tid, &a, 40, 0) == -EINVAL);
        CHECK(ln_sched_getattr(w.tid, &a, 72, 0) == -EINVAL); /* larger than our struct */
        CHECK(sched_state_read(INT_MAX, &s) == -ESRCH);
        CHECK(timer_slack_write(NULL, INT_MAX, 1000) == -ESRCH);
        worker_stop(&w);
}

static void test_latency_nice(const KernelFeatures *k)
{
        struct ln_sched_attr a = {
                .size = SCHED_ATTR_SIZE_VER2,
                .sched_flags = LN_SCHED_FLAG_LATENCY_NICE | LN_SCHED_FLAG_KEEP_ALL,
                .sched_latency_nice = -7,
        };
        SchedState s;
        Worker w;
        int r;

        worker_start(&w);
        r = ln_sched_setattr(w.tid, &a, 0);
        CHECK(sched_state_read(w.tid, &s) == 0);
        if (k->latency_nice_syscall) {
                CHECK(r == 0);
                CHECK(s.has_latency_nice && s.latency_nice == -7);
        } else {
                CHECK(r == -E2BIG || r == -EINVAL);
                CHECK(!s.has_latency_nice);
        }
        CHECK(s.nice == 0 && s.policy == SCHED_OTHER);
        worker_stop(&w);
}

static void test_timer_slack(void)
{
        uint64_t v;
        SchedState s;
        Worker w;

        worker_start(&w);
        worker_run(&w, 1);
        CHECK(timer_slack_read(NULL, w.tid, &v) == 0);
        CHECK(v == w.slack);

        CHECK(timer_slack_write(NULL, w.tid, 123456) == 0);
        worker_run(&w, 1);
        CHECK(w.slack == 123456);
        CHECK(sched_state_read(w.tid, &s) == 0);
        CHECK(s.timer_slack_ns == 123456);
        /* Per thread: the main thread is unaffected. */
        CHECK(sched_state_read(0, &s) == 0);
        CHECK(s.timer_slack_ns == (uint64_t) prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0));
        CHECK(s.timer_slack_ns != 123456);

        /* 0 resets to the default. */
        CHECK(timer_slack_write(NULL, w.tid, 0) == 0);
        worker_run(&w, 1);
        CHECK(w.slack == s.timer_slack_ns);
        worker_stop(&w);
}

int main(void)
{
        KernelFeatures k;

        if (geteuid() != 0) {
                printf("not root, skipping\n");
                return 77;
        }
        /* The workers start at the kernel's pristine nice 0 (they inherit
         * the caller's): a suite run under `nice -n 10` would fail them. */
        CHECK(setpriority(PRIO_PROCESS, 0, 0) == 0);
        CHECK(kernel_probe(NULL, &k) == 0);
        test_slice(&k);
        test_invalid();
        test_latency_nice(&k);
        test_timer_slack();
        return 0;
}
