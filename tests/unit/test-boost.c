/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for policy/boost.c: which settings are boosts, the view of a task
 * its user cannot change, and which boosts a task keeps.
 */
#include <stdio.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/boost.h"
#include "policy/decide.h"
#include "tests/unit/test-policy-load.h"
#include "tests/unit/test-util.h"

#define MS 1000000ull

static Policy *load(const char *text)
{
        return test_policy_load("b.policy", text);
}

static Settings parse(const char *assignments)
{
        Settings s = {};
        _cleanup_free_ char *copy = strdup(assignments);
        char *save = NULL;

        for (char *a = strtok_r(copy, " ", &save); a; a = strtok_r(NULL, " ", &save))
                CHECK(settings_parse_assignment(&s, a, NULL) == 0);
        return s;
}

static void test_mask(void)
{
        Settings s;

        s = parse("Nice=19 Policy=idle TimerSlack=1us Slice=10ms UtilMax=10");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        s = parse("LatencyNice=-1");
        check(settings_boost_mask(&s, -20, 3 * MS) == SETTING_BIT(SETTING_LATENCY_NICE));
        s = parse("LatencyNice=0 UtilMin=0");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        s = parse("UtilMin=1");
        check(settings_boost_mask(&s, -20, 3 * MS) == SETTING_BIT(SETTING_UTIL_MIN));
        s = parse("Slice=0.1ms");
        check(settings_boost_mask(&s, 20, 3 * MS) == SETTING_BIT(SETTING_SLICE));
        check(settings_boost_mask(&s, 20, 0.1 * MS) == 0);
        /* Nice: below 0 and below what RLIMIT_NICE lets the user take. */
        s = parse("Nice=-11");
        check(settings_boost_mask(&s, 20, 3 * MS) == SETTING_BIT(SETTING_NICE));
        check(settings_boost_mask(&s, -10, 3 * MS) == SETTING_BIT(SETTING_NICE));
        check(settings_boost_mask(&s, -11, 3 * MS) == 0);
        check(settings_boost_mask(&s, -20, 3 * MS) == 0);
        s = parse("Nice=0");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        /* A group's weight above the default takes CPU from other groups;
         * an idle group or a lower weight only yields. */
        s = parse("CPUWeight=200");
        check(settings_boost_mask(&s, -20, 3 * MS) == SETTING_BIT(SETTING_CPU_WEIGHT));
        s = parse("CPUWeight=100 CPUIdle=yes");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        s = parse("CPUWeight=50 CPUIdle=no");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        /* A group's negative latency nice puts it ahead of its siblings;
         * 0 or above only yields. */
        s = parse("CPULatencyNice=-1");
        check(settings_boost_mask(&s, -20, 3 * MS) == SETTING_BIT(SETTING_CPU_LATENCY_NICE));
        s = parse("CPULatencyNice=0");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        s = parse("CPULatencyNice=19 CPUIdle=yes");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        check(settings_may_boost(&(Settings){ .mask = SETTING_BIT(SETTING_NICE), .nice = -1 },
                                 3 * MS));
        /* I/O: only the real-time class needs a privilege; any level within
         * best-effort or idle is the user's to choose. */
        s = parse("IOClass=realtime IONice=0");
        check(settings_boost_mask(&s, 20, 3 * MS) == SETTING_BIT(SETTING_IO_CLASS));
        s = parse("IOClass=best-effort IONice=0");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        s = parse("IOClass=idle");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        /* A negative oom_score_adj shields a task at others' expense. */
        s = parse("OOMScoreAdj=-1");
        check(settings_boost_mask(&s, -20, 3 * MS) == SETTING_BIT(SETTING_OOM_SCORE_ADJ));
        s = parse("OOMScoreAdj=0");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
        s = parse("OOMScoreAdj=1000");
        check(settings_boost_mask(&s, 20, 3 * MS) == 0);
}

static void test_delegated(void)
{
        check(!cgroup_is_delegated(NULL));
        check(!cgroup_is_delegated("/system.slice/pipewire.service"));
        check(!cgroup_is_delegated("/user.slice/user-1000.slice/session-2.scope"));
        check(cgroup_is_delegated("/user.slice/user-1000.slice/user@1000.service/app.slice/"
                                  "pipewire.service"));
        check(cgroup_is_delegated("/user.slice/user-1000.slice/user@1000.service"));
        check(!cgroup_is_delegated("/system.slice/user@.service.d"));
        check(!cgroup_is_delegated("/x/user@1000.servicex/y"));
}

