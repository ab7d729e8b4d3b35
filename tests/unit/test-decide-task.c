/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The front door (policy/decide-task.h) and the [Unit] base it builds
 * (policy/unit-base.h), on a fake /proc and a fake cgroup tree: the base
 * with and without the cpu.* files, inner units over slices, the snapshot's
 * [Unit] settings under the rules, per-thread decisions, one thread, a
 * process that is gone, kernel threads, the caller's PREPARE.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/macro.h"
#include "lib/util.h"
#include "policy/decide-task.h"
#include "policy/unit-base.h"
#include "tests/unit/test-policy-load.h"
#include "tests/unit/test-util.h"

static char tmp[] = "/tmp/test-decide-task-XXXXXX";
static char proc[64], cg[64];

static void put(const char *dir, const char *rel, const void *data, size_t len)
{
        char path[PATH_MAX];
        int fd;

        snprintf(path, sizeof(path), "%s/%s", dir, rel);
        /* mkdir -p the parent */
        for (char *slash = strchr(path + strlen(dir) + 1, '/'); slash;
             slash = strchr(slash + 1, '/')) {
                *slash = 0;
                CHECK(mkdir(path, 0755) == 0 || errno == EEXIST);
                *slash = '/';
        }
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        CHECK(fd >= 0);
        CHECK(write(fd, data, len) == (ssize_t)len);
        close(fd);
}

static void put_str(const char *dir, const char *rel, const char *s)
{
        put(dir, rel, s, strlen(s));
}

/* PID/stat (or PID/task/TID/stat) and the comm beside it. */
static void put_stat(const char *rel_dir, int pid, const char *comm, unsigned long flags,
                     unsigned threads)
{
        char rel[PATH_MAX], *s;

        CHECK(asprintf(&s,
                       "%d (%s) S 1 0 0 0 -1 %lu 0 0 0 0 0 0 0 0 20 0 %u 0 %d 1234 56 "
                       "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
                       pid, comm, flags, threads, 1000 + pid) >= 0);
        snprintf(rel, sizeof(rel), "%s/stat", rel_dir);
        put_str(proc, rel, s);
        free(s);
        CHECK(asprintf(&s, "%s\n", comm) >= 0);
        snprintf(rel, sizeof(rel), "%s/comm", rel_dir);
        put_str(proc, rel, s);
        free(s);
}

/* Process PID named COMM, of root, in CGROUP, with threads TIDS named NAMES
 * (the first is PID itself). */
static void put_process(int pid, const char *comm, unsigned long flags, const char *cgroup,
                        const int *tids, const char *const *names, size_t n)
{
        char rel[64], *s;

        snprintf(rel, sizeof(rel), "%d", pid);
        put_stat(rel, pid, comm, flags, n);
        CHECK(asprintf(&s, "Name:\t%s\nTgid:\t%d\nPid:\t%d\nPPid:\t1\nUid:\t0\t0\t0\t0\n"
                           "Gid:\t0\t0\t0\t0\n", comm, pid, pid) >= 0);
        snprintf(rel, sizeof(rel), "%d/status", pid);
        put_str(proc, rel, s);
        free(s);
        snprintf(rel, sizeof(rel), "%d/cmdline", pid);
        put(proc, rel, comm, strlen(comm) + 1);
        CHECK(asprintf(&s, "0::%s\n", cgroup) >= 0);
        snprintf(rel, sizeof(rel), "%d/cgroup", pid);
        put_str(proc, rel, s);
        free(s);
        for (size_t i = 0; i < n; i++) {
                snprintf(rel, sizeof(rel), "%d/task/%d", pid, tids[i]);
                put_stat(rel, tids[i], names[i], flags, n);
        }
}

/* A cgroup directory, with the cpu.* files FILES ("" for none). */
static void put_cgroup(const char *path, const char *files)
{
        _cleanup_free_ char *copy = strdup(files);
        char rel[PATH_MAX], *save = NULL;

        CHECK(copy);
        snprintf(rel, sizeof(rel), "%s/cgroup.procs", path);
        put_str(cg, rel, "");
        for (char *f = strtok_r(copy, " ", &save); f; f = strtok_r(NULL, " ", &save)) {
                snprintf(rel, sizeof(rel), "%s/%s", path, f);
                put_str(cg, rel, "0\n");
        }
}

static void rm_file(const char *path)
{
        char p[PATH_MAX];

        snprintf(p, sizeof(p), "%s/%s", cg, path);
        CHECK(unlink(p) == 0);
}

