/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/probe.c: the latency-nice -> slice table, base slice, mounts
 * parsing, cgroup file detection and the live probe (which must restore). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/cgroup.h"
#include "lib/macro.h"
#include "lib/probe.h"
#include "lib/sched.h"
#include "tests/unit/test-util.h"

static char tmpdir[] = "/tmp/test-probe-XXXXXX";

static void write_file(const char *path, const char *content)
{
        FILE *f = fopen(path, "we");
        CHECK(f);
        CHECK(fputs(content, f) >= 0);
        CHECK(fclose(f) == 0);
}

static void test_table(void)
{
        /* Values computed by hand: 1400000 * 1024 / weight, floored. */
        CHECK(sched_prio_to_weight[20] == 1024);
        CHECK(sched_prio_to_weight[0] == 88761);
        CHECK(sched_prio_to_weight[39] == 15);
        for (int i = 0; i < 39; i++) {
                /* Each nice step is ~1.25x. */
                double q = (double) sched_prio_to_weight[i] / sched_prio_to_weight[i + 1];
                CHECK(q > 1.15 && q < 1.35);
        }

        CHECK(latency_nice_to_slice(0, 1400000) == 0);
        CHECK(latency_nice_to_slice(-20, 1400000) == 100000); /* 16151, clamped up */
        CHECK(latency_nice_to_slice(-10, 1400000) == 150146);
        CHECK(latency_nice_to_slice(-5, 1400000) == 459339);
        CHECK(latency_nice_to_slice(-1, 1400000) == 1122631);
        CHECK(latency_nice_to_slice(1, 1400000) == 1748292);
        CHECK(latency_nice_to_slice(5, 1400000) == 4279402);
        CHECK(latency_nice_to_slice(19, 1400000) == 95573333);
        CHECK(latency_nice_to_slice(19, 2800000) == 100000000); /* 191146666, clamped down */
        CHECK(latency_nice_to_slice(-1, 2800000) == 2245262);
        /* Monotonic: a lower latency nice never gives a longer slice. */
        for (int l = -20; l < 19; l++)
                if (l != 0 && l + 1 != 0)
                        CHECK(latency_nice_to_slice(l, 2100000) <= latency_nice_to_slice(l + 1, 2100000));
}

static void test_base_slice(void)
{
        CHECK(base_slice_default(0) == 700000);
        CHECK(base_slice_default(1) == 700000);
        CHECK(base_slice_default(2) == 1400000);
        CHECK(base_slice_default(3) == 1400000);
        CHECK(base_slice_default(4) == 2100000);
        CHECK(base_slice_default(7) == 2100000);
        CHECK(base_slice_default(8) == 2800000);
        CHECK(base_slice_default(64) == 2800000);
}

static void test_backend_strings(void)
{
        for (int b = 0; b < _LATENCY_BACKEND_MAX; b++)
                CHECK(latency_backend_from_string(latency_backend_to_string(b)) == b);
        CHECK(streq(latency_backend_to_string(LATENCY_BACKEND_LATENCY_NICE), "latency-nice"));
        CHECK(latency_backend_from_string("auto") == _LATENCY_BACKEND_AUTO);
        CHECK(latency_backend_from_string("slices") == -EINVAL);
        CHECK(latency_backend_from_string("") == -EINVAL);
}

static void test_mounts(void)
{
        char path[256];
        char *m = NULL;

        snprintf(path, sizeof(path), "%s/mounts1", tmpdir);
        write_file(path,
                   "tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0\n"
                   "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0\n"
                   "cgroup2 /sys/fs/cgroup/my\\040unified\\134x cgroup2 rw,relatime 0 0\n"
                   "cgroup2 /second cgroup2 rw 0 0\n");
        CHECK(cg_find_mount_in(path, &m) == 0);
        CHECK(streq(m, "/sys/fs/cgroup/my unified\\x"));
        free(m);
        m = NULL;

        /* "cgroup2" as a device name or option does not count, only the type. */
        snprintf(path, sizeof(path), "%s/mounts2", tmpdir);
        write_file(path,
                   "cgroup2 /not-it tmpfs rw 0 0\n"
                   "none /x cgroup rw,cgroup2 0 0\n"
                   "short line\n"
                   "\n");
        CHECK(cg_find_mount_in(path, &m) == -ENOENT);
        CHECK(!m);

        snprintf(path, sizeof(path), "%s/mounts3", tmpdir);
        write_file(path, "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0");
        CHECK(cg_find_mount_in(path, &m) == 0);
        CHECK(streq(m, "/sys/fs/cgroup"));
        free(m);

        CHECK(cg_find_mount_in("/nonexistent/mounts", &m) == -ENOENT);
}

static void test_cgroup_files(void)
{
        char root[256], p[512];

        snprintf(root, sizeof(root), "%s/cg", tmpdir);
        CHECK(mkdir(root, 0755) == 0);
        snprintf(p, sizeof(p), "%s/cgroup.controllers", root);
        write_file(p, "cpuset io memory pids\n");
        CHECK(cg_has_controller(root, "cpu") == 0);
        CHECK(cg_has_controller(root, "io") == 1);
        CHECK(cg_has_controller(root, "pids") == 1);
        write_file(p, "cpuset cpu io\n");
        CHECK(cg_has_controller(root, "cpu") == 1);
        CHECK(cg_has_controller("/nonexistent", "cpu") == -ENOENT);

        snprintf(p, sizeof(p), "%s/a.slice", root);
        CHECK(mkdir(p, 0755) == 0);
        snprintf(p, sizeof(p), "%s/b.slice", root);
        CHECK(mkdir(p, 0755) == 0);
        CHECK(cg_tree_has_file(root, "cpu.latency.nice") == 0);
        snprintf(p, sizeof(p), "%s/b.slice/cpu.latency.nice", root);
        write_file(p, "0\n");
        CHECK(cg_tree_has_file(root, "cpu.latency.nice") == 1);
        CHECK(cg_tree_has_file(root, "cpu.uclamp.min") == 0);
        /* A plain file named like a directory does not confuse it. */
        snprintf(p, sizeof(p), "%s/cpu.weight", root);
        write_file(p, "100\n");
        CHECK(cg_tree_has_file(root, "cpu.weight") == 1);
}