static TaskSnapshot task(void)
{
        return (TaskSnapshot){
                .pid = 100,
                .tid = 100,
                .names = { .comm = "pipewire", .argv0 = "pipewire", .exe = "python3.11" },
                .exe_path = "/usr/bin/python3.11",
                .cmdline = "pipewire -c x",
                .uid = 65534,
                .gid = 65534,
                .cgroup = "/user.slice/user-65534.slice/user@65534.service/app.slice/"
                          "pipewire.service",
                .unit = "pipewire.service",
        };
}

static const char *const POLICY =
        "[Rule audio]\n"
        "Match = name:pipewire\n"
        "LatencyNice = -15\n"
        "Nice = -11\n"
        "TimerSlack = 1us\n"
        "\n"
        "[Rule by-unit]\n"
        "Match = unit:game.service\n"
        "Nice = -4\n"
        "\n"
        "[Rule demote]\n"
        "Match = name:cc1\n"
        "Nice = 19\n"
        "Policy = idle\n";

static uint32_t limit(const Policy *p, const TaskSnapshot *t, const BoostFacts *f,
                      const Settings *base, Settings *ret)
{
        MatchResult res;
        uint32_t withheld = 0;

        CHECK(policy_match(p, t, &res, NULL) == 0);
        *ret = res.settings;
        if (base) {
                Settings m = *base;
                settings_merge(&m, &res.settings);
                *ret = m;
        }
        CHECK(policy_limit_boosts(p, t, &res, base, f, ret, &withheld) == 0);
        return withheld;
}

static void test_limit(void)
{
        _cleanup_(policy_freep) Policy *p = load(POLICY);
        const BoostFacts untrusted = { .exe_trusted = false, .reason = (char *)"x", .nice_floor = 20,
                                       .base_slice_ns = 3 * MS };
        const BoostFacts trusted = { .exe_trusted = true, .nice_floor = 20,
                                     .base_slice_ns = 3 * MS };
        TaskSnapshot t = task();
        Settings s;
        uint32_t w;

        /* argv[0] and comm say pipewire, the exe is python3: nothing but
         * the timer slack, trusted exe or not. */
        w = limit(p, &t, &untrusted, NULL, &s);
        check(w == (SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_NICE)));
        check(s.mask == SETTING_BIT(SETTING_TIMER_SLACK));
        w = limit(p, &t, &trusted, NULL, &s);
        check(w == (SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_NICE)));

        /* The real pipewire binary, trusted: everything. */
        t.names.exe = "pipewire";
        t.exe_path = "/usr/bin/pipewire";
        w = limit(p, &t, &trusted, NULL, &s);
        check(w == 0 && s.nice == -11 && s.latency_nice == -15);
        /* ... named by a comm the user set: still the exe that counts. */
        t.names.comm = "evil";
        t.names.argv0 = "evil";
        w = limit(p, &t, &trusted, NULL, &s);
        check(w == 0 && settings_has(&s, SETTING_NICE));
        /* The same file copied somewhere the user can write: untrusted. */
        w = limit(p, &t, &untrusted, NULL, &s);
        check(w == (SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_NICE)));
        /* A user whose RLIMIT_NICE allows -11 may have the nice, not the
         * latency nice. */
        {
                BoostFacts f = untrusted;
                f.nice_floor = -11;
                w = limit(p, &t, &f, NULL, &s);
                check(w == SETTING_BIT(SETTING_LATENCY_NICE) && s.nice == -11);
        }
        /* Root may take anything. */
        {
                BoostFacts f = untrusted;
                f.privileged = true;
                w = limit(p, &t, &f, NULL, &s);
                check(w == 0 && s.latency_nice == -15);
        }

        /* Demotions are never withheld. */
        t.names = (TaskNames){ .comm = "cc1", .argv0 = "cc1", .exe = "cc1" };
        w = limit(p, &t, &untrusted, NULL, &s);
        check(w == 0 && s.nice == 19);

        /* unit: of a delegated (user) unit is the user's choice: withheld,
         * even with a trusted exe; in a system unit it counts. */
        t.names = (TaskNames){ .comm = "game", .argv0 = "game", .exe = "game" };
        t.unit = "game.service";
        t.cgroup = "/user.slice/user-65534.slice/user@65534.service/app.slice/game.service";
        w = limit(p, &t, &trusted, NULL, &s);
        check(w == SETTING_BIT(SETTING_NICE));
        t.cgroup = "/system.slice/game.service";
        w = limit(p, &t, &trusted, NULL, &s);
        check(w == 0 && s.nice == -4);

        /* [Unit] settings (BASE) of a system unit hold, exe or not; of a
         * delegated unit they do not. */
        {
                Settings base = parse("LatencyNice=-5");
                t.unit = "other.service";
                t.cgroup = "/system.slice/other.service";
                w = limit(p, &t, &untrusted, &base, &s);
                check(w == 0 && s.latency_nice == -5);
                t.cgroup = "/user.slice/user-1.slice/user@1.service/other.service";
                w = limit(p, &t, &untrusted, &base, &s);
                check(w == SETTING_BIT(SETTING_LATENCY_NICE) && s.mask == 0);
        }
}