static Policy *load(const char *text)
{
        return test_policy_load("t.policy", text);
}

static const char *const units =
        "[Unit outer.slice]\n"
        "CPUWeight = 50\n"
        "LatencyNice = 5\n"
        "\n"
        "[Unit app.service]\n"
        "LatencyNice = 2\n"
        "CPUIdle = yes\n"
        "\n"
        "[Unit plain.service]\n"
        "Slice = 8ms\n";

static void test_unit_base(void)
{
        _cleanup_(policy_freep) Policy *p = load(units);
        Settings s = {};

        /* No cpu.* files anywhere: everything per task. The slice's weight
         * (50: nice 3) and the service's own LatencyNice (the inner unit
         * wins over the slice's 5) and CPUIdle (as Policy=idle). */
        put_cgroup("/outer.slice", "");
        put_cgroup("/outer.slice/app.service", "");
        check(unit_task_base(p, cg, "/outer.slice/app.service", &s));
        check(s.mask == (SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_LATENCY_NICE) |
                         SETTING_BIT(SETTING_POLICY)));
        check(s.nice == 3 && s.latency_nice == 2 && s.policy == SCHED_IDLE);
        /* The slice alone: its own settings. */
        s = (Settings){};
        check(unit_task_base(p, cg, "/outer.slice/", &s));
        check(s.mask == (SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_LATENCY_NICE)));
        check(s.nice == 3 && s.latency_nice == 5);

        /* Every file there: nothing per task. */
        put_cgroup("/outer.slice", "cpu.weight cpu.latency.nice cpu.idle");
        put_cgroup("/outer.slice/app.service", "cpu.weight cpu.latency.nice cpu.idle");
        s = (Settings){ .mask = SETTING_BIT(SETTING_NICE), .nice = 19 };
        check(!unit_task_base(p, cg, "/outer.slice/app.service", &s));
        check(s.nice == 19); /* untouched */

        /* The service's LatencyNice goes to its file; the slice's, per task,
         * is not inherited (the inner unit set it itself); the slice's
         * weight is per task without a cpu.weight of the slice. */
        rm_file("/outer.slice/cpu.weight");
        rm_file("/outer.slice/cpu.latency.nice");
        rm_file("/outer.slice/app.service/cpu.idle");
        check(unit_task_base(p, cg, "/outer.slice/app.service", &s));
        check(s.mask == (SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_POLICY)));
        check(s.nice == 3 && s.policy == SCHED_IDLE);

        /* Slice= has no file: always per task. */
        put_cgroup("/plain.service", "cpu.weight cpu.latency.nice");
        check(unit_task_base(p, cg, "/plain.service", &s));
        check(s.mask == SETTING_BIT(SETTING_SLICE) && s.slice_ns == 8000000);

        /* Nothing matches, the root, no root, no path, a bad path. */
        put_cgroup("/other.service", "");
        check(!unit_task_base(p, cg, "/other.service", &s));
        check(!unit_task_base(p, cg, "/", &s));
        check(!unit_task_base(p, NULL, "/outer.slice/app.service", &s));
        check(!unit_task_base(p, cg, NULL, &s));
        check(!unit_task_base(p, cg, "/outer.slice/../app.service", &s));
        check(!unit_task_base(NULL, cg, "/outer.slice/app.service", &s));
}

static const char *const rules =
        "[Unit app.service]\n"
        "CPUWeight = 50\n"
        "LatencyNice = 2\n"
        "\n"
        "[Rule tool]\n"
        "Match = name:tool\n"
        "Nice = 7\n"
        "\n"
        "[Rule workers]\n"
        "Match = name:worker-proc && thread:worker-*\n"
        "Nice = 9\n"
        "TimerSlack = 2ms\n";

