/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for lib/sched-group.c: a group's state with and without
 * cpu.latency.nice, on temp directories used as fake cgroups (the kernel's
 * files are plain files here), and why a group has no latency nice.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/macro.h"
#include "lib/sched-group.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

static char root[] = "/tmp/test-sched-group-XXXXXX";

static char *mkgroup(const char *name)
{
        char *p;

        CHECK(asprintf(&p, "%s/%s", root, name) > 0);
        CHECK(mkdir(p, 0755) == 0);
        return p;
}

static void put(const char *dir, const char *file, const char *content)
{
        _cleanup_free_ char *p = NULL;
        FILE *f;

        CHECK(asprintf(&p, "%s/%s", dir, file) > 0);
        f = fopen(p, "we");
        CHECK(f);
        CHECK(fputs(content, f) >= 0);
        CHECK(fclose(f) == 0);
}

static char *get(const char *dir, const char *file)
{
        _cleanup_free_ char *p = NULL;
        char *v = NULL;

        CHECK(asprintf(&p, "%s/%s", dir, file) > 0);
        CHECK(read_one_line_file(p, &v) == 0);
        return v;
}

/* A cgroup2 cgroup of a patched kernel: cpu.latency.nice read, compared and
 * written, alone where nothing else differs. */
static void test_with_latency_nice(void)
{
        _cleanup_free_ char *dir = mkgroup("patched"), *v = NULL, *w = NULL;
        SchedGroup g = { .kind = SCHED_GROUP_CGROUP2, .path = dir, .name = (char *)"cgroup /patched" };
        SchedGroupState cur, want;

        put(dir, "cpu.weight", "100\n");
        put(dir, "cpu.idle", "0\n");
        put(dir, "cpu.latency.nice", "0\n");
        CHECK(sched_group_read(&g, &cur) == 0);
        check(cur.weight == 100 && !cur.idle && cur.has_latency_nice && cur.latency_nice == 0);
        check(sched_group_latency_nice_missing(&g) == NULL);

        sched_group_state_want(&g, &cur, 100, false, &want);
        check(want.has_latency_nice && want.latency_nice == 0);
        check(sched_group_state_equal(&g, &cur, &want));
        want.latency_nice = -5;
        check(!sched_group_state_equal(&g, &cur, &want));
        check(sched_group_weight_equal(&g, &cur, &want));
        /* Rewriting the weight would be a foreign-looking write: not done. */
        put(dir, "cpu.weight", "x\n");
        CHECK(sched_group_write_state(&g, &cur, &want) == 0);
        v = get(dir, "cpu.latency.nice");
        w = get(dir, "cpu.weight");
        check_streq(v, "-5");
        check_streq(w, "x");
        put(dir, "cpu.weight", "100\n");
        CHECK(sched_group_read(&g, &cur) == 0);
        check(cur.has_latency_nice && cur.latency_nice == -5);

        /* A value the kernel would never show: refused, not taken. */
        put(dir, "cpu.latency.nice", "20\n");
        check(sched_group_read(&g, &cur) == -EIO);
}

/* An unpatched kernel (6.18 here): no file, no latency nice, and the rest
 * of the state as before. */
static void test_without_latency_nice(void)
{
        _cleanup_free_ char *dir = mkgroup("stock"), *v1 = mkgroup("v1"), *bare = mkgroup("bare");
        SchedGroup g = { .kind = SCHED_GROUP_CGROUP2, .path = dir, .name = (char *)"cgroup /stock" };
        SchedGroup g1 = { .kind = SCHED_GROUP_CGROUP1, .path = v1, .name = (char *)"v1" };
        SchedGroup gb = { .kind = SCHED_GROUP_CGROUP2, .path = bare, .name = (char *)"bare" };
        SchedGroup ag = { .kind = SCHED_GROUP_AUTOGROUP, .path = (char *)"/nonexistent", .id = 1 };
        SchedGroupState cur, want;

        put(dir, "cpu.weight", "50\n");
        put(dir, "cpu.idle", "1\n");
        CHECK(sched_group_read(&g, &cur) == 0);
        check(cur.weight == 50 && cur.idle && !cur.has_latency_nice);
        sched_group_state_want(&g, &cur, 50, true, &want);
        check(!want.has_latency_nice);
        want.latency_nice = -5; /* without the file, nothing to differ in */
        check(sched_group_state_equal(&g, &cur, &want));
        CHECK(sched_group_write_state(&g, &cur, &want) == 0);
        check(sched_group_write_latency_nice(&ag, -5) == -EOPNOTSUPP);

        put(v1, "cpu.shares", "1024\n");
        check_streq(sched_group_latency_nice_missing(&g),
                    "not supported by this kernel (no cpu.latency.nice)");
        check_streq(sched_group_latency_nice_missing(&g1),
                    "not supported by this kernel (no cpu.latency.nice)");
        /* A cgroup2 cgroup the cpu controller is not enabled for. */
        check_streq(sched_group_latency_nice_missing(&gb), "its cgroup has no cpu controller");
        CHECK(sched_group_read(&gb, &cur) == 0);
        check(cur.weight == 100 && !cur.has_latency_nice);
        check_streq(sched_group_latency_nice_missing(&ag), "an autogroup has no latency nice");
}

int main(void)
{
        char cmd[300];

        CHECK(mkdtemp(root));
        test_with_latency_nice();
        test_without_latency_nice();
        snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", root);
        CHECK(system(cmd) == 0);
        return test_result();
}
