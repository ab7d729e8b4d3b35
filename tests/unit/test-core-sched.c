/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/core-sched.c: the mode names, the SMT files of the probe (a
 * fake /sys), and, where the kernel can do core scheduling, create, share
 * and clear on threads of this test, each read back with PR_SCHED_CORE_GET
 * directly (not through the library). Elsewhere that part is skipped and
 * the probe must say why, as the kernel does. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core-sched.h"
#include "lib/macro.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

static char tmpdir[] = "/tmp/test-core-sched-XXXXXX";

/* PR_SCHED_CORE_GET, by hand. */
static int raw_get(pid_t tid, uint64_t *ret)
{
        uint64_t id = 0;

        if (prctl(62, 0UL, (unsigned long)tid, 0UL, (unsigned long)&id) < 0)
                return -errno;
        *ret = id;
        return 0;
}

static void test_modes(void)
{
        check_streq(core_sched_mode_to_string(CORE_SCHED_NONE), "none");
        check_streq(core_sched_mode_to_string(CORE_SCHED_PROCESS), "process");
        check_streq(core_sched_mode_to_string(CORE_SCHED_RULE), "rule");
        check(!core_sched_mode_to_string(_CORE_SCHED_MAX));
        check(!core_sched_mode_to_string(-1));
        for (int m = 0; m < _CORE_SCHED_MAX; m++)
                check(core_sched_mode_from_string(core_sched_mode_to_string(m)) == m);
        check(core_sched_mode_from_string("Process") == -EINVAL);
        check(core_sched_mode_from_string("") == -EINVAL);
        check(core_sched_mode_from_string(NULL) == -EINVAL);
}

static void write_smt(const char *control, const char *active)
{
        _cleanup_free_ char *dir = NULL, *p = NULL;
        FILE *f;

        CHECK(asprintf(&dir, "%s/devices/system/cpu/smt", tmpdir) > 0);
        CHECK(asprintf(&p, "mkdir -p %s", dir) > 0 && system(p) == 0);
        free(p);
        CHECK(asprintf(&p, "%s/control", dir) > 0);
        CHECK((f = fopen(p, "we")) && fputs(control, f) >= 0 && fclose(f) == 0);
        free(p);
        CHECK(asprintf(&p, "%s/active", dir) > 0);
        CHECK((f = fopen(p, "we")) && fputs(active, f) >= 0 && fclose(f) == 0);
}

static void test_probe_files(void)
{
        CoreSchedSupport s;

        core_sched_probe(tmpdir, &s);
        check(s.smt_control == NULL && s.smt_active == -1);
        write_smt("forceoff\n", "0\n");
        core_sched_probe(tmpdir, &s);
        check_streq(s.smt_control, "forceoff");
        check(s.smt_active == 0);
        write_smt("on\n", "1\n");
        core_sched_probe(tmpdir, &s);
        check_streq(s.smt_control, "on");
        check(s.smt_active == 1);
        write_smt("\033[2Jsomething else\n", "x\n");
        core_sched_probe(tmpdir, &s);
        check_streq(s.smt_control, "unknown");
        check(s.smt_active == -1);
}

typedef struct Worker {
        pthread_t thread;
        pid_t tid;
        int go[2];
        int ready[2];
} Worker;

/* A thread that reports its tid and waits to be told to exit. */
static void *worker_run(void *userdata)
{
        Worker *w = userdata;
        char c = 0;

        w->tid = gettid();
        CHECK(write(w->ready[1], &c, 1) == 1);
        (void)!read(w->go[0], &c, 1);
        return NULL;
}

static void worker_start(Worker *w)
{
        char c;

        CHECK(pipe2(w->go, O_CLOEXEC) == 0 && pipe2(w->ready, O_CLOEXEC) == 0);
        CHECK(pthread_create(&w->thread, NULL, worker_run, w) == 0);
        CHECK(read(w->ready[0], &c, 1) == 1);
}

static void worker_stop(Worker *w)
{
        char c = 0;

        CHECK(write(w->go[1], &c, 1) == 1);
        CHECK(pthread_join(w->thread, NULL) == 0);
        for (int i = 0; i < 2; i++) {
                close(w->go[i]);
                close(w->ready[i]);
        }
}

static void test_kernel(void)
{
        CoreSchedSupport s;
        uint64_t self = 1, a = 0, b = 0, c = 0;
        Worker w1, w2, w3;
        int r;

        core_sched_probe(NULL, &s);
        r = raw_get(0, &self);
        /* The probe says what the kernel says. */
        if (r == -EINVAL) {
                check(s.status == CORE_SCHED_NO_KERNEL);
                printf("skipped: no CONFIG_SCHED_CORE (%s)\n", core_sched_status_to_string(&s));
                return;
        }
        if (r == -ENODEV) {
                check(s.status == CORE_SCHED_NO_SMT);
                printf("skipped: no SMT sibling online (%s)\n", core_sched_status_to_string(&s));
                return;
        }
        CHECK(r == 0 && self == 0);
        if (s.status == CORE_SCHED_NO_IDS) {
                printf("skipped: cookie ids read as 0 (RNG not seeded)\n");
                return;
        }
        check(s.status == CORE_SCHED_OK);
        check_streq(core_sched_status_to_string(&s), "yes");

        worker_start(&w1);
        worker_start(&w2);
        worker_start(&w3);
        check(core_sched_create(w1.tid) == 0);
        check(core_sched_create(w3.tid) == 0);
        check(raw_get(w1.tid, &a) == 0 && a != 0);
        check(raw_get(w3.tid, &c) == 0 && c != 0 && c != a);
        check(raw_get(w2.tid, &b) == 0 && b == 0);
        /* Shared: the helper thread pulls and pushes; this one stays clean. */
        check(core_sched_share(w1.tid, w2.tid) == 0);
        check(raw_get(w2.tid, &b) == 0 && b == a);
        check(raw_get(0, &self) == 0 && self == 0);
        check(core_sched_clear(w2.tid) == 0);
        check(raw_get(w2.tid, &b) == 0 && b == 0);
        check(raw_get(w1.tid, &a) == 0 && a != 0);
        /* A caller with a cookie would hand it on: refused. */
        check(core_sched_create(0) == 0);
        check(core_sched_clear(w1.tid) == -EBUSY);
        check(core_sched_share(w3.tid, gettid()) == 0);
        check(raw_get(0, &self) == 0 && self == c);
        worker_stop(&w1);
        worker_stop(&w2);
        worker_stop(&w3);
        check(core_sched_share(99999999, gettid()) < 0);
}

int main(void)
{
        _cleanup_free_ char *rm = NULL;

        CHECK(mkdtemp(tmpdir));
        test_modes();
        test_probe_files();
        test_kernel();
        CHECK(asprintf(&rm, "rm -rf %s", tmpdir) > 0);
        (void)!system(rm);
        return test_result();
}
