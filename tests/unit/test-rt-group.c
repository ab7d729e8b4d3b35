/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for lib/rt-group.c: the real-time runtime of the cgroup that holds
 * a thread, from a fake /proc (PID/task/TID/cgroup) and fake cgroup trees
 * (plain files in temp directories): v1 cpu and cgroup2, the root group,
 * a kernel without real-time group scheduling, a thread in another group
 * than its process, a gone thread and a value that is not a number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "lib/macro.h"
#include "lib/rt-group.h"
#include "tests/unit/test-util.h"

static char root[] = "/tmp/test-rt-group-XXXXXX";
static char *proc, *v1, *v2;

static char *path_of(const char *a, const char *b)
{
        char *p;

        CHECK(asprintf(&p, "%s/%s", a, b) > 0);
        return p;
}

static void mkdirs(const char *dir, const char *rel)
{
        _cleanup_free_ char *cmd = NULL;

        CHECK(asprintf(&cmd, "mkdir -p -- '%s/%s'", dir, rel) > 0);
        CHECK(system(cmd) == 0);
}

static void put(const char *dir, const char *file, const char *content)
{
        _cleanup_free_ char *p = path_of(dir, file);
        FILE *f = fopen(p, "we");

        CHECK(f);
        CHECK(fputs(content, f) >= 0);
        CHECK(fclose(f) == 0);
}

/* Thread TID of PID is in CGROUPS (the file's text). */
static void thread_in(int pid, int tid, const char *cgroups)
{
        _cleanup_free_ char *rel = NULL, *dir = NULL;

        CHECK(asprintf(&rel, "%d/task/%d", pid, tid) > 0);
        mkdirs(proc, rel);
        dir = path_of(proc, rel);
        put(dir, "cgroup", cgroups);
}

static int of(const SchedGroupRoots *roots, int pid, int tid, RtGroup *g)
{
        return rt_group_of(roots, proc, pid, tid, g);
}

static void test_v1(void)
{
        const SchedGroupRoots roots = { .cgroup2 = v2, .cpu_v1 = v1 };
        _cleanup_free_ char *pw = path_of(v1, "user.slice/pipewire.service");
        RtGroup g;

        mkdirs(v1, "user.slice/pipewire.service");
        put(pw, "cpu.rt_runtime_us", "0\n");
        thread_in(10, 11, "12:cpu,cpuacct:/user.slice/pipewire.service\n0::/user.slice\n");
        CHECK(of(&roots, 10, 11, &g) == 1);
        check_streq(g.name, "cgroup (v1 cpu) /user.slice/pipewire.service");
        check(g.runtime_us == 0);
        rt_group_done(&g);
        check(!g.name);

        put(pw, "cpu.rt_runtime_us", "150000\n");
        CHECK(of(&roots, 10, 11, &g) == 1);
        check(g.runtime_us == 150000);
        rt_group_done(&g);

        /* Another thread of the process in the v1 root group: never refused. */
        thread_in(10, 12, "12:cpu,cpuacct:/\n0::/user.slice\n");
        check(of(&roots, 10, 12, &g) == 0 && !g.name);

        /* A kernel without real-time group scheduling: no such file. */
        mkdirs(v1, "nort");
        thread_in(10, 13, "12:cpu,cpuacct:/nort\n0::/\n");
        check(of(&roots, 10, 13, &g) == 0);

        /* Not a number (a fake tree, or a kernel of the future). */
        put(pw, "cpu.rt_runtime_us", "lots\n");
        check(of(&roots, 10, 11, &g) == -EIO);
        put(pw, "cpu.rt_runtime_us", "-2\n");
        check(of(&roots, 10, 11, &g) == -EIO);
        put(pw, "cpu.rt_runtime_us", "-1\n");
        CHECK(of(&roots, 10, 11, &g) == 1);
        check(g.runtime_us == -1);
        rt_group_done(&g);

        /* Gone: no task directory. */
        check(of(&roots, 10, 99, &g) == -ESRCH);
        check(of(&roots, 98, 98, &g) == -ESRCH);
}

static void test_cgroup2(void)
{
        const SchedGroupRoots only2 = { .cgroup2 = v2 }, none = {};
        _cleanup_free_ char *app = path_of(v2, "app.slice");
        RtGroup g;

        mkdirs(v2, "app.slice");
        put(app, "cpu.rt_runtime_us", "0\n");
        thread_in(20, 21, "0::/app.slice\n");
        CHECK(of(&only2, 20, 21, &g) == 1);
        check_streq(g.name, "cgroup /app.slice");
        check(g.runtime_us == 0);
        rt_group_done(&g);

        /* The root cgroup and no cgroup tree at all. */
        thread_in(20, 22, "0::/\n");
        check(of(&only2, 20, 22, &g) == 0);
        check(of(&none, 20, 21, &g) == 0);

        /* With a v1 cpu hierarchy its cgroup decides, even where the
         * cgroup2 one has the file. */
        {
                const SchedGroupRoots both = { .cgroup2 = v2, .cpu_v1 = v1 };

                thread_in(20, 23, "3:cpu:/\n0::/app.slice\n");
                check(of(&both, 20, 23, &g) == 0);
                /* A thread in no v1 cpu hierarchy (none mounted for it):
                 * its cgroup2 cgroup. */
                thread_in(20, 24, "0::/app.slice\n");
                CHECK(of(&both, 20, 24, &g) == 1);
                check_streq(g.name, "cgroup /app.slice");
                rt_group_done(&g);
        }
}

int main(void)
{
        char cmd[300];

        CHECK(mkdtemp(root));
        proc = path_of(root, "proc");
        v1 = path_of(root, "cpu");
        v2 = path_of(root, "unified");
        CHECK(mkdir(proc, 0755) == 0 && mkdir(v1, 0755) == 0 && mkdir(v2, 0755) == 0);
        test_v1();
        test_cgroup2();
        snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", root);
        CHECK(system(cmd) == 0);
        free(proc);
        free(v1);
        free(v2);
        return test_result();
}
