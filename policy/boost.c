/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/task-attr.h"
#include "lib/macro.h"
#include "policy/boost.h"

uint32_t settings_rt_mask(const Settings *s)
{
        if (!settings_has(s, SETTING_POLICY) || !sched_policy_is_rt(s->policy))
                return settings_has(s, SETTING_REALTIME_PRIORITY)
                               ? SETTING_BIT(SETTING_REALTIME_PRIORITY)
                               : 0;
        return SETTING_BIT(SETTING_POLICY) | (s->mask & SETTING_BIT(SETTING_REALTIME_PRIORITY));
}

uint32_t settings_boost_mask(const Settings *s, int nice_floor, uint64_t base_slice_ns)
{
        SchedState ref;
        uint32_t m = 0;

        /* A task attribute: what its descriptor calls a boost over the
         * defaults (lib/task-attr.c), the same definition as for SetTask. */
        task_attr_boost_reference(nice_floor, &ref);
        TASK_ATTR_FOREACH(a)
                if (a->boost && settings_has(s, a->id) &&
                    a->boost(s, &ref, base_slice_ns, 0, NULL) > 0)
                        m |= SETTING_BIT(a->id);
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
        v.trusted_view = true; /* and nothing else its user chose (policy/keys.c) */
        if (cgroup_is_delegated(task->cgroup)) {
                v.cgroup = NULL;
                v.unit = NULL;
                v.pod = NULL;
        }
        *ret = v;
}

int policy_limit_boosts(const Policy *p, const TaskSnapshot *task, const MatchResult *res,
                        const Settings *base, const BoostFacts *f, Settings *s,
                        uint32_t *ret_withheld)
{
        Settings trusted = {}, by_exe = {};
        uint32_t boosts, withheld = 0, rt;
        int r;

        *ret_withheld = 0;
        if (f->privileged)
                return 0;
        boosts = settings_boost_mask(s, f->nice_floor, f->base_slice_ns);
        if (boosts == 0)
                return 0;
        rt = settings_rt_mask(s);

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
                if (tres.n_matched > 0) {
                        settings_merge(&trusted, &tres.settings);
                        by_exe = tres.settings;
                }
        }

        for (SettingId id = 0; id < _SETTING_MAX; id++) {
                uint32_t bit = SETTING_BIT(id);

                if (!(boosts & bit))
                        continue;
                if (rt & bit) {
                        /* Real time: only what the trusted executable's
                         * own rules grant, never opted out of. */
                        if ((by_exe.mask & bit) && settings_equal_at(s, &by_exe, id))
                                continue;
                        withheld |= bit;
                        continue;
                }
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

uint32_t policy_trusted_boosts(const MatchResult *res, const BoostFacts *f, const Settings *s)
{
        uint32_t m;

        if (f->privileged)
                return 0;
        m = settings_boost_mask(s, f->nice_floor, f->base_slice_ns);
        if (res && res->n_matched > 0)
                m &= ~(res->untrusted_ok & ~settings_rt_mask(s));
        return m;
}

void policy_withhold_tampered(const MatchResult *res, const BoostFacts *f, Settings *s,
                              uint32_t *ret_withheld)
{
        uint32_t m = 0;

        if (f->tampered)
                m = policy_trusted_boosts(res, f, s);
        s->mask &= ~m;
        *ret_withheld = m;
}

/* Is NAME (a comm, cut to 15 bytes by the kernel) not EXE's name? */
static bool comm_differs(const char *comm, const char *exe)
{
        return comm && exe && strncmp(comm, exe, 15) != 0;
}

int policy_name_reason(const Policy *p, const TaskSnapshot *task, const MatchResult *res,
                       uint32_t withheld, char **ret)
{
        bool comm_other, argv0_other;
        TaskSnapshot view;
        MatchResult nres;
        char comm[16];
        int r;

        *ret = NULL;
        if (!task->names.exe || withheld == 0 || !res)
                return 0;
        comm_other = comm_differs(task->names.comm, task->names.exe);
        argv0_other = task->names.argv0 && !streq(task->names.argv0, task->names.exe);
        if (!comm_other && !argv0_other)
                return 0;
        /* The trusted view with the task's own names back: do the rules grant
         * the withheld values now? Then the names made the difference. */
        task_snapshot_trusted_view(task, &view, comm);
        view.names.comm = task->names.comm;
        view.names.argv0 = task->names.argv0;
        r = policy_match(p, &view, &nres, NULL);
        if (r < 0)
                return r;
        if (nres.n_matched == 0)
                return 0;
        for (SettingId id = 0; id < _SETTING_MAX; id++)
                if ((withheld & SETTING_BIT(id)) &&
                    (!(nres.settings.mask & SETTING_BIT(id)) ||
                     !settings_equal_at(&nres.settings, &res->settings, id)))
                        return 0;
        if (comm_other && argv0_other && !streq(task->names.comm, task->names.argv0))
                r = asprintf(ret, "the executable's name (%s) differs from the rule's (%s as "
                             "its comm, %s as its argv[0])", task->names.exe, task->names.comm,
                             task->names.argv0);
        else
                r = asprintf(ret, "the executable's name (%s) differs from the rule's (%s, "
                             "matched as its %s)", task->names.exe,
                             comm_other ? task->names.comm : task->names.argv0,
                             comm_other && argv0_other ? "comm and argv[0]"
                             : comm_other              ? "comm"
                                                       : "argv[0]");
        if (r < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return 1;
}
