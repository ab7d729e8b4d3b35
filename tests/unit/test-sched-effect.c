/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: lib/sched-effect (which settings act here, and latniced's mask
 * on a decision under a sched_ext scheduler).
 */
#include <string.h>

#include "lib/macro.h"
#include "lib/sched-effect.h"
#include "tests/unit/test-util.h"

static Settings parse(const char *const *a)
{
        Settings s = {};

        for (; *a; a++)
                CHECK(settings_parse_assignment(&s, *a, NULL) == 0);
        return s;
}

static void test_effect(void)
{
        KernelFeatures k = { .eevdf_slice = true, .uclamp_task = true,
                             .core_sched = { .status = CORE_SCHED_OK } };
        uint32_t m = sched_effect_mask(&k, false);
        _cleanup_free_ char *names = NULL;

        check(m & SETTING_BIT(SETTING_SLICE));
        check(m & SETTING_BIT(SETTING_LATENCY_NICE));
        check(m & SETTING_BIT(SETTING_CPU_WEIGHT));
        check(!(m & SETTING_BIT(SETTING_CPU_LATENCY_NICE)));
        check(!(m & SETTING_BIT(SETTING_GROUP_SCOPE)));
        m = sched_effect_mask(&k, true);
        check(!(m & SCHED_EXT_IGNORED_MASK));
        check(m & SETTING_BIT(SETTING_NICE) && m & SETTING_BIT(SETTING_POLICY));
        check(m & SETTING_BIT(SETTING_UTIL_MIN) && m & SETTING_BIT(SETTING_CORE_SCHED));
        /* Debian 12's 6.1: no EEVDF, no patch */
        k = (KernelFeatures){ .core_sched = { .status = CORE_SCHED_NO_KERNEL } };
        m = sched_effect_mask(&k, false);
        check(!(m & (SETTING_BIT(SETTING_SLICE) | SETTING_BIT(SETTING_LATENCY_NICE))));
        check(!(m & SETTING_BIT(SETTING_UTIL_MIN)) && !(m & SETTING_BIT(SETTING_CORE_SCHED)));
        /* the patch set without EEVDF: LatencyNice= acts, Slice= not */
        k.latency_nice_syscall = true;
        m = sched_effect_mask(&k, false);
        check((m & SETTING_BIT(SETTING_LATENCY_NICE)) && !(m & SETTING_BIT(SETTING_SLICE)));
        names = sched_effect_names(SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_POLICY));
        check_streq(names, "Nice=, Policy=");
        free(names);
        names = sched_effect_names(0);
        check_streq(names, "");
}

static void test_mask(void)
{
        Settings s = parse((const char *const[]){ "Nice=-10", "Slice=1ms", "LatencyNice=-5",
                                                  "Policy=idle", "TimerSlack=50us", NULL });
        Settings orig = s, g;
        uint32_t out;

        /* no sched_ext: untouched */
        check(sched_ext_mask_settings(false, &s) == 0 && settings_equal(&s, &orig) &&
              s.mask == orig.mask);
        out = sched_ext_mask_settings(true, &s);
        check(out == (SETTING_BIT(SETTING_SLICE) | SETTING_BIT(SETTING_LATENCY_NICE) |
                      SETTING_BIT(SETTING_NICE)));
        check(!settings_has(&s, SETTING_SLICE) && !settings_has(&s, SETTING_LATENCY_NICE));
        check(settings_has(&s, SETTING_NICE) && s.nice == -SCHED_EXT_NICE_CAP);
        check(settings_has(&s, SETTING_POLICY) && settings_has(&s, SETTING_TIMER_SLACK));
        /* within the cap: kept as it is */
        s = parse((const char *const[]){ "Nice=19", NULL });
        check(sched_ext_mask_settings(true, &s) == SETTING_BIT(SETTING_NICE) &&
              s.nice == SCHED_EXT_NICE_CAP);
        s = parse((const char *const[]){ "Nice=-3", NULL });
        check(sched_ext_mask_settings(true, &s) == 0 && s.nice == -3);
        /* group settings go, GroupScope= with the last of them */
        g = parse((const char *const[]){ "CPUWeight=20", "CPUIdle=yes", "GroupScope=own", NULL });
        out = sched_ext_mask_settings(true, &g);
        check(g.mask == 0);
        check(out & SETTING_BIT(SETTING_GROUP_SCOPE));
}

int main(void)
{
        test_effect();
        test_mask();
        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("test-sched-effect: all checks passed\n");
        return 0;
}
