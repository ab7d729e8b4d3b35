/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lib/cpu-list.c: CPU lists, the CPUs of the largest last-level cache on a
 * sysfs tree of the test's own, and CPUAffinity= through the registry on
 * the fake kernel (a list outside the cpuset is not applied, the rest is).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/cpu-list.h"
#include "lib/macro.h"
#include "lib/settings.h"
#include "lib/thread-settings.h"
#include "tests/unit/fake-kernel.h"
#include "tests/unit/test-util.h"

static char dir[] = "/tmp/test-cpu-list.XXXXXX";

static bool list_is(const char *in, const char *want)
{
        _cleanup_free_ char *out = NULL;
        cpu_set_t set;

        return cpu_list_parse(in, &set, NULL, NULL) == 0 && cpu_list_format(&set, &out) == 0 &&
               streq(out, want);
}

static bool list_bad(const char *in, unsigned col, const char *msg)
{
        _cleanup_free_ char *err = NULL;
        unsigned c = 99;
        cpu_set_t set;

        return cpu_list_parse(in, &set, &err, &c) == -EINVAL && c == col && err &&
               strstr(err, msg);
}

static void test_parse(void)
{
        check(list_is("0", "0"));
        check(list_is("1", "1"));
        check(list_is("0-1", "0-1"));
        check(list_is("0-3,8", "0-3,8"));
        check(list_is("8,0-3", "0-3,8"));
        check(list_is("0,1,2,5,6", "0-2,5-6"));
        check(list_is("3-3", "3"));
        check(list_is("1023", "1023"));
        check(list_bad("", 0, "expected a CPU number"));
        check(list_bad("x", 0, "found \"x\""));
        check(list_bad("1-0", 2, "expected the last CPU of a range (1..1023)"));
        check(list_bad("0-x", 2, "found \"x\""));
        check(list_bad("0,,1", 2, "found \",1\""));
        check(list_bad("0,", 2, "expected a CPU number"));
        check(list_bad("0 1", 1, "expected \",\" or the end"));
        check(list_bad("1024", 0, "expected a CPU number in 0..1023"));
        check(list_bad("-1", 0, "expected a CPU number"));
        check(list_bad("99999999999999999999", 0, "expected a CPU number"));
}

/* Through the settings table: CPUAffinity= parses, prints and compares. */
static void test_setting(void)
{
        _cleanup_free_ char *v = NULL, *err = NULL;
        Settings s = {}, t = {};

        check(settings_parse_assignment(&s, "CPUAffinity=0-3,8", NULL) == 0);
        check(setting_format(&s, SETTING_CPU_AFFINITY, &v) == 0 && streq(v, "0-3,8"));
        check(settings_parse_assignment(&t, "CPUAffinity = 8,0-3 ", NULL) == 0);
        check(settings_equal(&s, &t));
        check(settings_parse_assignment(&t, "CPUAffinity=0-2", NULL) == 0);
        check(!settings_equal(&s, &t));
        check(settings_parse_assignment(&t, "CPUAffinity=2-1", &err) == -EINVAL);
        check(err && strstr(err, "expected the last CPU of a range"));
}

static void put(const char *path, const char *text)
{
        _cleanup_free_ char *p = NULL;
        FILE *f;

        CHECK(asprintf(&p, "%s/%s", dir, path) > 0);
        for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                (void)mkdir(p, 0755);
                *s = '/';
        }
        f = fopen(p, "we");
        CHECK(f);
        fputs(text, f);
        fclose(f);
}

/* One cache of CPU CPU: index IDX at LEVEL, TYPE, SIZE, shared with LIST. */
static void cache(int cpu, int idx, const char *level, const char *type, const char *size,
                  const char *list)
{
        char base[128], p[192];

        snprintf(base, sizeof(base), "sys/devices/system/cpu/cpu%d/cache/index%d", cpu, idx);
        snprintf(p, sizeof(p), "%s/level", base);
        put(p, level);
        snprintf(p, sizeof(p), "%s/type", base);
        put(p, type);
        if (size) {
                snprintf(p, sizeof(p), "%s/size", base);
                put(p, size);
        }
        snprintf(p, sizeof(p), "%s/shared_cpu_list", base);
        put(p, list);
}

static bool llc_is(const char *want)
{
        _cleanup_free_ char *root = NULL, *out = NULL;
        cpu_set_t set;

        CHECK(asprintf(&root, "%s/sys", dir) > 0);
        return cpu_llc_read(root, &set) == 0 && cpu_list_format(&set, &out) == 0 &&
               streq(out, want);
}

/* A part of two CCDs as on an X3D: CPUs 0-3 and 8-11 share a 96 MiB L3, CPUs
 * 4-7 and 12-15 a 32 MiB one; every CPU has its own L1 and L2. */
