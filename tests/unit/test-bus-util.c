/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/bus/bus-util.c: unit names, drop-in names, escaping, and
 * the conversion of settings a{sv} entries (also hostile ones). */
#include <string.h>

#include "daemon/bus/bus-util.h"
#include "lib/macro.h"
#include "lib/settings.h"
#include "tests/unit/test-util.h"

static void test_escape(void)
{
        _cleanup_free_ char *a = escape_for_message("plain text", 64);
        _cleanup_free_ char *b = escape_for_message("a\"b\\c\nd\re\tf\x1b[31m", 64);
        _cleanup_free_ char *c = escape_for_message("caf\xc3\xa9 \xff", 64);
        _cleanup_free_ char *d = escape_for_message("0123456789", 4);
        _cleanup_free_ char *e = escape_for_message("", 4);

        check_streq(a, "plain text");
        check_streq(b, "a\\\"b\\\\c\\nd\\re\\tf\\x1b[31m");
        check_streq(c, "caf\\xc3\\xa9 \\xff");
        check_streq(d, "0123");
        check_streq(e, "");
}

/* Add one entry; returns the result and leaves the message in *ret_msg. */
static int add(Settings *s, uint32_t allowed, const char *key, const char *sig,
               const SettingBusValue *v, char **ret_msg)
{
        free(*ret_msg);
        *ret_msg = NULL;
        return bus_settings_add(s, allowed, key, sig, v, ret_msg);
}

static void test_settings_add(void)
{
        _cleanup_free_ char *msg = NULL, *big = NULL, *str = NULL;
        Settings s = {}, before;
        SettingBusValue v;

        /* each type as the API defines it */
        v = (SettingBusValue){ .type = 'i', .i = -5 };
        check(add(&s, SETTINGS_TASK_MASK, "LatencyNice", "i", &v, &msg) == 0 && !msg);
        v = (SettingBusValue){ .type = 't', .t = 100000 };
        check(add(&s, SETTINGS_TASK_MASK, "Slice", "t", &v, &msg) == 0);
        v = (SettingBusValue){ .type = 'i', .i = 3 };
        check(add(&s, SETTINGS_TASK_MASK, "Nice", "i", &v, &msg) == 0);
        v = (SettingBusValue){ .type = 's', .s = "batch" };
        check(add(&s, SETTINGS_TASK_MASK, "Policy", "s", &v, &msg) == 0);
        v = (SettingBusValue){ .type = 'u', .u = 512 };
        check(add(&s, SETTINGS_TASK_MASK, "UtilMax", "u", &v, &msg) == 0);
        /* "s" in policy syntax for any setting */
        v = (SettingBusValue){ .type = 's', .s = " 10% " };
        check(add(&s, SETTINGS_TASK_MASK, "UtilMin", "s", &v, &msg) == 0);
        v = (SettingBusValue){ .type = 's', .s = "1ms" };
        check(add(&s, SETTINGS_TASK_MASK, "TimerSlack", "s", &v, &msg) == 0);
        str = settings_to_string(&s);
        check_streq(str, "LatencyNice=-5 Slice=0.1ms Nice=3 Policy=batch UtilMin=102 "
                         "UtilMax=50% TimerSlack=1ms");
        check(s.util_min == 102 && s.slice_ns == 100000 && s.timer_slack_ns == 1000000);

        /* unit settings */
        s = (Settings){};
        v = (SettingBusValue){ .type = 'u', .u = 200 };
        check(add(&s, SETTINGS_UNIT_MASK, "CPUWeight", "u", &v, &msg) == 0);
        v = (SettingBusValue){ .type = 'b', .b = 1 };
        check(add(&s, SETTINGS_UNIT_MASK, "CPUIdle", "b", &v, &msg) == 0);
        check(s.cpu_weight == 200 && s.cpu_idle);
        check(settings_has(&s, SETTING_CPU_WEIGHT) && settings_has(&s, SETTING_CPU_IDLE));

        /* refusals: S unchanged, a message that names the problem */
        before = s;
        v = (SettingBusValue){ .type = 'u', .u = 300 };
        check(add(&s, SETTINGS_UNIT_MASK, "CPUWeight", "u", &v, &msg) == -EINVAL);
        check_streq(msg, "CPUWeight given twice");
        check(add(&s, SETTINGS_UNIT_MASK, "Nice", "i", &v, &msg) == -EINVAL);
        check_streq(msg, "unknown or unsupported key \"Nice\" here");
        check(add(&s, SETTINGS_UNIT_MASK, "latencynice", "i", &v, &msg) == -EINVAL);
        check_streq(msg, "unknown or unsupported key \"latencynice\" here");
        check(add(&s, SETTINGS_UNIT_MASK, "Slice", "i", &v, &msg) == -EINVAL);
        check_streq(msg, "Slice must be of D-Bus type \"t\" (or \"s\" in policy syntax), got \"i\"");
        check(add(&s, SETTINGS_UNIT_MASK, "Slice", "as", NULL, &msg) == -EINVAL);
        check_streq(msg, "Slice must be of D-Bus type \"t\" (or \"s\" in policy syntax), got \"as\"");
        check(add(&s, SETTINGS_UNIT_MASK, "Slice", "", NULL, &msg) == -EINVAL);
        v = (SettingBusValue){ .type = 't', .t = 50 };
        check(add(&s, SETTINGS_UNIT_MASK, "Slice", "t", &v, &msg) == -EINVAL);
        check(msg && strncmp(msg, "Slice: expected a duration in ", 30) == 0);
        v = (SettingBusValue){ .type = 't', .t = UINT64_MAX };
        check(add(&s, SETTINGS_UNIT_MASK, "Slice", "t", &v, &msg) == -EINVAL);
        v = (SettingBusValue){ .type = 'u', .u = 10001 };
        check(add(&s, SETTINGS_UNIT_MASK, "UtilMax", "u", &v, &msg) == -EINVAL);
        check(msg && strstr(msg, "UtilMax: ") == msg && strstr(msg, "10001"));
        v = (SettingBusValue){ .type = 'i', .i = -21 };
        check(add(&s, SETTINGS_UNIT_MASK, "LatencyNice", "i", &v, &msg) == -EINVAL);
        check_streq(msg, "LatencyNice: expected an integer in -20..19, found \"-21\"");
        v = (SettingBusValue){ .type = 's', .s = "deadline" };
        check(add(&s, SETTINGS_TASK_MASK, "Policy", "s", &v, &msg) == -EINVAL);
        v = (SettingBusValue){ .type = 's', .s = "5\nLatencyNice=-20" };
        check(add(&s, SETTINGS_UNIT_MASK, "LatencyNice", "s", &v, &msg) == -EINVAL);
        check(memcmp(&s, &before, sizeof(s)) == 0);

        /* hostile keys are escaped and cut in the message */
        check(add(&s, SETTINGS_UNIT_MASK, "a\nb\x1b[0m\xff", "i", &v, &msg) == -EINVAL);
        check_streq(msg, "unknown or unsupported key \"a\\nb\\x1b[0m\\xff\" here");
        big = malloc(70 * 1024 + 1);
        check(big != NULL);
        if (big) {
                memset(big, 'K', 70 * 1024);
                big[70 * 1024] = 0;
                check(add(&s, SETTINGS_UNIT_MASK, big, "i", &v, &msg) == -EINVAL);
                check_streq(msg, "key longer than 4096 bytes");
                big[BUS_STRING_MAX] = 0;
                check(add(&s, SETTINGS_UNIT_MASK, big, "i", &v, &msg) == -EINVAL);
                check(msg && strlen(msg) < 200 && strstr(msg, "...\" here"));
                big[BUS_STRING_MAX] = 'K';
                v = (SettingBusValue){ .type = 's', .s = big };
                check(add(&s, SETTINGS_UNIT_MASK, "Slice", "s", &v, &msg) == -EINVAL);
                check_streq(msg, "value of Slice longer than 4096 bytes");
        }
        check(memcmp(&s, &before, sizeof(s)) == 0);

        /* without a message pointer, and with bad arguments */
        check(bus_settings_add(&s, SETTINGS_UNIT_MASK, "Nice", "i", &v, NULL) == -EINVAL);
        check(bus_settings_add(NULL, SETTINGS_UNIT_MASK, "Slice", "t", &v, NULL) == -EINVAL);
        check(bus_settings_add(&s, SETTINGS_UNIT_MASK, NULL, "t", &v, NULL) == -EINVAL);
        check(bus_settings_add(&s, SETTINGS_UNIT_MASK, "Slice", NULL, &v, NULL) == -EINVAL);
        check(bus_settings_add(&s, SETTINGS_UNIT_MASK, "Slice", "t", NULL, NULL) == -EINVAL);
        check(memcmp(&s, &before, sizeof(s)) == 0);
}

