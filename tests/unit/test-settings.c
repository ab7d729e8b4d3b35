/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/settings.c: parsing with units and ranges, errors, merge, formatting. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "lib/core-sched.h"
#include "lib/settings.h"
#include "tests/unit/test-util.h"

/* Parse and format back. */
static void roundtrip(SettingId id, const char *in, const char *out)
{
        _cleanup_free_ char *f = NULL, *err = NULL;
        Settings s = {};

        check(settings_parse(&s, id, in, &err, NULL) == 0);
        check(settings_has(&s, id) && s.mask == SETTING_BIT(id));
        check(setting_format(&s, id, &f) == 0);
        if (!f || !streq(f, out)) {
                fprintf(stderr, "%s=%s formatted as %s, expected %s (%s)\n", setting_to_string(id),
                        in, strna(f), out, strna(err));
                test_failures++;
        }
}

static void bad(SettingId id, const char *in, const char *message, unsigned column)
{
        _cleanup_free_ char *err = NULL;
        Settings s = { .mask = SETTING_BIT(SETTING_NICE), .nice = 7 };
        unsigned col = 999;

        check(settings_parse(&s, id, in, &err, &col) == -EINVAL);
        check(s.mask == SETTING_BIT(SETTING_NICE) && s.nice == 7); /* unchanged */
        if (!err || !streq(err, message) || col != column) {
                fprintf(stderr, "%s=%s: got %u %s\n", setting_to_string(id), in, col, strna(err));
                test_failures++;
        }
}

/* Every setting through the field table: merge copies exactly it, the
 * comparisons see exactly it, D-Bus carries its value. */