static void test_process(void)
{
        _cleanup_(policy_freep) Policy *p = load(rules);
        _cleanup_(task_decision_done) TaskDecision td = {};
        DecideRequest req = { .policy = p, .proc_root = proc, .cgroup_root = cg, .pid = 300,
                              .read = PROC_READ_TASK };
        static const int tids[] = { 300 };
        static const char *const names[] = { "daemon" };

        put_cgroup("/system.slice/app.service", "cpu.latency.nice");
        put_process(300, "daemon", 0x400000, "/system.slice/app.service", tids, names, 1);
        put_process(301, "tool", 0x400000, "/system.slice/app.service", tids, names, 0);

        /* No rule: the [Unit] base (CPUWeight per task, LatencyNice in its
         * file), named after the unit. */
        CHECK(task_decide(&req, &td) == 1);
        check(td.has_base);
        check_streq(td.base_rule, "unit:app.service");
        check_streq(td.d.rule, "unit:app.service");
        check(td.d.match.n_matched == 0);
        check(td.d.settings.mask == SETTING_BIT(SETTING_NICE) && td.d.settings.nice == 3);
        check(td.n_threads == 0);
        task_decision_done(&td);

        /* Without a cgroup root: no base, nothing. */
        req.cgroup_root = NULL;
        CHECK(task_decide(&req, &td) == 1);
        check(!td.has_base && td.d.settings.mask == 0 && !td.d.rule);
        task_decision_done(&td);
        req.cgroup_root = cg;

        /* With the cgroup's cpu.weight, LatencyNice's file gone: LatencyNice
         * per task, the weight in its file. */
        put_cgroup("/system.slice/app.service", "cpu.weight");
        rm_file("/system.slice/app.service/cpu.latency.nice");
        CHECK(task_decide(&req, &td) == 1);
        check(td.d.settings.mask == SETTING_BIT(SETTING_LATENCY_NICE) &&
              td.d.settings.latency_nice == 2);
        task_decision_done(&td);

        /* A rule on top: its Nice over the base's, its name. */
        rm_file("/system.slice/app.service/cpu.weight");
        req.pid = 301;
        CHECK(task_decide(&req, &td) == 1);
        check_streq(td.d.rule, "tool");
        check(td.d.settings.nice == 7 && td.d.settings.latency_nice == 2);
        check(td.d.settings.mask == (SETTING_BIT(SETTING_NICE) |
                                     SETTING_BIT(SETTING_LATENCY_NICE)));
        task_decision_done(&td);

        /* Gone. */
        req.pid = 399;
        check(task_decide(&req, &td) == -ESRCH && !td.p);
        task_decision_done(&td);
}

static int prepare_calls;

static int prepare(void *userdata, TaskDecision *td)
{
        prepare_calls++;
        td->facts.revoked = userdata;
        return 0;
}

static void test_threads(void)
{
        _cleanup_(policy_freep) Policy *p = load(rules);
        _cleanup_(task_decision_done) TaskDecision td = {};
        static const int tids[] = { 400, 401, 402 };
        static const char *const names[] = { "main", "worker-1", "io" };
        DecideRequest req = { .policy = p, .proc_root = proc, .cgroup_root = cg, .pid = 400,
                              .read = PROC_READ_TASK, .threads = true };
        Decision d;

        put_process(400, "worker-proc", 0x400000, "/system.slice/app.service", tids, names, 3);
        CHECK(task_decide(&req, &td) == 1);
        check(td.d.match.thread_dependent);
        CHECK(td.n_threads == 3);
        for (size_t i = 0; i < 3; i++) {
                const ThreadDecision *t = &td.threads[i];

                check(t->tid == tids[i]);
                check_streq(t->name, names[i]);
                /* Every thread has the [Unit] base. */
                check(settings_has(&t->d.settings, SETTING_LATENCY_NICE) &&
                      t->d.settings.latency_nice == 2);
        }
        /* worker-1: the thread rule over the base's Nice. */
        check_streq(td.threads[1].d.rule, "workers");
        check(td.threads[1].d.settings.nice == 9 && td.threads[1].d.settings.timer_slack_ns == 2000000);
        /* The others: the base only. */
        check_streq(td.threads[0].d.rule, "unit:app.service");
        check_streq(td.threads[2].d.rule, "unit:app.service");
        check(td.threads[2].d.settings.nice == 3);
        check(!settings_has(&td.threads[2].d.settings, SETTING_TIMER_SLACK));

        /* One more thread, on what was built. */
        CHECK(task_decide_thread(&td, 403, "worker-9", &d) == 0);
        check_streq(d.rule, "workers");
        check(d.settings.nice == 9);
        task_decision_done(&td);

        /* Without .threads: the process's decision only. */
        req.threads = false;
        CHECK(task_decide(&req, &td) == 1);
        check(td.n_threads == 0 && !td.threads);
        task_decision_done(&td);

        /* One thread asked for: its decision. */
        req.tid = 401;
        CHECK(task_decide(&req, &td) == 1);
        check_streq(td.p->view.thread, "worker-1");
        check_streq(td.d.rule, "workers");
        check(td.d.settings.nice == 9);
        task_decision_done(&td);

        /* A thread that is gone is left out of the list. */
        req.tid = 0;
        req.threads = true;
        {
                char path[PATH_MAX];

                snprintf(path, sizeof(path), "%s/400/task/402/comm", proc);
                CHECK(unlink(path) == 0);
        }
        CHECK(task_decide(&req, &td) == 1);
        check(td.n_threads == 2 && td.threads[1].tid == 401);
        task_decision_done(&td);

        /* PREPARE sees the snapshot before the decision, and what it sets
         * in the facts (the boost budget's reason) is kept. */
        req.prepare = prepare;
        req.userdata = (void *)"revoked for the test";
        CHECK(task_decide(&req, &td) == 1);
        check(prepare_calls == 1);
        check(td.facts.revoked == req.userdata);
}