/* CPULatencyNice= of a rule: a negative one is a boost of the group, and
 * follows the trust rules of every boost; a positive one never is. */
static void test_limit_group_latency(void)
{
        _cleanup_(policy_freep) Policy *p = load("[Rule audio]\n"
                                                 "Match = name:pipewire\n"
                                                 "CPULatencyNice = -10\n"
                                                 "TimerSlack = 1us\n"
                                                 "\n"
                                                 "[Rule build]\n"
                                                 "Match = name:cc1\n"
                                                 "CPULatencyNice = 19\n"
                                                 "CPUIdle = yes\n");
        const BoostFacts untrusted = { .exe_trusted = false, .reason = (char *)"x", .nice_floor = 20,
                                       .base_slice_ns = 3 * MS };
        const BoostFacts trusted = { .exe_trusted = true, .nice_floor = 20,
                                     .base_slice_ns = 3 * MS };
        TaskSnapshot t = task();
        Settings s;
        uint32_t w;

        /* Named pipewire by its user (argv[0], comm), python3 underneath:
         * no boost of the group it shares. */
        w = limit(p, &t, &trusted, NULL, &s);
        check(w == SETTING_BIT(SETTING_CPU_LATENCY_NICE));
        check(s.mask == SETTING_BIT(SETTING_TIMER_SLACK));
        /* The trusted binary: the group's boost. */
        t.names.exe = "pipewire";
        t.exe_path = "/usr/bin/pipewire";
        w = limit(p, &t, &trusted, NULL, &s);
        check(w == 0 && settings_has(&s, SETTING_CPU_LATENCY_NICE) && s.cpu_latency_nice == -10);
        /* A copy the user can write: not. */
        w = limit(p, &t, &untrusted, NULL, &s);
        check(w == SETTING_BIT(SETTING_CPU_LATENCY_NICE));
        /* A demotion reaches every match. */
        t.names = (TaskNames){ .comm = "cc1", .argv0 = "cc1", .exe = "python3" };
        w = limit(p, &t, &untrusted, NULL, &s);
        check(w == 0 && s.cpu_latency_nice == 19 && s.cpu_idle);
}

static void test_view(void)
{
        TaskSnapshot t = task(), v;
        char comm[16];
        static const TaskNames anc[] = { { .comm = "reaper", .argv0 = "reaper", .exe = "reaper" } };

        t.ancestors = anc;
        t.n_ancestors = 1;
        t.thread = "data-loop.0";
        t.names.exe = "a-very-long-executable-name";
        task_snapshot_trusted_view(&t, &v, comm);
        check_streq(v.names.comm, "a-very-long-exe");
        check(v.names.argv0 == NULL);
        check_streq(v.names.exe, "a-very-long-executable-name");
        check(v.n_ancestors == 0 && v.ancestors == NULL);
        check(v.cgroup == NULL && v.unit == NULL);
        check_streq(v.thread, "data-loop.0");
        check_streq(v.cmdline, t.cmdline);
        t.names.exe = NULL;
        task_snapshot_trusted_view(&t, &v, comm);
        check_streq(v.names.comm, "");
}