/* setting_to_bus_value() and bus_settings_add() agree: every setting goes
 * through its D-Bus form unchanged. */
static void test_roundtrip(void)
{
        static const char *const values[_SETTING_MAX] = {
                [SETTING_LATENCY_NICE] = "-20", [SETTING_SLICE] = "2.5ms",
                [SETTING_NICE] = "19",          [SETTING_POLICY] = "idle",
                [SETTING_UTIL_MIN] = "0",       [SETTING_UTIL_MAX] = "1024",
                [SETTING_TIMER_SLACK] = "1ns",  [SETTING_CPU_WEIGHT] = "10000",
                [SETTING_CPU_IDLE] = "no",       [SETTING_IO_CLASS] = "best-effort",
                [SETTING_IO_NICE] = "7",        [SETTING_OOM_SCORE_ADJ] = "-1000",
                [SETTING_CORE_SCHED] = "rule",  [SETTING_CPU_LATENCY_NICE] = "-20",
                [SETTING_GROUP_SCOPE] = "own",  [SETTING_CPU_AFFINITY] = "0,2-5",
                [SETTING_REALTIME_PRIORITY] = "20",
        };

        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                _cleanup_free_ char *msg = NULL, *a = NULL, *b = NULL;
                Settings in = {}, out = {};
                _cleanup_(setting_bus_value_done) SettingBusValue v = {};

                check(setting_to_bus_value(&in, id, &v) == -ENODATA);
                check(settings_parse(&in, id, values[id], NULL, NULL) == 0);
                check(setting_to_bus_value(&in, id, &v) == 0);
                check(v.type == setting_bus_type(id));
                check(bus_settings_add(&out, UINT32_MAX, setting_to_string(id),
                                       (const char[]){ v.type, '\0' }, &v, &msg) == 0);
                a = settings_to_string(&in);
                b = settings_to_string(&out);
                check_streq(b, a);
        }
        check(setting_bus_type(_SETTING_MAX) == 0 && setting_bus_type(-1) == 0);
}

int main(void)
{
        test_escape();
        test_settings_add();
        test_roundtrip();
        return test_result();
}
