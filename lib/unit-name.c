/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit names (see unit-name.h for which types and why).
 */
#include <string.h>

#include "lib/macro.h"
#include "lib/unit-name.h"

static const char *const unit_suffixes[_UNIT_TYPE_MAX] = {
        [UNIT_SERVICE] = ".service",
        [UNIT_SCOPE] = ".scope",
        [UNIT_SLICE] = ".slice",
        [UNIT_SOCKET] = ".socket",
        [UNIT_MOUNT] = ".mount",
        [UNIT_SWAP] = ".swap",
};

UnitType unit_type_from_name(const char *name, size_t n)
{
        for (UnitType t = 0; t < _UNIT_TYPE_MAX; t++) {
                size_t sl = strlen(unit_suffixes[t]);

                if (n > sl && memcmp(name + n - sl, unit_suffixes[t], sl) == 0)
                        return t;
        }
        return _UNIT_TYPE_INVALID;
}

bool unit_name_is_valid(const char *name)
{
        static const char allowed[] =
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:_.\\@-";
        size_t n;

        if (!name)
                return false;
        n = strnlen(name, UNIT_NAME_MAX + 1);
        if (n == 0 || n > UNIT_NAME_MAX || strspn(name, allowed) != n)
                return false;
        return unit_type_from_name(name, n) >= 0;
}

int unit_name_from_cgroup_path(const char *cgroup, char **ret)
{
        const char *best = NULL;
        size_t best_len = 0;
        char *s;

        if (!cgroup)
                return -ENXIO;
        for (const char *p = cgroup; *p;) {
                size_t n;
                UnitType t;

                p += strspn(p, "/");
                n = strcspn(p, "/");
                t = unit_type_from_name(p, n);
                if (t >= 0 && t != UNIT_SLICE) {
                        best = p;
                        best_len = n;
                }
                p += n;
        }
        if (!best)
                return -ENXIO;
        s = strndup(best, best_len);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}