static void test_decide(void)
{
        _cleanup_(policy_freep) Policy *p = load(POLICY);
        BoostFactsCache c = { .have = true,
                              .have_tamper = true,
                              .facts = { .reason = (char *)"exe /tmp/x/pipewire: directory /tmp/x "
                                                           "is owned by uid 65534",
                                         .nice_floor = 20,
                                         .base_slice_ns = 3 * MS } };
        TaskSnapshot t = task();
        Settings base = parse("Slice=10ms UtilMax=50");
        Decision d;

        t.names = (TaskNames){ .comm = "pipewire", .argv0 = "pipewire", .exe = "pipewire" };
        t.cgroup = "/system.slice/pipewire.service";
        CHECK(policy_decide(p, &t, &base, "unit:pipewire.service", &c, &d, NULL) == 0);
        check(d.withheld == (SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_NICE)));
        check_streq(d.withheld_reason, c.facts.reason);
        check_streq(d.rule, "audio");
        check(d.settings.mask == (SETTING_BIT(SETTING_TIMER_SLACK) | SETTING_BIT(SETTING_SLICE) |
                                  SETTING_BIT(SETTING_UTIL_MAX)));
        check(d.match.settings.nice == -11); /* what the rules said, for Explain */

        /* Trusted: all of it. */
        c.facts.exe_trusted = true;
        CHECK(policy_decide(p, &t, &base, "unit:pipewire.service", &c, &d, NULL) == 0);
        check(d.withheld == 0 && d.settings.nice == -11 && d.withheld_reason == NULL);

        /* No rule: the unit's settings, named after it. */
        t.names = (TaskNames){ .comm = "x", .argv0 = "x", .exe = "x" };
        CHECK(policy_decide(p, &t, &base, "unit:pipewire.service", &c, &d, NULL) == 0);
        check_streq(d.rule, "unit:pipewire.service");
        check(d.settings.slice_ns == 10 * MS);
        /* Nothing at all. */
        CHECK(policy_decide(p, &t, NULL, NULL, &c, &d, NULL) == 0);
        check(d.rule == NULL && d.settings.mask == 0);

        /* No facts at all: every boost withheld, demotions kept. */
        t.names = (TaskNames){ .comm = "pipewire", .argv0 = "pipewire", .exe = "pipewire" };
        CHECK(policy_decide(p, &t, NULL, NULL, NULL, &d, NULL) == 0);
        check(d.withheld == (SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_NICE)));
        t.names = (TaskNames){ .comm = "cc1", .argv0 = "cc1", .exe = "cc1" };
        CHECK(policy_decide(p, &t, NULL, NULL, NULL, &d, NULL) == 0);
        check(d.withheld == 0 && d.settings.nice == 19);
}

static void test_opt_out(void)
{
        _cleanup_(policy_freep) Policy *p = load("[Rule game]\n"
                                                 "Match = name:*.exe\n"
                                                 "Nice = -4\n"
                                                 "LatencyNice = -10\n"
                                                 "RequireTrustedExe = no\n"
                                                 "\n"
                                                 "[Rule later]\n"
                                                 "Match = name:late.exe\n"
                                                 "LatencyNice = -5\n");
        const BoostFacts untrusted = { .nice_floor = 20, .base_slice_ns = 3 * MS };
        TaskSnapshot t = task();
        MatchResult res;
        Settings s;
        uint32_t w;

        t.names = (TaskNames){ .comm = "game.exe", .argv0 = "game.exe", .exe = "game.exe" };
        CHECK(policy_match(p, &t, &res, NULL) == 0);
        check(res.untrusted_ok == (SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_LATENCY_NICE)));
        w = limit(p, &t, &untrusted, NULL, &s);
        check(w == 0 && s.nice == -4 && s.latency_nice == -10);

        /* A later rule without the opt-out takes over LatencyNice: that
         * value needs trust again, the Nice of the first rule does not. */
        t.names = (TaskNames){ .comm = "late.exe", .argv0 = "late.exe", .exe = "late.exe" };
        CHECK(policy_match(p, &t, &res, NULL) == 0);
        check(res.untrusted_ok == SETTING_BIT(SETTING_NICE));
        w = limit(p, &t, &untrusted, NULL, &s);
        check(w == SETTING_BIT(SETTING_LATENCY_NICE) && s.nice == -4);
}

/* Real time is a boost, and only ever granted to the trusted view of a
 * trusted executable: not through RequireTrustedExe=no, not by a rule on a
 * name its user chose, not by a [Unit]'s base. */