static void test_fields(void)
{
        static const char *const values[_SETTING_MAX] = {
                [SETTING_LATENCY_NICE] = "-7", [SETTING_SLICE] = "2.5ms", [SETTING_NICE] = "4",
                [SETTING_POLICY] = "batch",   [SETTING_UTIL_MIN] = "300", [SETTING_UTIL_MAX] = "50%",
                [SETTING_TIMER_SLACK] = "7ns", [SETTING_CPU_WEIGHT] = "250", [SETTING_CPU_IDLE] = "yes",
                [SETTING_CORE_SCHED] = "process",
                [SETTING_IO_CLASS] = "idle", [SETTING_IO_NICE] = "3", [SETTING_OOM_SCORE_ADJ] = "-100",
                [SETTING_CPU_LATENCY_NICE] = "-5", [SETTING_GROUP_SCOPE] = "own",
                [SETTING_CPU_AFFINITY] = "0-3,8", [SETTING_REALTIME_PRIORITY] = "20",
        };
        static const char *const others[_SETTING_MAX] = {
                [SETTING_LATENCY_NICE] = "-8", [SETTING_SLICE] = "3ms", [SETTING_NICE] = "5",
                [SETTING_POLICY] = "idle",    [SETTING_UTIL_MIN] = "301", [SETTING_UTIL_MAX] = "51%",
                [SETTING_TIMER_SLACK] = "8ns", [SETTING_CPU_WEIGHT] = "251", [SETTING_CPU_IDLE] = "no",
                [SETTING_CORE_SCHED] = "rule",
                [SETTING_IO_CLASS] = "best-effort", [SETTING_IO_NICE] = "4",
                [SETTING_OOM_SCORE_ADJ] = "200", [SETTING_CPU_LATENCY_NICE] = "7",
                [SETTING_GROUP_SCOPE] = "shared", [SETTING_CPU_AFFINITY] = "1",
                [SETTING_REALTIME_PRIORITY] = "21",
        };
        Settings all = {};

        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                _cleanup_free_ char *back = NULL, *dst_str = NULL;
                Settings a = {}, b = {}, c = {}, dst = {};
                SettingBusValue v = {};

                CHECK(settings_parse(&a, id, values[id], NULL, NULL) == 0);
                CHECK(settings_parse(&b, id, values[id], NULL, NULL) == 0);
                CHECK(settings_parse(&c, id, others[id], NULL, NULL) == 0);
                CHECK(settings_parse(&all, id, values[id], NULL, NULL) == 0);
                check(settings_equal_at(&a, &b, id) && settings_equal(&a, &b));
                check(!settings_equal_at(&a, &c, id) && !settings_equal(&a, &c));
                check(!settings_equal_at(&a, &(Settings){}, id));
                check(settings_equal_at(&(Settings){}, &(Settings){}, id));
                for (SettingId o = 0; o < _SETTING_MAX; o++)
                        if (o != id)
                                check(settings_equal_at(&a, &c, o));

                settings_merge(&dst, &a);
                check(settings_equal(&dst, &a));
                check(setting_format(&dst, id, &back) == 0);
                check(back && setting_format(&a, id, &dst_str) == 0 && streq(back, dst_str));

                check(setting_to_bus_value(&a, id, &v) == 0 && v.type == setting_bus_type(id));
                setting_bus_value_done(&v); /* CPUAffinity= is a text of its own */
                check(setting_to_bus_value(&a, id == 0 ? 1 : 0, &v) == -ENODATA);
        }
        check(!settings_equal_at(&all, &all, _SETTING_MAX));
        check(all.latency_nice == -7 && all.slice_ns == 2500000 && all.nice == 4 &&
              all.policy == SCHED_BATCH && all.util_min == 300 && all.util_max == 512 &&
              all.timer_slack_ns == 7 && all.cpu_weight == 250 && all.cpu_idle &&
              all.cpu_latency_nice == -5 && all.group_scope == GROUP_SCOPE_OWN);
        {
                _cleanup_free_ char *err = NULL;
                SettingBusValue v;
                Settings s = {};

                check(setting_to_bus_value(&all, SETTING_CORE_SCHED, &v) == 0 && v.type == 's' &&
                      streq(v.s, "process"));
                /* A rule's group is the loader's: parsing "rule" leaves it 0. */
                check(settings_parse(&s, SETTING_CORE_SCHED, " rule ", NULL, NULL) == 0 &&
                      s.core_sched.mode == CORE_SCHED_RULE && s.core_sched.group == 0);
                check(settings_parse(&s, SETTING_CORE_SCHED, "yes", &err, NULL) == -EINVAL);
                check(err && streq(err, "expected process, rule, pod or none, found \"yes\""));
                check(s.core_sched.mode == CORE_SCHED_RULE);
        }
        {
                SettingBusValue v;

                check(setting_to_bus_value(&all, SETTING_LATENCY_NICE, &v) == 0 && v.type == 'i' &&
                      v.i == -7);
                check(setting_to_bus_value(&all, SETTING_SLICE, &v) == 0 && v.type == 't' &&
                      v.t == 2500000);
                check(setting_to_bus_value(&all, SETTING_POLICY, &v) == 0 && v.type == 's' &&
                      streq(v.s, "batch"));
                check(setting_to_bus_value(&all, SETTING_UTIL_MAX, &v) == 0 && v.type == 'u' &&
                      v.u == 512);
                check(setting_to_bus_value(&all, SETTING_CPU_WEIGHT, &v) == 0 && v.type == 'u' &&
                      v.u == 250);
                check(setting_to_bus_value(&all, SETTING_CPU_IDLE, &v) == 0 && v.type == 'b' &&
                      v.b == 1);
                check(setting_to_bus_value(&all, SETTING_TIMER_SLACK, &v) == 0 && v.type == 't' &&
                      v.t == 7);
                check(setting_to_bus_value(&all, SETTING_IO_CLASS, &v) == 0 && v.type == 's' &&
                      streq(v.s, "idle"));
                check(setting_to_bus_value(&all, SETTING_GROUP_SCOPE, &v) == 0 && v.type == 's' &&
                      streq(v.s, "own"));
                check(setting_to_bus_value(&all, SETTING_IO_NICE, &v) == 0 && v.type == 'i' &&
                      v.i == 3);
                check(setting_to_bus_value(&all, SETTING_OOM_SCORE_ADJ, &v) == 0 &&
                      v.type == 'i' && v.i == -100);
        }
        /* A value left behind without its bit does not count. */
        {
                Settings x = { .mask = SETTING_BIT(SETTING_NICE), .nice = 1, .slice_ns = 5 };
                Settings y = { .mask = SETTING_BIT(SETTING_NICE), .nice = 1, .slice_ns = 6 };

                check(settings_equal(&x, &y));
                y.mask |= SETTING_BIT(SETTING_SLICE);
                check(!settings_equal(&x, &y));
        }
}

