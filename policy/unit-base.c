/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cgroup.h"
#include "lib/macro.h"
#include "lib/sched-group.h"
#include "lib/unit-name.h"
#include "policy/unit-base.h"

const UnitKnobInfo unit_knobs[_UNIT_KNOB_MAX] = {
        [UNIT_KNOB_LATENCY_NICE] = { "cpu.latency.nice", SETTING_LATENCY_NICE },
        [UNIT_KNOB_WEIGHT] = { "cpu.weight", SETTING_CPU_WEIGHT },
        [UNIT_KNOB_IDLE] = { "cpu.idle", SETTING_CPU_IDLE },
        [UNIT_KNOB_UCLAMP_MIN] = { "cpu.uclamp.min", SETTING_UTIL_MIN },
        [UNIT_KNOB_UCLAMP_MAX] = { "cpu.uclamp.max", SETTING_UTIL_MAX },
};

void unit_knob_fallback(UnitKnob k, const Settings *s, Settings *fallback)
{
        switch (k) {
        case UNIT_KNOB_LATENCY_NICE:
                fallback->latency_nice = s->latency_nice;
                fallback->mask |= SETTING_BIT(SETTING_LATENCY_NICE);
                break;
        case UNIT_KNOB_WEIGHT:
                fallback->nice = sched_group_weight_to_nice(s->cpu_weight);
                fallback->mask |= SETTING_BIT(SETTING_NICE);
                break;
        case UNIT_KNOB_IDLE:
                /* cpu.idle=0 is every task's default: nothing to do per task. */
                if (s->cpu_idle) {
                        fallback->policy = SCHED_IDLE;
                        fallback->mask |= SETTING_BIT(SETTING_POLICY);
                }
                break;
        case UNIT_KNOB_UCLAMP_MIN:
                fallback->util_min = s->util_min;
                fallback->mask |= SETTING_BIT(SETTING_UTIL_MIN);
                break;
        case UNIT_KNOB_UCLAMP_MAX:
                fallback->util_max = s->util_max;
                fallback->mask |= SETTING_BIT(SETTING_UTIL_MAX);
                break;
        default:
                break;
        }
}

uint32_t unit_task_mask(const Settings *s)
{
        uint32_t m = 0;

        for (UnitKnob k = 0; k < _UNIT_KNOB_MAX; k++) {
                Settings all = { .mask = SETTINGS_UNIT_MASK, .cpu_idle = true }, f = {};
                if (!settings_has(s, unit_knobs[k].id))
                        continue;
                unit_knob_fallback(k, &all, &f);
                m |= f.mask;
        }
        if (settings_has(s, SETTING_SLICE))
                m |= SETTING_BIT(SETTING_SLICE);
        return m;
}

/* The [Unit] settings P gives the unit-named cgroup PATH (*RET_WANT) and
 * their per-task form there (*RET_FALLBACK: files the cgroup lacks). */
static void cgroup_unit_base(const Policy *p, const char *root, const char *path,
                             Settings *ret_want, Settings *ret_fallback)
{
        _cleanup_free_ char *dir = NULL;
        const char *name = strrchr(path, '/');
        Settings want = {}, fallback = {};

        *ret_want = *ret_fallback = (Settings){};
        name = name ? name + 1 : path;
        if (unit_type_from_name(name, strlen(name)) < 0 || !policy_match_unit(p, name, &want))
                return;
        want.mask &= SETTINGS_UNIT_MASK;
        if (cg_path_join(root, path, &dir) < 0)
                return;
        for (UnitKnob k = 0; k < _UNIT_KNOB_MAX; k++)
                if (settings_has(&want, unit_knobs[k].id) && !cg_has_file(dir, unit_knobs[k].file))
                        unit_knob_fallback(k, &want, &fallback);
        if (settings_has(&want, SETTING_SLICE)) {
                fallback.slice_ns = want.slice_ns;
                fallback.mask |= SETTING_BIT(SETTING_SLICE);
        }
        *ret_want = want;
        *ret_fallback = fallback;
}

bool unit_task_base(const Policy *p, const char *cgroup_root, const char *cgroup_path,
                    Settings *ret)
{
        _cleanup_free_ char *path = NULL;
        Settings merged = {};

        if (!p || !cgroup_root || policy_n_units(p) == 0 ||
            cg_path_normalize(cgroup_path, &path) < 0)
                return false;
        /* Every prefix, outermost first: "/a.slice", "/a.slice/b.service". */
        for (char *slash = path + 1;; slash++) {
                Settings want, fallback;
                char saved;

                slash = strchrnul(slash, '/');
                saved = *slash;
                *slash = 0;
                cgroup_unit_base(p, cgroup_root, path, &want, &fallback);
                if (want.mask) {
                        merged.mask &= ~unit_task_mask(&want);
                        settings_merge(&merged, &fallback);
                }
                *slash = saved;
                if (!saved)
                        break;
        }
        if (!merged.mask)
                return false;
        *ret = merged;
        return true;
}