static void test_realtime(void)
{
        _cleanup_(policy_freep) Policy *p = load("[Rule audio]\n"
                                                 "Match = name:pipewire\n"
                                                 "Policy = rr\n"
                                                 "RealtimePriority = 20\n"
                                                 "\n"
                                                 "[Rule anyone]\n"
                                                 "Match = name:*.rt\n"
                                                 "Policy = fifo\n"
                                                 "RequireTrustedExe = no\n");
        const uint32_t rt = SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_REALTIME_PRIORITY);
        const BoostFacts trusted = { .exe_trusted = true, .nice_floor = 20,
                                     .base_slice_ns = 3 * MS };
        const BoostFacts untrusted = { .nice_floor = 20, .base_slice_ns = 3 * MS };
        Settings s, base = { .mask = rt, .policy = SCHED_RR, .rt_priority = 20 };
        TaskSnapshot t = task();
        uint32_t w;

        check(settings_boost_mask(&base, 20, 3 * MS) == rt);
        check(settings_rt_mask(&base) == rt);
        t.names = (TaskNames){ .comm = "pipewire", .argv0 = "pipewire", .exe = "pipewire" };
        w = limit(p, &t, &trusted, NULL, &s);
        check(w == 0 && s.policy == SCHED_RR && s.rt_priority == 20);
        w = limit(p, &t, &untrusted, NULL, &s);
        check(w == rt && !(s.mask & rt));
        /* A trusted exe under a name its user chose (comm, argv[0]). */
        t.names = (TaskNames){ .comm = "pipewire", .argv0 = "pipewire", .exe = "sh" };
        w = limit(p, &t, &trusted, NULL, &s);
        check(w == rt && !(s.mask & rt));
        /* RequireTrustedExe=no does not reach real time. */
        t.names = (TaskNames){ .comm = "x.rt", .argv0 = "x.rt", .exe = "x.rt" };
        w = limit(p, &t, &untrusted, NULL, &s);
        check(w == SETTING_BIT(SETTING_POLICY));
        /* Nor does a system unit's base. */
        t.names = (TaskNames){ .comm = "cc1", .argv0 = "cc1", .exe = "cc1" };
        t.cgroup = "/system.slice/x.service";
        t.unit = "x.service";
        w = limit(p, &t, &untrusted, &base, &s);
        check(w == rt);
}

/* Tampered (traced, LD_PRELOAD): no boost that rests on trust, whatever the
 * exe; the opt-out still holds. A trusted exe under a name its user chose:
 * the reason names both names. */