/* Names, and values that read back in their canonical form. */
static void test_roundtrips(void)
{
        Settings s = {};

        for (SettingId i = 0; i < _SETTING_MAX; i++)
                check(setting_from_string(setting_to_string(i)) == i);
        check(setting_from_string("latencynice") == -EINVAL);
        check(setting_to_string(_SETTING_MAX) == NULL);

        roundtrip(SETTING_LATENCY_NICE, "-20", "-20");
        roundtrip(SETTING_LATENCY_NICE, " 19 ", "19");
        roundtrip(SETTING_LATENCY_NICE, "+3", "3");
        roundtrip(SETTING_NICE, "0", "0");
        roundtrip(SETTING_IO_CLASS, "realtime", "realtime");
        roundtrip(SETTING_IO_CLASS, " be ", "best-effort");
        roundtrip(SETTING_IO_CLASS, "rt", "realtime");
        roundtrip(SETTING_IO_NICE, "0", "0");
        roundtrip(SETTING_OOM_SCORE_ADJ, "-1000", "-1000");
        roundtrip(SETTING_OOM_SCORE_ADJ, "+1000", "1000");
        roundtrip(SETTING_SLICE, "0.1ms", "0.1ms");
        roundtrip(SETTING_SLICE, "100ms", "100ms");
        roundtrip(SETTING_SLICE, "100us", "0.1ms");
        roundtrip(SETTING_SLICE, "2500us", "2.5ms");
        roundtrip(SETTING_SLICE, "100000ns", "0.1ms");
        roundtrip(SETTING_SLICE, "0.123456ms", "0.123456ms");
        roundtrip(SETTING_SLICE, "3.ms", "3ms");
        roundtrip(SETTING_TIMER_SLACK, "1ns", "1ns");
        roundtrip(SETTING_TIMER_SLACK, "50us", "50us");
        roundtrip(SETTING_TIMER_SLACK, "1.5us", "1500ns");
        roundtrip(SETTING_POLICY, "batch", "batch");
        roundtrip(SETTING_POLICY, "idle", "idle");
        roundtrip(SETTING_POLICY, "other", "other");
        roundtrip(SETTING_UTIL_MIN, "0", "0%");
        roundtrip(SETTING_UTIL_MIN, "512", "50%");
        roundtrip(SETTING_UTIL_MIN, "50%", "50%");
        roundtrip(SETTING_UTIL_MAX, "100%", "100%");
        roundtrip(SETTING_UTIL_MAX, "300", "300");
        roundtrip(SETTING_UTIL_MAX, "12.5%", "128");
        roundtrip(SETTING_CPU_WEIGHT, "1", "1");
        roundtrip(SETTING_CPU_WEIGHT, "10000", "10000");
        roundtrip(SETTING_CPU_IDLE, "yes", "yes");
        roundtrip(SETTING_CPU_IDLE, "no", "no");
        roundtrip(SETTING_CPU_LATENCY_NICE, "-20", "-20");
        roundtrip(SETTING_CPU_LATENCY_NICE, " 19 ", "19");
        roundtrip(SETTING_GROUP_SCOPE, "own", "own");
        roundtrip(SETTING_GROUP_SCOPE, " shared ", "shared");

        check(settings_parse(&s, SETTING_SLICE, "0.1ms", NULL, NULL) == 0 && s.slice_ns == 100000);
        check(settings_parse(&s, SETTING_POLICY, "batch", NULL, NULL) == 0 && s.policy == SCHED_BATCH);
        check(settings_parse(&s, SETTING_UTIL_MIN, "25%", NULL, NULL) == 0 && s.util_min == 256);
}

static void test_bad_values(void)
{
        bad(SETTING_LATENCY_NICE, "20", "expected an integer in -20..19, found \"20\"", 0);
        bad(SETTING_LATENCY_NICE, "  x", "expected an integer in -20..19, found \"x\"", 2);
        bad(SETTING_LATENCY_NICE, "99999999999999999999",
            "expected an integer in -20..19, found \"99999999999999999999\"", 0);
        bad(SETTING_NICE, "-", "expected an integer in -20..19, found \"-\"", 0);
        bad(SETTING_SLICE, "5", "expected a unit (ns, us, ms) after \"5\", found end of value", 1);
        bad(SETTING_SLICE, " 0.05ms", "expected a duration in 0.1ms..100ms, found \"0.05ms\"", 1);
        bad(SETTING_SLICE, "1s", "expected a unit (ns, us, ms), found \"s\"", 1);
        bad(SETTING_SLICE, "1 ms", "expected a unit (ns, us, ms), found \" ms\"", 1);
        bad(SETTING_SLICE, "-1ms",
            "expected a duration in 0.1ms..100ms with a unit (ns, us, ms), found \"-1ms\"", 0);
        bad(SETTING_SLICE, "99999999999999999999ms",
            "expected a duration in 0.1ms..100ms with a unit (ns, us, ms), found "
            "\"99999999999999999999ms\"", 0);
        bad(SETTING_TIMER_SLACK, "0.5ns", "expected a whole number of nanoseconds, found \"0.5ns\"", 0);
        bad(SETTING_TIMER_SLACK, "101ms", "expected a duration in 1ns..100ms, found \"101ms\"", 0);
        bad(SETTING_POLICY, "deadline", "expected other, batch, idle, rr or fifo, found \"deadline\"", 0);
        bad(SETTING_POLICY, "Batch", "expected other, batch, idle, rr or fifo, found \"Batch\"", 0);
        bad(SETTING_REALTIME_PRIORITY, "0", "expected an integer in 1..99, found \"0\"", 0);
        bad(SETTING_REALTIME_PRIORITY, "100", "expected an integer in 1..99, found \"100\"", 0);
        bad(SETTING_UTIL_MIN, "-1",
            "expected an integer in 0..1024 or a percentage in 0..100%, found \"-1\"", 0);
        bad(SETTING_UTIL_MIN, "50 %",
            "expected an integer in 0..1024 or a percentage in 0..100%, found \"50 %\"", 0);
        bad(SETTING_CPU_WEIGHT, "0", "expected an integer in 1..10000, found \"0\"", 0);
        bad(SETTING_IO_CLASS, "none", "expected realtime, best-effort or idle, found \"none\"", 0);
        bad(SETTING_IO_NICE, "8", "expected an integer in 0..7, found \"8\"", 0);
        bad(SETTING_OOM_SCORE_ADJ, "-1001", "expected an integer in -1000..1000, found \"-1001\"",
            0);
        bad(SETTING_CPU_IDLE, "2", "expected yes or no, found \"2\"", 0);
        bad(SETTING_CPU_LATENCY_NICE, "-21", "expected an integer in -20..19, found \"-21\"", 0);
        bad(SETTING_CPU_LATENCY_NICE, "low", "expected an integer in -20..19, found \"low\"", 0);
        bad(SETTING_GROUP_SCOPE, "Own", "expected shared or own, found \"Own\"", 0);
        bad(SETTING_GROUP_SCOPE, "", "expected shared or own, found \"\"", 0);
}