static void test_llc(void)
{
        _cleanup_free_ char *root = NULL;
        cpu_set_t set;

        CHECK(asprintf(&root, "%s/sys", dir) > 0);
        put("sys/devices/system/cpu/online", "0-15\n");
        put("sys/devices/system/cpu/cpu0/topology/core_id", "0\n");
        check(cpu_llc_read(root, &set) == -ENOENT); /* no cache described */
        check(cpu_online_read(root, &set) == 0 && CPU_COUNT(&set) == 16);

        for (int cpu = 0; cpu < 16; cpu++) {
                char own[8];
                bool big = cpu < 4 || (cpu >= 8 && cpu < 12);

                snprintf(own, sizeof(own), "%d\n", cpu);
                cache(cpu, 0, "1\n", "Data\n", "32K\n", own);
                cache(cpu, 1, "1\n", "Instruction\n", "32K\n", own);
                cache(cpu, 2, "2\n", "Unified\n", "1024K\n", own);
                cache(cpu, 3, "3\n", "Unified\n", big ? "98304K\n" : "32768K\n",
                      big ? "0-3,8-11\n" : "4-7,12-15\n");
        }
        check(llc_is("0-3,8-11"));

        /* equal sizes: the cache of the lowest CPU */
        for (int cpu = 0; cpu < 16; cpu++)
                cache(cpu, 3, "3\n", "Unified\n", "32768K\n",
                      cpu < 4 || (cpu >= 8 && cpu < 12) ? "0-3,8-11\n" : "4-7,12-15\n");
        check(llc_is("0-3,8-11"));
        cache(5, 3, "3\n", "Unified\n", "64M\n", "4-7,12-15\n");
        check(llc_is("4-7,12-15"));

        /* a higher level wins over a larger cache; an instruction cache never counts */
        cache(6, 4, "4\n", "Unified\n", "8M\n", "0-15\n");
        check(llc_is("0-15"));
        cache(6, 4, "5\n", "Instruction\n", "8M\n", "6\n");
        check(llc_is("4-7,12-15"));
        /* a cache without a readable list is left out */
        cache(7, 5, "6\n", "Unified\n", "8M\n", "garbage\n");
        check(llc_is("4-7,12-15"));
}

/* On the fake kernel, whose cpuset is 0..FAKE_CPUS-1: a list of none of
 * them is not applied (and not an error of the apply), the Nice next to it
 * is; a list inside is applied and restored. */
static void test_apply(void)
{
        ApplyContext c = { .kernel = &fake_kernel_ops, .backend = LATENCY_BACKEND_SLICE };
        Settings s = {};
        SchedState before, now;
        uint32_t applied = 0, unsupported = 0;
        pid_t pid;

        fake_kernel_init(0);
        c.proc_root = fake_proc_root();
        pid = fake_process_new(0, "aff", 1, 1);
        CHECK(settings_parse_assignment(&s, "Nice=5", NULL) == 0);
        CHECK(settings_parse_assignment(&s, "CPUAffinity=8-9", NULL) == 0);
        check(settings_apply_tid(&c, pid, &s, &before, &applied, &unsupported) == 0);
        check(applied == SETTING_BIT(SETTING_NICE));
        check(unsupported == SETTING_BIT(SETTING_CPU_AFFINITY));
        check(fake_task(pid)->nice == 5 && CPU_COUNT(&fake_task(pid)->affinity) == FAKE_CPUS);

        CHECK(settings_parse_assignment(&s, "CPUAffinity=1,3", NULL) == 0);
        check(settings_apply_tid(&c, pid, &s, &before, &applied, &unsupported) == 0);
        check(applied & SETTING_BIT(SETTING_CPU_AFFINITY));
        check(CPU_COUNT(&fake_task(pid)->affinity) == 2 && CPU_ISSET(1, &fake_task(pid)->affinity) &&
              CPU_ISSET(3, &fake_task(pid)->affinity));
        check(sched_state_read_ops(&fake_kernel_ops, pid, 0, &now) == 0);
        check(sched_state_changed(&now, &before, SETTING_BIT(SETTING_CPU_AFFINITY)) ==
              SETTING_BIT(SETTING_CPU_AFFINITY));
        check(sched_state_restore_full(&fake_kernel_ops, c.proc_root, pid, &before, applied) == 0);
        check(CPU_COUNT(&fake_task(pid)->affinity) == FAKE_CPUS);
        fake_kernel_done();
}

int main(void)
{
        CHECK(mkdtemp(dir));
        test_parse();
        test_setting();
        test_llc();
        test_apply();
        {
                char cmd[128];
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
                (void)system(cmd);
        }
        return test_result();
}
