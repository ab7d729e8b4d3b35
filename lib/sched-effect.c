/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which settings act here (lib/sched-effect.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/sched-effect.h"

uint32_t sched_effect_mask(const KernelFeatures *k, bool sched_ext)
{
        uint32_t m = SETTINGS_RULE_MASK & ~SETTING_BIT(SETTING_GROUP_SCOPE);

        if (!k->eevdf_slice)
                m &= ~SETTING_BIT(SETTING_SLICE);
        /* LatencyNice= acts through the kernel's latency nice or the slice */
        if (!k->eevdf_slice && !k->latency_nice_syscall)
                m &= ~SETTING_BIT(SETTING_LATENCY_NICE);
        if (!k->uclamp_task)
                m &= ~(SETTING_BIT(SETTING_UTIL_MIN) | SETTING_BIT(SETTING_UTIL_MAX));
        if (k->core_sched.status != CORE_SCHED_OK)
                m &= ~SETTING_BIT(SETTING_CORE_SCHED);
        /* CPUWeight= and CPUIdle= act on cgroup2, the v1 cpu hierarchy or an
         * autogroup (daemon/groups/groups.h): there is always a place for them. */
        if (!k->latency_nice_cgroup)
                m &= ~SETTING_BIT(SETTING_CPU_LATENCY_NICE);
        if (sched_ext)
                m &= ~SCHED_EXT_IGNORED_MASK;
        return m;
}

char *sched_effect_names(uint32_t mask)
{
        char *buf = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&buf, &size);
        bool first = true;

        if (!f)
                return NULL;
        for (int id = 0; id < _SETTING_MAX; id++)
                if (mask & SETTING_BIT(id)) {
                        fprintf(f, "%s%s=", first ? "" : ", ", setting_to_string(id));
                        first = false;
                }
        if (fclose(f) != 0) {
                free(buf);
                return NULL;
        }
        return buf;
}

uint32_t sched_ext_mask_settings(bool sched_ext, Settings *s)
{
        uint32_t out;

        if (!sched_ext)
                return 0;
        out = s->mask & SCHED_EXT_IGNORED_MASK;
        s->mask &= ~SCHED_EXT_IGNORED_MASK;
        if ((s->mask & SETTING_BIT(SETTING_GROUP_SCOPE)) &&
            !(s->mask & SETTINGS_GROUP_MASK & ~SETTING_BIT(SETTING_GROUP_SCOPE))) {
                s->mask &= ~SETTING_BIT(SETTING_GROUP_SCOPE);
                out |= SETTING_BIT(SETTING_GROUP_SCOPE);
        }
        if (settings_has(s, SETTING_NICE) &&
            (s->nice > SCHED_EXT_NICE_CAP || s->nice < -SCHED_EXT_NICE_CAP)) {
                s->nice = s->nice > 0 ? SCHED_EXT_NICE_CAP : -SCHED_EXT_NICE_CAP;
                out |= SETTING_BIT(SETTING_NICE);
        }
        return out;
}