/* KEY=VALUE assignments, their text form, and merging. */
static void test_assignments(void)
{
        Settings s = {}, t = {};
        char *str, *err = NULL;

        /* assignments */
        s = (Settings){};
        check(settings_parse_assignment(&s, "LatencyNice=-5", NULL) == 0 && s.latency_nice == -5);
        /* A group's, apart from the task's. */
        t = s;
        check(settings_parse_assignment(&t, "CPULatencyNice=-3", NULL) == 0 &&
              t.cpu_latency_nice == -3 && t.latency_nice == -5 &&
              (t.mask & SETTINGS_GROUP_MASK) == SETTING_BIT(SETTING_CPU_LATENCY_NICE));
        check(settings_parse_assignment(&s, "Slice=0.1ms", NULL) == 0);
        check(settings_parse_assignment(&s, "Bogus=1", &err) == -EINVAL);
        check(err && strstr(err, "found \"Bogus\""));
        free(err);
        err = NULL;
        /* blanks around the key and the value, as in the policy files */
        t = (Settings){};
        check(settings_parse_assignment(&t, " Nice=5", NULL) == 0 && t.nice == 5);
        check(settings_parse_assignment(&t, "Nice=6 ", NULL) == 0 && t.nice == 6);
        check(settings_parse_assignment(&t, "\tNice \t=\t 7\t", NULL) == 0 && t.nice == 7);
        check(setting_from_string(" Policy\t") == SETTING_POLICY);
        check(setting_from_string("Ni ce") == _SETTING_INVALID);
        check(setting_from_string("nice") == _SETTING_INVALID);
        check(setting_from_string(" ") == _SETTING_INVALID);
        check(settings_parse_assignment(&t, " =5", &err) == -EINVAL);
        check(err && strstr(err, "found \" \""));
        free(err);
        err = NULL;
        check(settings_parse_assignment(&t, "Nice", &err) == -EINVAL);
        check(err && streq(err, "expected KEY=VALUE, found \"Nice\""));
        free(err);

        str = settings_to_string(&s);
        check(str && streq(str, "LatencyNice=-5 Slice=0.1ms"));
        free(str);
        str = settings_to_string(&(Settings){});
        check(str && streq(str, ""));
        free(str);

        /* merge: present settings override, absent ones are kept */
        t = (Settings){};
        check(settings_parse_assignment(&t, "LatencyNice=3", NULL) == 0);
        check(settings_parse_assignment(&t, "Policy=idle", NULL) == 0);
        settings_merge(&s, &t);
        check(s.latency_nice == 3 && s.slice_ns == 100000 && s.policy == SCHED_IDLE);
        check(s.mask == (SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_SLICE) |
                         SETTING_BIT(SETTING_POLICY)));
        check(setting_format(&(Settings){}, SETTING_NICE, &str) == -ENODATA);
}

/* The value helpers of other modules the settings use. */
static void test_misc(void)
{
        check(parse_boolean("yes") == 1 && parse_boolean("no") == 0);
        check(parse_boolean("true") == 1 && parse_boolean("off") == 0);
        check(parse_boolean("Yes") == -EINVAL && parse_boolean("") == -EINVAL);
        check(sched_policy_from_string("fifo") == SCHED_FIFO);
        check(sched_policy_from_string("rr") == SCHED_RR);
        check(sched_policy_from_string("deadline") == -EINVAL);
        check(streq(sched_policy_to_string(SCHED_FIFO), "fifo"));
        check(sched_policy_to_string(42) == NULL);
}

int main(void)
{
        test_roundtrips();
        test_bad_values();
        test_assignments();
        test_misc();
        test_fields();

        return test_result();
}
