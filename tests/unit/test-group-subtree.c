/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for lib/group-subtree.c on a fake cgroup tree and a fake /proc
 * (temp directories; the kernel's files are plain files here): another
 * user's process is found in a cgroup below the group, not only in the
 * group's own cgroup.procs; gone processes are skipped; a subtree over the
 * bounds is too large; where a process is, and whether that is inside a
 * group's subtree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/group-subtree.h"
#include "lib/macro.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

static char root[] = "/tmp/test-group-subtree-XXXXXX";

static char *path_of(const char *rel)
{
        char *p;

        CHECK(asprintf(&p, "%s/%s", root, rel) > 0);
        return p;
}

static void mkdir_rel(const char *rel)
{
        _cleanup_free_ char *p = path_of(rel);

        CHECK(mkdir(p, 0755) == 0);
}

static void put(const char *rel, const char *content)
{
        _cleanup_free_ char *p = path_of(rel);
        FILE *f = fopen(p, "we");

        CHECK(f);
        CHECK(fputs(content, f) >= 0);
        CHECK(fclose(f) == 0);
}

/* A process PID of real uid UID in the fake /proc. */
static void proc_put(pid_t pid, uid_t uid)
{
        _cleanup_free_ char *dir = NULL, *status = NULL;

        CHECK(asprintf(&dir, "proc/%d", (int)pid) > 0);
        mkdir_rel(dir);
        CHECK(asprintf(&status, "Name:\tcc1\nUmask:\t0022\nState:\tR (running)\nUid:\t%u\t%u\t%u\t%u\n",
                       (unsigned)uid, (unsigned)uid, (unsigned)uid, (unsigned)uid) > 0);
        free(dir);
        CHECK(asprintf(&dir, "proc/%d/status", (int)pid) > 0);
        put(dir, status);
}

static int other_user(const char *rel, uid_t uid, size_t max_cgroups, size_t max_procs,
                      pid_t *ret_pid, uid_t *ret_uid)
{
        _cleanup_free_ char *dir = path_of(rel), *proc = path_of("proc");
        SchedGroup g = { .kind = SCHED_GROUP_CGROUP1, .path = dir, .name = (char *)"test" };

        return group_subtree_other_user(&g, proc, uid, max_cgroups, max_procs, ret_pid, ret_uid);
}

/* The attack of issue 36 item 5: a parent cgroup whose own tasks are only
 * the user's, and root's hog in a cgroup below it. */
static void test_child_cgroup(void)
{
        pid_t pid = 0;
        uid_t uid = 12345;

        check(other_user("cpu/build", 65534, 64, 64, &pid, &uid) == 1);
        check(pid == 202 && uid == 0);
        /* Its own cgroup.procs alone holds none of root's. */
        check(other_user("cpu/build/only-nobody", 65534, 64, 64, NULL, NULL) == 0);
        /* The child alone: root's. */
        check(other_user("cpu/build/root-child", 65534, 64, 64, NULL, NULL) == 1);
        /* For root, nobody's processes are another user's. */
        check(other_user("cpu/build", 0, 64, 64, &pid, &uid) == 1);
        check(pid == 201 && uid == 65534);
}

/* A grandchild of the same user, and a process that is gone. */
static void test_same_user(void)
{
        check(other_user("cpu/mine", 65534, 64, 64, NULL, NULL) == 0);
}

static void test_bounds(void)
{
        /* cpu/mine: 3 cgroups, 3 pids (one of them gone). */
        check(other_user("cpu/mine", 65534, 2, 64, NULL, NULL) == -E2BIG);
        check(other_user("cpu/mine", 65534, 64, 2, NULL, NULL) == -E2BIG);
        check(other_user("cpu/mine", 65534, 3, 3, NULL, NULL) == 0);
        check(other_user("cpu/gone-group", 65534, 64, 64, NULL, NULL) == -ENOENT);
}

static void test_place(void)
{
        _cleanup_free_ char *v2 = path_of("unified"), *v1 = path_of("cpu"), *proc = path_of("proc"),
                            *build = path_of("cpu/build"), *child = path_of("cpu/build/root-child"),
                            *near = path_of("cpu/buil"), *deeper = path_of("cpu/build/root-child/x"),
                            *user = path_of("unified/user.slice");
        SchedGroupRoots roots = { .cgroup2 = v2, .cpu_v1 = v1 };
        SchedGroup g = { .kind = SCHED_GROUP_CGROUP1, .path = build };
        GroupPlace p = {};

        put("proc/202/cgroup", "12:cpu,cpuacct:/build/root-child\n0::/user.slice/x.scope\n");
        put("proc/202/autogroup", "/autogroup-42 nice 0\n");
        CHECK(group_place_of(&roots, proc, 202, true, &p) == 0);
        check(p.autogroup == 42);
        check(p.cpu_v1 && strstr(p.cpu_v1, "/cpu/build/root-child"));
        check(group_place_within(&p, &g));
        g.path = child;
        check(group_place_within(&p, &g));
        g.path = near;
        check(!group_place_within(&p, &g));
        g.path = deeper;
        check(!group_place_within(&p, &g));
        g = (SchedGroup){ .kind = SCHED_GROUP_CGROUP2, .path = user };
        check(group_place_within(&p, &g));
        g = (SchedGroup){ .kind = SCHED_GROUP_AUTOGROUP, .id = 42 };
        check(group_place_within(&p, &g));
        g.id = 43;
        check(!group_place_within(&p, &g));
        group_place_done(&p);

        /* In the root cgroup of both: nowhere. */
        put("proc/201/cgroup", "12:cpu,cpuacct:/\n0::/\n");
        CHECK(group_place_of(&roots, proc, 201, false, &p) == 0);
        check(!p.cpu_v1 && !p.cgroup2 && p.autogroup == 0);
        g = (SchedGroup){ .kind = SCHED_GROUP_CGROUP1, .path = build };
        check(!group_place_within(&p, &g));
        group_place_done(&p);
        check(group_place_of(&roots, proc, 999, false, &p) == -ESRCH);
}

int main(void)
{
        _cleanup_free_ char *cmd = NULL;

        CHECK(mkdtemp(root));
        mkdir_rel("proc");
        mkdir_rel("unified");
        mkdir_rel("cpu");
        mkdir_rel("cpu/build");
        mkdir_rel("cpu/build/only-nobody");
        mkdir_rel("cpu/build/root-child");
        mkdir_rel("cpu/build/root-child/empty");
        put("cpu/build/cgroup.procs", "201\n");
        put("cpu/build/only-nobody/cgroup.procs", "203\n");
        put("cpu/build/root-child/cgroup.procs", "202\n");
        put("cpu/build/root-child/empty/cgroup.procs", "");
        mkdir_rel("cpu/mine");
        mkdir_rel("cpu/mine/a");
        mkdir_rel("cpu/mine/a/b");
        put("cpu/mine/cgroup.procs", "201\n");
        put("cpu/mine/a/cgroup.procs", "203\n");
        put("cpu/mine/a/b/cgroup.procs", "204\n"); /* gone: no /proc entry */
        proc_put(201, 65534);
        proc_put(202, 0);
        proc_put(203, 65534);

        test_child_cgroup();
        test_same_user();
        test_bounds();
        test_place();

        CHECK(asprintf(&cmd, "rm -rf '%s'", root) > 0);
        CHECK(system(cmd) == 0);
        return test_result();
}
