/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

#include "lib/ioprio.h"
#include "lib/macro.h"
#include "policy/boost.h"

uint32_t settings_boost_mask(const Settings *s, int nice_floor, uint64_t base_slice_ns)
{
        uint32_t m = 0;

        if (settings_has(s, SETTING_LATENCY_NICE) && s->latency_nice < 0)
                m |= SETTING_BIT(SETTING_LATENCY_NICE);
        if (settings_has(s, SETTING_NICE) && s->nice < 0 && s->nice < nice_floor)
                m |= SETTING_BIT(SETTING_NICE);
        if (settings_has(s, SETTING_SLICE) && s->slice_ns < base_slice_ns)
                m |= SETTING_BIT(SETTING_SLICE);
        if (settings_has(s, SETTING_UTIL_MIN) && s->util_min > 0)
                m |= SETTING_BIT(SETTING_UTIL_MIN);
        /* The real-time I/O class needs CAP_SYS_NICE (ioprio_set(2)); a
         * level within best-effort or idle any user may choose. */
        if (settings_has(s, SETTING_IO_CLASS) && s->io_class == LN_IOPRIO_CLASS_RT)
                m |= SETTING_BIT(SETTING_IO_CLASS);
        /* Lowering oom_score_adj (below what the process had) needs
         * CAP_SYS_RESOURCE: a negative value shields a task from the OOM
         * killer at others' expense. */
        if (settings_has(s, SETTING_OOM_SCORE_ADJ) && s->oom_score_adj < 0)
                m |= SETTING_BIT(SETTING_OOM_SCORE_ADJ);
        /* A group's weight above the default takes CPU from other groups. */
        if (settings_has(s, SETTING_CPU_WEIGHT) && s->cpu_weight > 100)
                m |= SETTING_BIT(SETTING_CPU_WEIGHT);
        /* A group's negative latency nice puts it ahead of its siblings. */
        if (settings_has(s, SETTING_CPU_LATENCY_NICE) && s->cpu_latency_nice < 0)
                m |= SETTING_BIT(SETTING_CPU_LATENCY_NICE);
        return m;
}

bool cgroup_is_delegated(const char *cgroup)
{
        const char *p = cgroup;

        if (!p)
                return false;
        while ((p = strstr(p, "/user@"))) {
                const char *end = strchrnul(p + 1, '/');
                size_t n = (size_t)(end - p);

                /* "/user@1000.service" */
                if (n > strlen("/user@.service") &&
                    memcmp(end - strlen(".service"), ".service", strlen(".service")) == 0)
                        return true;
                p = end;
        }
        return false;
}

void task_snapshot_trusted_view(const TaskSnapshot *task, TaskSnapshot *ret,
                                char comm_buf[static 16])
{
        TaskSnapshot v = *task;

        comm_buf[0] = 0;
        if (task->names.exe)
                snprintf(comm_buf, 16, "%s", task->names.exe);
        v.names = (TaskNames){
                .comm = comm_buf,
                .argv0 = NULL,
                .exe = task->names.exe,
        };
        v.ancestors = NULL;
        v.n_ancestors = 0;
        if (cgroup_is_delegated(task->cgroup)) {
                v.cgroup = NULL;
                v.unit = NULL;
        }
        *ret = v;
}

int policy_limit_boosts(const Policy *p, const TaskSnapshot *task, const MatchResult *res,
                        const Settings *base, const BoostFacts *f, Settings *s,
                        uint32_t *ret_withheld)
{
        Settings trusted = {};
        uint32_t boosts, withheld = 0;
        int r;

        *ret_withheld = 0;
        if (f->privileged)
                return 0;
        boosts = settings_boost_mask(s, f->nice_floor, f->base_slice_ns);
        if (boosts == 0)
                return 0;

        /* What the task would get from what its user cannot choose. */
        if (base && !cgroup_is_delegated(task->cgroup))
                trusted = *base;
        if (f->exe_trusted && task->names.exe) {
                TaskSnapshot view;
                MatchResult tres;
                char comm[16];

                task_snapshot_trusted_view(task, &view, comm);
                r = policy_match(p, &view, &tres, NULL);
                if (r < 0)
                        return r;
                if (tres.n_matched > 0)
                        settings_merge(&trusted, &tres.settings);
        }

        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                uint32_t bit = SETTING_BIT(id);

                if (!(boosts & bit))
                        continue;
                if (res && res->n_matched > 0 && (res->untrusted_ok & bit))
                        continue; /* the rule opted out */
                if ((trusted.mask & bit) && settings_equal_at(s, &trusted, id))
                        continue;
                withheld |= bit;
        }
        s->mask &= ~withheld;
        *ret_withheld = withheld;
        return 0;
}
