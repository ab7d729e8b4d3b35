/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/groups/group-systemd.h"
#include "lib/log.h"
#include "lib/macro.h"

void group_systemd_done(GroupSystemd *gs)
{
        free(gs->unit_path);
        *gs = (GroupSystemd){};
}

int group_systemd_find(SystemdUnits *s, const char *cgroup2_root, const SchedGroup *g,
                       GroupSystemd *ret)
{
        size_t n;
        uint64_t w;
        char *p;
        int r;

        if (!s || !cgroup2_root || g->kind != SCHED_GROUP_CGROUP2)
                return 0;
        n = strlen(cgroup2_root);
        while (n > 0 && cgroup2_root[n - 1] == '/')
                n--;
        if (strncmp(g->path, cgroup2_root, n) != 0 || g->path[n] != '/')
                return 0;
        r = systemd_units_get_weight(s, g->path + n, SYSTEMD_UNITS_OWNED, &w);
        if (r == -ENXIO)
                return 0;
        if (r < 0)
                return r;
        p = strdup(g->path + n);
        if (!p)
                return -ENOMEM;
        *ret = (GroupSystemd){ .unit_path = p, .found = w };
        return 1;
}

uint64_t group_systemd_weight(const SchedGroupState *want)
{
        return want->idle ? SYSTEMD_WEIGHT_IDLE : want->weight;
}

int group_systemd_get(SystemdUnits *s, const char *unit_path, SystemdUnitsLookup lookup,
                      char **ret)
{
        uint64_t w;
        int r;

        r = systemd_units_get_weight(s, unit_path, lookup, &w);
        if (r < 0)
                return r;
        return systemd_weight_to_string(w, ret);
}

int group_systemd_write(const char *value, void *userdata)
{
        GroupSystemdWrite *w = userdata;
        uint64_t weight;
        int r;

        r = systemd_weight_from_string(value, &weight);
        if (r < 0)
                return r;
        r = systemd_units_set_weight(w->systemd, w->unit_path, w->lookup, weight);
        if (r == -ETIMEDOUT) {
                /* Sent, unanswered: the manager may apply it yet. */
                w->unknown = true;
                return 0;
        }
        return r;
}

int group_systemd_convert(StateCgroupRecord *rec, StateCgroupRecord *ret_unit)
{
        char *p = strstr(rec->orig, " sd="), *comma;
        _cleanup_free_ char *o = NULL, *path = NULL;
        StateCgroupRecord u;
        uint64_t w;

        if (!p)
                return 0;
        comma = strchr(p + 4, ',');
        if (!comma)
                return -EINVAL;
        o = strndup(p + 4, (size_t)(comma - p - 4));
        if (!o)
                return -ENOMEM;
        if (systemd_weight_from_string(o, &w) < 0 || systemd_weight_from_string(comma + 1, &w) < 0)
                return -EINVAL;
        path = strdup(rec->path);
        if (!path)
                return -ENOMEM;
        u = (StateCgroupRecord){
                .target = STATE_TARGET_UNIT_PROPERTY,
                .owner = rec->owner,
                .kind = rec->kind,
                .path = TAKE_PTR(path),
                .ino = rec->ino,
        };
        /* Both fit: they were parts of ORIG. */
        strcpy(u.orig, o);
        strcpy(u.written, comma + 1);
        *p = 0;
        *ret_unit = u;
        return 1;
}
