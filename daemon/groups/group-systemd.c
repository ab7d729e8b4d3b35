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
        *ret = (GroupSystemd){ .unit_path = p, .orig = w, .written = w };
        return 1;
}

uint64_t group_systemd_weight(const SchedGroupState *want)
{
        return want->idle ? SYSTEMD_WEIGHT_IDLE : want->weight;
}

int group_systemd_set(SystemdUnits *s, GroupSystemd *gs, const SchedGroupState *want)
{
        uint64_t w = group_systemd_weight(want);
        int r;

        r = systemd_units_set_weight(s, gs->unit_path, SYSTEMD_UNITS_OWNED, w);
        if (r < 0)
                return r;
        gs->written = w;
        gs->set = true;
        return 0;
}

int group_systemd_still_ours(SystemdUnits *s, GroupSystemd *gs)
{
        uint64_t cur;
        int r;

        r = systemd_units_get_weight(s, gs->unit_path, SYSTEMD_UNITS_BY_NAME, &cur);
        if (r < 0)
                return r;
        return cur == gs->written;
}

int group_systemd_restore(SystemdUnits *s, GroupSystemd *gs)
{
        int r;

        if (!gs->set)
                return 0;
        r = group_systemd_still_ours(s, gs);
        if (r <= 0)
                return r;
        r = systemd_units_set_weight(s, gs->unit_path, SYSTEMD_UNITS_BY_NAME, gs->orig);
        if (r < 0)
                return r;
        gs->set = false;
        gs->written = gs->orig;
        return 1;
}

int group_systemd_format(const GroupSystemd *gs, uint64_t written, char **ret)
{
        _cleanup_free_ char *o = NULL, *w = NULL;
        int r;

        if (!gs->unit_path) {
                *ret = strdup("");
                return *ret ? 0 : -ENOMEM;
        }
        r = systemd_weight_to_string(gs->orig, &o);
        if (r >= 0)
                r = systemd_weight_to_string(written, &w);
        if (r < 0)
                return r;
        return asprintf(ret, " sd=%s,%s", o, w) < 0 ? -ENOMEM : 0;
}

int group_systemd_parse(const char *v, const char *unit_path, GroupSystemd *gs)
{
        _cleanup_free_ char *o = NULL;
        const char *p = strstr(v, " sd="), *comma;
        uint64_t orig, written;

        if (!p)
                return 0;
        p += strlen(" sd=");
        comma = strchr(p, ',');
        if (!comma)
                return -EINVAL;
        o = strndup(p, comma - p);
        if (!o)
                return -ENOMEM;
        if (systemd_weight_from_string(o, &orig) < 0 ||
            systemd_weight_from_string(comma + 1, &written) < 0)
                return -EINVAL;
        gs->unit_path = strdup(unit_path);
        if (!gs->unit_path)
                return -ENOMEM;
        gs->orig = orig;
        gs->written = written;
        gs->set = true;
        return 1;
}