static bool state_equal(const SchedState *a, const SchedState *b)
{
        return a->policy == b->policy && a->nice == b->nice && a->slice_ns == b->slice_ns &&
               a->custom_slice == b->custom_slice && a->util_min == b->util_min &&
               a->util_max == b->util_max && a->latency_nice == b->latency_nice &&
               a->has_latency_nice == b->has_latency_nice && a->flags == b->flags &&
               a->timer_slack_ns == b->timer_slack_ns;
}

static void test_live_probe(void)
{
        KernelFeatures k;
        SchedState before, after;
        char root[256];

        CHECK(sched_state_read(0, &before) == 0);
        CHECK(kernel_probe(NULL, &k) == 0);
        CHECK(sched_state_read(0, &after) == 0);
        CHECK(state_equal(&before, &after));

        CHECK(k.release[0]);
        CHECK(k.ncpus >= 1);
        CHECK(k.base_slice_ns > 0);
        if (!k.base_slice_from_debugfs)
                CHECK(k.base_slice_ns == base_slice_default(k.ncpus));
        CHECK(sched_base_slice() == k.base_slice_ns);
        CHECK(k.best_backend == (k.latency_nice_syscall ? LATENCY_BACKEND_LATENCY_NICE :
                                 k.eevdf_slice          ? LATENCY_BACKEND_SLICE :
                                                          LATENCY_BACKEND_NONE));
        CHECK(k.autogroup >= -1 && k.autogroup <= 1);
        CHECK(access("/proc/sys/kernel/sched_autogroup_enabled", F_OK) == 0 ? k.autogroup >= 0
                                                                             : k.autogroup == -1);
        /* A not-customised SCHED_OTHER thread reads back the base slice on EEVDF. */
        if (k.eevdf_slice && before.policy == SCHED_OTHER && !before.custom_slice)
                CHECK(before.slice_ns == k.base_slice_ns);

        /* A fake cgroup root is taken as given. */
        snprintf(root, sizeof(root), "%s/cg", tmpdir);
        CHECK(kernel_probe(root, &k) == 0);
        CHECK(streq(k.cgroup_root, root));
        CHECK(k.cgroup2_cpu);
        CHECK(k.latency_nice_cgroup);
        CHECK(!k.uclamp_cgroup);
        printf("probe: release=%s slice=%d latency-nice=%d uclamp=%d base=%llu backend=%s\n",
               k.release, k.eevdf_slice, k.latency_nice_syscall, k.uclamp_task,
               (unsigned long long) k.base_slice_ns, latency_backend_to_string(k.best_backend));
}

/* The same answers from a caller under SCHED_IDLE (chrt --idle), whose own
 * slice the kernel ignores, and its policy left as it was. */
static void *probe_as_idle(void *userdata)
{
        KernelFeatures *k = userdata;
        struct sched_param sp = {};

        if (sched_setscheduler(0, SCHED_IDLE, &sp) < 0) {
                k->release[0] = 0;
                return NULL;
        }
        CHECK(kernel_probe(NULL, k) == 0);
        CHECK(sched_getscheduler(0) == SCHED_IDLE);
        /* The probe's thread leaves SCHED_IDLE, which the kernel allows an
         * unprivileged caller only within its RLIMIT_NICE (nobody's is
         * usually 0): then the probe cannot tell, and this is not tried. */
        if (sched_setscheduler(0, SCHED_OTHER, &sp) < 0) {
                k->release[0] = 0;
                return NULL;
        }
        return NULL;
}

static void test_probe_under_idle(void)
{
        KernelFeatures normal, idle = {};
        pthread_t t;

        CHECK(kernel_probe(NULL, &normal) == 0);
        CHECK(pthread_create(&t, NULL, probe_as_idle, &idle) == 0);
        CHECK(pthread_join(t, NULL) == 0);
        if (!idle.release[0]) {
                printf("probe under SCHED_IDLE: cannot switch to it and back (RLIMIT_NICE), not tried\n");
                return;
        }
        if (idle.eevdf_slice != normal.eevdf_slice || idle.best_backend != normal.best_backend)
                test_fail("probe under SCHED_IDLE: slice %d backend %s, normally %d %s",
                          idle.eevdf_slice, latency_backend_to_string(idle.best_backend),
                          normal.eevdf_slice, latency_backend_to_string(normal.best_backend));
}

int main(void)
{
        char cmd[300];

        CHECK(mkdtemp(tmpdir));
        test_table();
        test_base_slice();
        test_backend_strings();
        test_mounts();
        test_cgroup_files();
        test_live_probe();
        test_probe_under_idle();
        snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", tmpdir);
        CHECK(system(cmd) == 0);
        return test_result();
}