static void test_untouchable(void)
{
        _cleanup_(policy_freep) Policy *p = load(rules);
        _cleanup_(task_decision_done) TaskDecision td = {};
        static const int tids[] = { 500 };
        static const char *const names[] = { "tool" };
        DecideRequest req = { .policy = p, .proc_root = proc, .cgroup_root = cg, .pid = 500,
                              .read = PROC_READ_TASK, .skip_untouchable = true };

        /* A kernel thread (PF_KTHREAD) named like a rule: not decided on. */
        put_process(500, "tool", 0x208040, "/", tids, names, 1);
        check(task_decide(&req, &td) == 0);
        check(td.p && td.p->kernel_thread && td.d.rule == NULL);
        task_decision_done(&td);
        /* Explain decides it all the same. */
        req.skip_untouchable = false;
        check(task_decide(&req, &td) == 1);
        check_streq(td.d.rule, "tool");
}

/* main-thread: a process whose threads all have its name (Debian 12's
 * PipeWire): the rule picks the threads that are not its main thread, for
 * the listing, one more thread and one thread asked for; never the process. */
static void test_main_thread(void)
{
        _cleanup_(policy_freep) Policy *p = load("[Rule data]\n"
                                                 "Match = name:pipewire && main-thread:no\n"
                                                 "Nice = -5\n");
        _cleanup_(task_decision_done) TaskDecision td = {};
        static const int tids[] = { 500, 501, 502 };
        static const char *const names[] = { "pipewire", "pipewire", "pipewire" };
        DecideRequest req = { .policy = p, .proc_root = proc, .cgroup_root = cg, .pid = 500,
                              .read = PROC_READ_TASK, .threads = true };
        Decision d;

        put_process(500, "pipewire", 0x400000, "/system.slice/pw.service", tids, names, 3);
        CHECK(task_decide(&req, &td) == 1);
        /* the process as a whole: no match, but its threads may differ */
        check(!td.d.rule && td.d.settings.mask == 0);
        check(td.d.match.thread_dependent);
        CHECK(td.n_threads == 3);
        check(td.threads[0].tid == 500 && !td.threads[0].d.rule);
        check(td.threads[0].d.settings.mask == 0);
        for (size_t i = 1; i < 3; i++) {
                check(td.threads[i].tid == tids[i]);
                check_streq(td.threads[i].d.rule, "data");
                check(td.threads[i].d.settings.nice == -5);
        }
        CHECK(task_decide_thread(&td, 503, "pipewire", &d) == 0);
        check_streq(d.rule, "data");
        CHECK(task_decide_thread(&td, 500, "pipewire", &d) == 0);
        check(!d.rule);
        task_decision_done(&td);

        /* One thread asked for, as explain --tid does. */
        req.threads = false;
        req.tid = 502;
        CHECK(task_decide(&req, &td) == 1);
        check_streq(td.d.rule, "data");
        task_decision_done(&td);
        req.tid = 500;
        CHECK(task_decide(&req, &td) == 1);
        check(!td.d.rule && td.d.settings.mask == 0);
}

int main(void)
{
        CHECK(mkdtemp(tmp));
        snprintf(proc, sizeof(proc), "%s/proc", tmp);
        snprintf(cg, sizeof(cg), "%s/cg", tmp);
        CHECK(mkdir(proc, 0755) == 0 && mkdir(cg, 0755) == 0);

        test_unit_base();
        test_process();
        test_threads();
        test_main_thread();
        test_untouchable();

        {
                _cleanup_free_ char *cmd = NULL;
                CHECK(asprintf(&cmd, "rm -rf '%s'", tmp) >= 0);
                CHECK(system(cmd) == 0);
        }
        return test_result();
}
