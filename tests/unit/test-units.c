/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for daemon/units: [Unit] sections on a fake cgroup tree made here
 * (directories and plain files shaped like cgroup v2).
 */
#include <assert.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/state/state-file.h"
#include "daemon/groups/units.h"
#include "lib/sched-group.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/sched.h"
#include "lib/util.h"
#include "policy/policy.h"
#include "tests/unit/test-util.h"

static char root[] = "/tmp/test-units.XXXXXX";
#define check_file(rel, expected)                                                           \
        do {                                                                                \
                _cleanup_free_ char *_v = read_rel(rel);                                    \
                if (!_v || !streq(_v, expected)) {                                          \
                        fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", __FILE__, \
                                __LINE__, rel, strna(_v), expected);                        \
                        test_failures++;                                                         \
                }                                                                           \
        } while (0)

static char *pathf(const char *fmt, ...) _printf_(1, 2);
static char *pathf(const char *fmt, ...)
{
        _cleanup_free_ char *rel = NULL;
        char *s;
        va_list ap;

        va_start(ap, fmt);
        assert(vasprintf(&rel, fmt, ap) >= 0);
        va_end(ap);
        assert(asprintf(&s, "%s%s", root, rel) >= 0);
        return s;
}

static char *read_rel(const char *rel)
{
        _cleanup_free_ char *p = pathf("%s", rel);
        char *v = NULL;

        if (read_one_line_file(p, &v) < 0)
                return NULL;
        return v;
}

static void write_rel(const char *rel, const char *value)
{
        _cleanup_free_ char *p = pathf("%s", rel);
        FILE *f = fopen(p, "we");

        assert(f);
        fputs(value, f);
        assert(fclose(f) == 0);
}

/* A cgroup directory; WITH_CPU: with the cpu controller files. */
static void mkcg(const char *rel, bool with_cpu)
{
        _cleanup_free_ char *p = pathf("%s", rel);
        _cleanup_free_ char *procs = NULL;

        assert(mkdir(p, 0755) == 0);
        assert(asprintf(&procs, "%s/cgroup.procs", rel) >= 0);
        write_rel(procs, "");
        if (!with_cpu)
                return;
        static const char *const files[][2] = {
                { "cpu.weight", "100\n" },        { "cpu.idle", "0\n" },
                { "cpu.latency.nice", "0\n" },    { "cpu.uclamp.min", "0.00\n" },
                { "cpu.uclamp.max", "max\n" },
        };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *f = NULL;
                assert(asprintf(&f, "%s/%s", rel, files[i][0]) >= 0);
                write_rel(f, files[i][1]);
        }
}

static void rmcg(const char *rel)
{
        _cleanup_free_ char *cmd = NULL;

        assert(asprintf(&cmd, "rm -rf '%s%s'", root, rel) >= 0);
        assert(system(cmd) == 0);
}

/* Replace REL by a new cgroup with default values (a unit restart). The new
 * directory exists before the old one goes, so it cannot reuse its inode
 * number (cgroupfs never does; a test file system might). */
static void recreate_cg(const char *rel)
{
        _cleanup_free_ char *tmp = NULL, *from = NULL, *to = NULL;

        assert(asprintf(&tmp, "%s.new", rel) >= 0);
        mkcg(tmp, true);
        from = pathf("%s", tmp);
        to = pathf("%s", rel);
        rmcg(rel);
        assert(rename(from, to) == 0);
}

static bool exists_rel(const char *rel)
{
        _cleanup_free_ char *p = pathf("%s", rel);
        return access(p, F_OK) == 0;
}

static Policy *load(const char *text)
{
        Diagnostics d = {};
        Policy *p = NULL;

        assert(policy_load_string("test.policy", text, strlen(text), &p, &d) == 0);
        for (size_t i = 0; i < d.n; i++) {
                _cleanup_free_ char *s = diagnostic_format(&d.items[i]);
                fprintf(stderr, "%s\n", strna(s));
        }
        assert(diagnostics_count(&d, DIAG_ERROR) == 0);
        diagnostics_done(&d);
        assert(policy_n_units(p) > 0);
        return p;
}

static const char base_policy[] =
        "[Unit pipewire.service]\n"
        "LatencyNice = -15\n"
        "CPUWeight = 200\n"
        "UtilMin = 512\n"
        "\n"
        "[Unit bar.service]\n"
        "LatencyNice = 5\n"
        "CPUWeight = 50\n"
        "CPUIdle = yes\n"
        "UtilMax = 50%\n"
        "Slice = 2ms\n"
        "\n"
        "[Unit *.scope]\n"
        "CPUIdle = yes\n"
        "\n"
        "[Unit user-1000.slice]\n"
        "LatencyNice = 3\n"
        "UtilMax = 900\n"
        "\n"
        "[Unit late*.service]\n"
        "CPUWeight = 300\n";

static void make_tree(void)
{
        mkcg("/system.slice", true);
        mkcg("/system.slice/pipewire.service", true);
        mkcg("/system.slice/foo.service", true);
        mkcg("/system.slice/bar.service", false); /* no cpu controller here */
        mkcg("/init.scope", true);
        mkcg("/user.slice", true);
        mkcg("/user.slice/user-1000.slice", false);
        mkcg("/user.slice/user-1000.slice/session-2.scope", false);
        mkcg("/user.slice/user-1000.slice/user@1000.service", true);
        mkcg("/user.slice/user-1000.slice/user@1000.service/app.slice", true);
        mkcg("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service", true);
        /* A delegated sub-cgroup inside a service, not a unit. */
        mkcg("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service/sub", true);
}

static void test_helpers(void)
{
        static const struct {
                unsigned util;
                const char *pct;
        } pcts[] = { { 0, "0.00" }, { 1, "0.10" }, { 512, "50.00" }, { 900, "87.89" },
                     { 1024, "100.00" } };

        for (size_t i = 0; i < ELEMENTSOF(pcts); i++) {
                _cleanup_free_ char *s = NULL;
                check(units_util_to_percent(pcts[i].util, &s) == 0);
                check(s && streq(s, pcts[i].pct));
                /* The kernel's way back (DIV_ROUND_CLOSEST) gives the same util. */
                unsigned h = (unsigned) (strtod(s, NULL) * 100 + 0.5);
                check((h * 1024 + 5000) / 10000 == pcts[i].util);
        }
        check(units_util_to_percent(1025, &(char *) { NULL }) == -ERANGE);

        check(sched_group_weight_to_nice(100) == 0);
        check(sched_group_weight_to_nice(1) == 19);
        check(sched_group_weight_to_nice(10000) == -20);
        check(sched_group_weight_to_nice(50) == 3);   /* 512 -> 526 (nice 3) */
        check(sched_group_weight_to_nice(200) == -3); /* 2048 -> 1991 (nice -3) */
}

static void test_apply_restore(void)
{
        _cleanup_(policy_freep) Policy *p = load(base_policy);
        _cleanup_(units_freep) UnitState *u = NULL;
        const char *upw = "/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service";
        unsigned n = 0;
        Settings s;

        make_tree();
        check(units_new(root, false, NULL, &u) == 0);
        check(streq(units_cgroup_root(u), root));
        check(units_apply_all(u, p, &n) == 0);
        /* pipewire x2, bar, init.scope, session-2.scope, user-1000.slice */
        check(n == 6);

        /* System and user pipewire.service: every file written. */
        check_file("/system.slice/pipewire.service/cpu.latency.nice", "-15");
        check_file("/system.slice/pipewire.service/cpu.weight", "200");
        check_file("/system.slice/pipewire.service/cpu.uclamp.min", "50.00");
        check_file("/system.slice/pipewire.service/cpu.uclamp.max", "max");
        check_file("/system.slice/pipewire.service/cpu.idle", "0");
        check_file("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service/cpu.weight",
                   "200");
        check_file("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service/cpu.latency.nice",
                   "-15");
        /* The sub-cgroup of the service and other units are left alone. */
        check_file("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service/sub/cpu.weight",
                   "100");
        check_file("/system.slice/foo.service/cpu.weight", "100");
        check_file("/system.slice/cpu.weight", "100");
        check_file("/init.scope/cpu.idle", "1");
        check_file("/init.scope/cpu.weight", "100");

        /* pipewire: no fallback, the files took everything. */
        check(!units_task_fallback(u, p, "pipewire.service", &s));
        check(!units_task_fallback_cgroup(u, p, "/system.slice/pipewire.service", &s));
        check(!units_task_fallback_cgroup(u, p, "/system.slice/foo.service", &s));

        /* bar.service has no cpu files: everything per task. */
        s = (Settings) {};
        check(units_task_fallback(u, p, "bar.service", &s));
        check(settings_has(&s, SETTING_LATENCY_NICE) && s.latency_nice == 5);
        check(settings_has(&s, SETTING_NICE) && s.nice == 3);
        check(settings_has(&s, SETTING_POLICY) && s.policy == SCHED_IDLE);
        check(settings_has(&s, SETTING_UTIL_MAX) && s.util_max == 512);
        check(settings_has(&s, SETTING_SLICE) && s.slice_ns == 2000000);
        check(!settings_has(&s, SETTING_CPU_WEIGHT) && !settings_has(&s, SETTING_CPU_IDLE));
        check(!settings_has(&s, SETTING_UTIL_MIN));
        s = (Settings) {};
        check(units_task_fallback_cgroup(u, p, "/system.slice/bar.service/", &s));
        check(s.latency_nice == 5 && s.nice == 3);

        /* A task in session-2.scope: the slice's fallback (no files there)
         * merged with the scope's (CPUIdle without cpu.idle -> idle). */
        s = (Settings) {};
        check(units_task_fallback_cgroup(u, p, "/user.slice/user-1000.slice/session-2.scope", &s));
        check(settings_has(&s, SETTING_LATENCY_NICE) && s.latency_nice == 3);
        check(settings_has(&s, SETTING_UTIL_MAX) && s.util_max == 900);
        check(settings_has(&s, SETTING_POLICY) && s.policy == SCHED_IDLE);
        /* The user's pipewire inherits the slice's per-task UtilMax, but not
         * its LatencyNice: pipewire.service sets its own (in cpu.latency.nice). */
        s = (Settings) {};
        check(units_task_fallback_cgroup(u, p, upw, &s));
        check(settings_has(&s, SETTING_UTIL_MAX) && s.util_max == 900);
        check(!settings_has(&s, SETTING_LATENCY_NICE));
        check(!settings_has(&s, SETTING_POLICY));

        /* Everything walked is seen; a new cgroup is not. */
        check(units_seen(u, "/system.slice/foo.service"));
        check(units_seen(u, upw));
        check(units_seen(u, "/"));

        /* Someone else changes a file we wrote: restore leaves it. */
        write_rel("/system.slice/pipewire.service/cpu.uclamp.min", "25.00\n");

        check(units_restore_all(u) == 0);
        check_file("/system.slice/pipewire.service/cpu.latency.nice", "0");
        check_file("/system.slice/pipewire.service/cpu.weight", "100");
        check_file("/system.slice/pipewire.service/cpu.uclamp.min", "25.00");
        check_file("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service/cpu.weight",
                   "100");
        check_file("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service/cpu.uclamp.min",
                   "0.00");
        check_file("/init.scope/cpu.idle", "0");
        check(units_n_configured(u) == 0);
        rmcg("/system.slice");
        rmcg("/user.slice");
        rmcg("/init.scope");
}

static void test_reload(void)
{
        _cleanup_(policy_freep) Policy *p1 = load(base_policy);
        _cleanup_(policy_freep) Policy *p2 = load("[Unit pipewire.service]\nCPUWeight = 150\n");
        _cleanup_(units_freep) UnitState *u = NULL;
        unsigned n = 0;

        make_tree();
        check(units_new(root, false, NULL, &u) == 0);
        check(units_apply_all(u, p1, &n) == 0);
        check_file("/system.slice/pipewire.service/cpu.latency.nice", "-15");
        check_file("/init.scope/cpu.idle", "1");

        /* Reload: LatencyNice and UtilMin gone from pipewire, *.scope gone. */
        check(units_apply_all(u, p2, &n) == 0);
        check(n == 2);
        check_file("/system.slice/pipewire.service/cpu.latency.nice", "0");
        check_file("/system.slice/pipewire.service/cpu.uclamp.min", "0.00");
        check_file("/system.slice/pipewire.service/cpu.weight", "150");
        check_file("/init.scope/cpu.idle", "0");

        /* Restore after reload gives the very first original back. */
        check(units_restore_all(u) == 0);
        check_file("/system.slice/pipewire.service/cpu.weight", "100");
        rmcg("/system.slice");
        rmcg("/user.slice");
        rmcg("/init.scope");
}

static void test_late_units(void)
{
        _cleanup_(policy_freep) Policy *p = load(base_policy);
        _cleanup_(units_freep) UnitState *u = NULL;
        Settings s;
        unsigned n = 0;

        make_tree();
        check(units_new(root, false, NULL, &u) == 0);
        check(units_apply_all(u, p, &n) == 0);

        /* A unit that starts later, seen through the cgroup of an exec'ing task. */
        mkcg("/system.slice/late1.service", true);
        check(!units_seen(u, "/system.slice/late1.service"));
        check(units_apply_cgroup(u, p, "/system.slice/late1.service") == 0);
        check(units_seen(u, "/system.slice/late1.service"));
        check_file("/system.slice/late1.service/cpu.weight", "300");

        /* A new slice with a new unit inside: both examined, outermost first. */
        mkcg("/late.slice", false);
        mkcg("/late.slice/bar.service", false);
        check(units_apply_cgroup(u, p, "//late.slice//bar.service/") == 0);
        check(units_seen(u, "/late.slice"));
        s = (Settings) {};
        check(units_task_fallback_cgroup(u, p, "/late.slice/bar.service", &s));
        check(s.latency_nice == 5);

        /* Not seen yet: units_task_fallback_cgroup() configures it on the way. */
        mkcg("/system.slice/late2.service", false);
        s = (Settings) {};
        check(units_task_fallback_cgroup(u, p, "/system.slice/late2.service", &s));
        check(settings_has(&s, SETTING_NICE) && s.nice == sched_group_weight_to_nice(300));

        /* A unit systemd reports as started (JobRemoved): found by name. */
        mkcg("/user.slice/user-1000.slice/user@1000.service/app.slice/late3.service", true);
        check(units_apply_unit(u, p, "late3.service") == 0);
        check_file("/user.slice/user-1000.slice/user@1000.service/app.slice/late3.service/cpu.weight",
                   "300");
        /* Unknown to the policy: no walk, nothing written. */
        mkcg("/system.slice/other.service", true);
        check(units_apply_unit(u, p, "other.service") == 0);
        check(!units_seen(u, "/system.slice/other.service"));

        /* The unit restarts: same path, new cgroup with default values. */
        recreate_cg("/system.slice/pipewire.service");
        check(!units_seen(u, "/system.slice/pipewire.service"));
        check(units_apply_cgroup(u, p, "/system.slice/pipewire.service") == 0);
        check_file("/system.slice/pipewire.service/cpu.weight", "200");
        check_file("/system.slice/pipewire.service/cpu.latency.nice", "-15");

        /* Paths that do not exist (any more) and bad paths. */
        check(units_apply_cgroup(u, p, "/system.slice/gone.service") == 0);
        check(units_apply_cgroup(u, p, "/system.slice/../etc") == -EINVAL);

        check(units_restore_all(u) == 0);
        check_file("/system.slice/late1.service/cpu.weight", "100");
        check_file("/system.slice/pipewire.service/cpu.weight", "100");
        rmcg("/system.slice");
        rmcg("/user.slice");
        rmcg("/init.scope");
        rmcg("/late.slice");
}

typedef struct HookState {
        const char *victim; /* cgroup to remove before the first write to it */
        unsigned n_removed;
        unsigned n_writes;
} HookState;

static void remove_before_write(const char *cgroup_path, const char *file, void *userdata)
{
        HookState *h = userdata;

        h->n_writes++;
        if (streq(cgroup_path, h->victim) && exists_rel(h->victim)) {
                rmcg(h->victim);
                h->n_removed++;
        }
}

static void test_vanish(void)
{
        _cleanup_(policy_freep) Policy *p = load(base_policy);
        _cleanup_(units_freep) UnitState *u = NULL;
        HookState h = { .victim = "/system.slice/pipewire.service" };
        unsigned n = 0;
        Settings s;

        make_tree();
        check(units_new(root, false, NULL, &u) == 0);
        units_set_write_hook(u, remove_before_write, &h);
        /* The system pipewire.service disappears between walk and write. */
        check(units_apply_all(u, p, &n) == 0);
        check(h.n_removed == 1);
        check(n == 5);
        check(!units_task_fallback_cgroup(u, p, "/system.slice/pipewire.service", &s));
        /* The user's pipewire.service is configured all the same. */
        check_file("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service/cpu.weight",
                   "200");

        /* A cgroup that goes away after being configured: restore is quiet. */
        rmcg("/user.slice/user-1000.slice/user@1000.service/app.slice/pipewire.service");
        check(units_restore_all(u) == 0);
        check_file("/init.scope/cpu.idle", "0");

        /* Vanishing during units_apply_cgroup of a late unit. */
        mkcg("/system.slice/late9.service", true);
        h.victim = "/system.slice/late9.service";
        check(units_apply_cgroup(u, p, "/system.slice/late9.service") == 0);
        check(h.n_removed == 2);
        check(!exists_rel("/system.slice/late9.service"));

        /* Next walk forgets what is gone. */
        check(units_apply_all(u, p, &n) == 0);
        check(n == 4);
        check(units_restore_all(u) == 0);
        rmcg("/system.slice");
        rmcg("/user.slice");
        rmcg("/init.scope");
}

static void test_dry_run(void)
{
        _cleanup_(policy_freep) Policy *p = load(base_policy);
        _cleanup_(units_freep) UnitState *u = NULL;
        unsigned n = 0;
        Settings s;

        make_tree();
        check(units_new(root, true, NULL, &u) == 0);
        check(units_apply_all(u, p, &n) == 0);
        check(n == 6);
        check_file("/system.slice/pipewire.service/cpu.weight", "100");
        check_file("/init.scope/cpu.idle", "0");
        /* What would be per task is still reported. */
        check(units_task_fallback(u, p, "bar.service", &s));
        check(units_restore_all(u) == 0);
        check_file("/system.slice/pipewire.service/cpu.weight", "100");
        rmcg("/system.slice");
        rmcg("/user.slice");
        rmcg("/init.scope");
}

static void test_root_errors(void)
{
        UnitState *u = NULL;
        _cleanup_(policy_freep) Policy *p = load(base_policy);
        _cleanup_free_ char *missing = pathf("/does-not-exist");

        check(units_new(missing, false, NULL, &u) == 0);
        check(units_apply_all(u, p, NULL) == -ENOENT);
        check(units_restore_all(u) == 0);
        u = units_free(u);
        check(units_free(NULL) == NULL);
        check(units_new("", false, NULL, &u) == -EINVAL);
        check(!u);
}

/* A latniced killed with [Unit] files written: the next one, on the same
 * state file, takes the record's originals, not what the dead one wrote. */
typedef struct Crash {
        char *state_path;
        StateFile *f;
        UnitState *u;
} Crash;

static void crash_start(Crash *c, const Policy *p)
{
        StateFileLoad l = {};

        assert(state_file_open(c->state_path, &c->f, &l) == 0);
        state_file_load_done(&l);
        assert(units_new(root, false, NULL, &c->u) == 0);
        assert(units_attach_state(c->u, c->f) == 0);
        check(units_apply_all(c->u, p, NULL) == 0);
}

/* SIGKILL as far as the files are concerned: nothing restored. */
static void crash_kill(Crash *c)
{
        c->u = units_free(c->u);
        c->f = state_file_free(c->f);
}

/* Copies the state file aside right before the next cpu.weight write: the
 * state file as a latniced killed at that moment leaves it. */
static const char *snap_from, *snap_to;
static bool snap_armed;

static void snap_hook(const char *cgroup_path, const char *file, void *userdata)
{
        _cleanup_free_ char *cmd = NULL;

        if (!snap_armed || !streq(file, "cpu.weight"))
                return;
        snap_armed = false;
        assert(asprintf(&cmd, "cp '%s' '%s'", snap_from, snap_to) >= 0);
        assert(system(cmd) == 0);
}

static void test_crash(void)
{
        _cleanup_(policy_freep) Policy *p =
                load("[Unit crash.service]\nCPUWeight = 300\nCPUIdle = yes\n");
        _cleanup_(policy_freep) Policy *q =
                load("[Unit crash.service]\nCPUWeight = 400\n");
        _cleanup_(policy_freep) Policy *none = load("[Unit nothing.service]\nCPUWeight = 5\n");
        _cleanup_free_ char *state_path = NULL, *snap = NULL;
        const char *cg = "/crash.slice/crash.service";
        Crash c = {};

        /* In a directory of its own: one others can write (/tmp) is refused. */
        assert(asprintf(&state_path, "%s.d/crash.state", root) >= 0);
        c.state_path = state_path;
        mkcg("/crash.slice", true);
        mkcg(cg, true);

        /* Killed, restarted with the section removed: originals back. */
        crash_start(&c, p);
        check_file("/crash.slice/crash.service/cpu.weight", "300");
        check_file("/crash.slice/crash.service/cpu.idle", "1");
        check(state_file_cgroup_n_used(c.f) == 2);
        crash_kill(&c);
        crash_start(&c, none);
        check_file("/crash.slice/crash.service/cpu.weight", "100");
        check_file("/crash.slice/crash.service/cpu.idle", "0");
        check(state_file_cgroup_n_used(c.f) == 0);
        crash_kill(&c);

        /* Killed, restarted with the section kept, then with another value
         * for one knob and none for the other, then stopped: originals. */
        crash_start(&c, p);
        crash_kill(&c);
        crash_start(&c, p);
        check_file("/crash.slice/crash.service/cpu.weight", "300");
        check(state_file_cgroup_n_used(c.f) == 2);
        check(units_apply_all(c.u, q, NULL) == 0);
        check_file("/crash.slice/crash.service/cpu.weight", "400");
        check_file("/crash.slice/crash.service/cpu.idle", "0");
        check(units_restore_all(c.u) == 0);
        check_file("/crash.slice/crash.service/cpu.weight", "100");
        check(state_file_cgroup_n_used(c.f) == 0);
        crash_kill(&c);

        /* Killed between recording a second value (400 over 300) and
         * writing it: the file still holds the first, which is latniced's
         * too, so the original comes back. */
        crash_start(&c, p);
        assert(asprintf(&snap, "%s.snap", state_path) >= 0);
        snap_from = state_path;
        snap_to = snap;
        snap_armed = true;
        units_set_write_hook(c.u, snap_hook, NULL);
        check(units_apply_all(c.u, q, NULL) == 0);
        check(!snap_armed);
        crash_kill(&c);
        assert(rename(snap, state_path) == 0);
        write_rel("/crash.slice/crash.service/cpu.weight", "300\n");
        crash_start(&c, none);
        check_file("/crash.slice/crash.service/cpu.weight", "100");
        check_file("/crash.slice/crash.service/cpu.idle", "0");
        check(state_file_cgroup_n_used(c.f) == 0);
        crash_kill(&c);

        /* Someone else changed a file while no latniced ran: theirs. */
        crash_start(&c, p);
        crash_kill(&c);
        write_rel("/crash.slice/crash.service/cpu.weight", "42\n");
        crash_start(&c, none);
        check_file("/crash.slice/crash.service/cpu.weight", "42");
        check_file("/crash.slice/crash.service/cpu.idle", "0");
        check(state_file_cgroup_n_used(c.f) == 0);
        crash_kill(&c);
        write_rel("/crash.slice/crash.service/cpu.weight", "100\n");

        /* The unit restarted (a new cgroup at the path, holding by chance
         * what was written): not the cgroup the record is about. */
        crash_start(&c, p);
        crash_kill(&c);
        recreate_cg(cg);
        write_rel("/crash.slice/crash.service/cpu.weight", "300\n");
        crash_start(&c, none);
        check_file("/crash.slice/crash.service/cpu.weight", "300");
        check(state_file_cgroup_n_used(c.f) == 0);
        crash_kill(&c);

        /* The cgroup is gone: its records are dropped. */
        crash_start(&c, p);
        crash_kill(&c);
        rmcg(cg);
        crash_start(&c, none);
        check(state_file_cgroup_n_used(c.f) == 0);
        crash_kill(&c);
        rmcg("/crash.slice");
        (void)unlink(state_path);
        *strrchr(state_path, '/') = 0;
        (void)rmdir(state_path);
}

int main(void)
{
        _cleanup_free_ char *cmd = NULL;

        log_set_max_level(getenv("TEST_DEBUG") ? LOG_DEBUG : LOG_WARNING);
        assert(mkdtemp(root));

        test_helpers();
        test_apply_restore();
        test_reload();
        test_late_units();
        test_vanish();
        test_dry_run();
        test_root_errors();
        test_crash();

        assert(asprintf(&cmd, "rm -rf '%s'", root) >= 0);
        assert(system(cmd) == 0);
        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("ok\n");
        return 0;
}