static void test_tamper_and_names(void)
{
        _cleanup_(policy_freep) Policy *p = load(POLICY);
        _cleanup_(policy_freep) Policy *opt = load("[Rule game]\nMatch = name:game\nNice = -4\n"
                                                   "RequireTrustedExe = no\n");
        BoostFactsCache c = { .have = true,
                              .have_tamper = true,
                              .facts = { .exe_trusted = true,
                                         .nice_floor = 20,
                                         .base_slice_ns = 3 * MS } };
        const uint32_t both = SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_NICE);
        TaskSnapshot t = task();
        Decision d;

        t.cgroup = "/system.slice/x.service";
        t.unit = "x.service";

        /* comm and argv[0] say pipewire, the trusted exe is python3.11. */
        CHECK(policy_decide(p, &t, NULL, NULL, &c, &d, NULL) == 0);
        check(d.withheld == both);
        check_streq(d.withheld_reason, "the executable's name (python3.11) differs from the "
                                       "rule's (pipewire, matched as its comm and argv[0])");
        /* Only argv[0] (exec -a). */
        t.names = (TaskNames){ .comm = "python3.11", .argv0 = "pipewire", .exe = "python3.11" };
        CHECK(policy_decide(p, &t, NULL, NULL, &c, &d, NULL) == 0);
        check(d.withheld == both);
        check_streq(d.withheld_reason, "the executable's name (python3.11) differs from the "
                                       "rule's (pipewire, matched as its argv[0])");
        /* Only the comm (prctl(PR_SET_NAME)), cut at 15 bytes as the kernel does. */
        t.names = (TaskNames){ .comm = "pipewire", .argv0 = "a-long-name-of-", .exe = "a-long-name-of-it" };
        CHECK(policy_decide(p, &t, NULL, NULL, &c, &d, NULL) == 0);
        check(d.withheld == both);
        check(d.withheld_reason && strstr(d.withheld_reason, "(pipewire as its comm, "
                                                             "a-long-name-of- as its argv[0])"));
        t.names = (TaskNames){ .comm = "pipewire", .argv0 = "a-long-name-of-it",
                               .exe = "a-long-name-of-it" };
        CHECK(policy_decide(p, &t, NULL, NULL, &c, &d, NULL) == 0);
        check_streq(d.withheld_reason, "the executable's name (a-long-name-of-it) differs from "
                                       "the rule's (pipewire, matched as its comm)");

        /* The exe's own name: the boost, unless it is tampered with. */
        t.names = (TaskNames){ .comm = "pipewire", .argv0 = "pipewire", .exe = "pipewire" };
        CHECK(policy_decide(p, &t, NULL, NULL, &c, &d, NULL) == 0);
        check(d.withheld == 0 && d.settings.nice == -11);
        c.facts.tampered = true;
        c.facts.tamper_reason = (char *)"it is being traced (by pid 7)";
        CHECK(policy_decide(p, &t, NULL, NULL, &c, &d, NULL) == 0);
        check(d.withheld == both);
        check_streq(d.withheld_reason, "it is being traced (by pid 7)");
        check(d.settings.timer_slack_ns == 1000); /* not a boost: kept */
        /* Nor from a [Unit] section. */
        {
                Settings base = parse("LatencyNice=-5");

                t.names = (TaskNames){ .comm = "x", .argv0 = "x", .exe = "x" };
                CHECK(policy_decide(p, &t, &base, "unit:x.service", &c, &d, NULL) == 0);
                check(d.withheld == SETTING_BIT(SETTING_LATENCY_NICE));
                check_streq(d.withheld_reason, "it is being traced (by pid 7)");
        }
        /* A rule that opted out of trust keeps its boost. */
        t.names = (TaskNames){ .comm = "game", .argv0 = "game", .exe = "game" };
        CHECK(policy_decide(opt, &t, NULL, NULL, &c, &d, NULL) == 0);
        check(d.withheld == 0 && d.settings.nice == -4);
        /* Root: nothing withheld. */
        c.facts.privileged = true;
        t.names = (TaskNames){ .comm = "pipewire", .argv0 = "pipewire", .exe = "pipewire" };
        CHECK(policy_decide(p, &t, NULL, NULL, &c, &d, NULL) == 0);
        check(d.withheld == 0 && d.settings.nice == -11);
        free(c.facts.name_reason);
}

static void test_opt_out_diagnostics(void)
{
        static const char text[] = "[Rule r]\nMatch = name:x\nRequireTrustedExe = no\n"
                                   "[Rule q]\nMatch = name:y\nRequireTrustedExe = maybe\n"
                                   "[Profile p]\nRequireTrustedExe = no\n";
        Diagnostics d = {};
        Policy *p = NULL;
        bool warned = false, bad_value = false, profile = false;

        CHECK(policy_load_string("o.policy", text, strlen(text), &p, &d) == 0);
        for (size_t i = 0; i < d.n; i++) {
                _cleanup_free_ char *f = diagnostic_format(&d.items[i]);
                if (strstr(f, "o.policy:3:1: warning: RequireTrustedExe=no: the boosts of rule \"r\""))
                        warned = true;
                if (strstr(f, "o.policy:6:21: error: expected yes or no, found \"maybe\""))
                        bad_value = true;
                if (strstr(f, "o.policy:8:1: error:") && strstr(f, "only [Rule] sections take"))
                        profile = true;
        }
        if (!warned || !bad_value || !profile)
                for (size_t i = 0; i < d.n; i++) {
                        _cleanup_free_ char *f = diagnostic_format(&d.items[i]);
                        fprintf(stderr, "  %s\n", f);
                }
        check(warned);
        check(bad_value);
        check(profile);
        diagnostics_done(&d);
        policy_free(p);
}

int main(void)
{
        test_opt_out();
        test_realtime();
        test_opt_out_diagnostics();
        test_decide();
        test_tamper_and_names();
        test_mask();
        test_delegated();
        test_limit();
        test_limit_group_latency();
        test_view();
        return test_result();
}
