/* SPDX-License-Identifier: GPL-2.0-or-later */
/* GroupScopes: a systemd scope of its own for a matched process (see the header). */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/groups/group-scope.h"
#include "lib/hashmap.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/trust.h"

/* A user's budget: CREDIT usec of scopes (one costs GROUP_SCOPE_INTERVAL_USEC)
 * as of LAST. */
typedef struct ScopeBudget {
        uid_t uid;
        uint64_t credit;
        uint64_t last;
        bool refusal_logged; /* since its last scope: one line per empty budget */
} ScopeBudget;

struct GroupScopes {
        ScopeBudget *budgets;
        size_t n_budgets;
        Hashmap *logged; /* unit cgroups whose refusal was logged */
};

#define BUDGET_FULL ((uint64_t)GROUP_SCOPE_BURST * GROUP_SCOPE_INTERVAL_USEC)

int group_scopes_new(GroupScopes **ret)
{
        GroupScopes *g = calloc(1, sizeof(GroupScopes));

        if (!g)
                return -ENOMEM;
        *ret = g;
        return 0;
}

GroupScopes *group_scopes_free(GroupScopes *g)
{
        if (!g)
                return NULL;
        free(g->budgets);
        hashmap_free(g->logged);
        free(g);
        return NULL;
}

int group_scope_name(pid_t pid, uint64_t starttime, char **ret)
{
        return asprintf(ret, GROUP_SCOPE_PREFIX "%" PRIu64 "-%d.scope", starttime, (int)pid) < 0
                       ? -ENOMEM
                       : 0;
}

bool group_scope_is_ours(const char *cgroup_path)
{
        const char *leaf = strrchr(cgroup_path, '/');
        size_t n;

        leaf = leaf ? leaf + 1 : cgroup_path;
        n = strlen(leaf);
        return strncmp(leaf, GROUP_SCOPE_PREFIX, strlen(GROUP_SCOPE_PREFIX)) == 0 &&
               n > strlen(GROUP_SCOPE_PREFIX ".scope") && streq(leaf + n - 6, ".scope");
}

/* Is UNIT_CGROUP below UID's own user-UID.slice? */
static bool in_user_slice(const char *unit_cgroup, uid_t uid)
{
        _cleanup_free_ char *prefix = NULL;

        if (asprintf(&prefix, "/user.slice/user-%u.slice/", (unsigned)uid) < 0)
                return false;
        return strncmp(unit_cgroup, prefix, strlen(prefix)) == 0;
}

int group_scope_permitted(uid_t uid, const char *unit_cgroup, const char **ret_reason)
{
        uid_t owner;
        int r;

        r = systemd_units_cgroup_owner(unit_cgroup, &owner);
        if (r < 0)
                return r;
        if (uid == 0 || owner == uid || (owner == (uid_t)-1 && in_user_slice(unit_cgroup, uid)))
                return 1;
        *ret_reason = owner == (uid_t)-1
                              ? "the system manager's unit, outside the user's own user-UID.slice"
                              : "a unit of another user's service manager";
        return 0;
}

/* What B holds at NOW: nothing while paused (LAST ahead), then its credit
 * plus what came in since, at most full. */
static uint64_t budget_level(const ScopeBudget *b, uint64_t now)
{
        if (now <= b->last)
                return now < b->last ? 0 : b->credit;
        return now - b->last >= BUDGET_FULL - b->credit ? BUDGET_FULL
                                                        : b->credit + (now - b->last);
}

static ScopeBudget *budget_of(GroupScopes *g, uid_t uid, uint64_t now)
{
        ScopeBudget *b, *a;

        for (size_t i = 0; i < g->n_budgets; i++)
                if (g->budgets[i].uid == uid)
                        return &g->budgets[i];
        if (g->n_budgets == GROUP_SCOPE_USERS_MAX) {
                /* The fullest budget, counted as of NOW, makes room. */
                b = &g->budgets[0];
                for (size_t i = 1; i < g->n_budgets; i++)
                        if (budget_level(&g->budgets[i], now) > budget_level(b, now))
                                b = &g->budgets[i];
        } else {
                a = realloc(g->budgets, (g->n_budgets + 1) * sizeof(ScopeBudget));
                if (!a)
                        return NULL;
                g->budgets = a;
                b = &g->budgets[g->n_budgets++];
        }
        *b = (ScopeBudget){ .uid = uid, .credit = BUDGET_FULL, .last = now };
        return b;
}

bool group_scopes_take(GroupScopes *g, uid_t uid, uint64_t now)
{
        ScopeBudget *b = budget_of(g, uid, now);

        if (!b)
                return false;
        if (now > b->last) {
                b->credit = budget_level(b, now);
                b->last = now;
        }
        if (now < b->last || b->credit < GROUP_SCOPE_INTERVAL_USEC)
                return false;
        b->credit -= GROUP_SCOPE_INTERVAL_USEC;
        b->refusal_logged = false;
        return true;
}

void group_scopes_pause(GroupScopes *g, uid_t uid, uint64_t now)
{
        ScopeBudget *b = budget_of(g, uid, now);

        if (!b)
                return;
        b->credit = 0;
        b->last = now + GROUP_SCOPE_PAUSE_USEC;
}

/* Log REASON for UNIT_CGROUP, once per unit. */
_printf_(3, 4) static void refusal_log(GroupScopes *g, const char *unit_cgroup, const char *fmt,
                                       ...)
{
        _cleanup_free_ char *text = NULL;
        va_list ap;
        int r;

        if (g->logged && hashmap_get(g->logged, unit_cgroup))
                return;
        if (g->logged && hashmap_size(g->logged) >= GROUP_SCOPE_LOGGED_MAX)
                g->logged = hashmap_free(g->logged);
        if (!g->logged && hashmap_new(&g->logged) < 0)
                return;
        (void)hashmap_put(g->logged, unit_cgroup, (void *)1);
        va_start(ap, fmt);
        r = vasprintf(&text, fmt, ap);
        va_end(ap);
        if (r < 0)
                return;
        log_info("%s: %s; the group settings of GroupScope=own rules are left out there "
                 "(logged once per unit).",
                 unit_cgroup, text);
}

/* Is PID (STARTTIME) in the cgroup CGROUP (relative) now? */
static int scope_holds(const SchedGroupRoots *roots, const char *proc_root, pid_t pid,
                       uint64_t starttime, const char *cgroup)
{
        _cleanup_free_ char *want = NULL;
        SchedGroup now = {};
        uint64_t st;
        bool in;
        int r;

        r = sched_group_cgroup2_of(roots, proc_root, pid, &now);
        if (r <= 0)
                return r == -ENOMEM ? r : 0;
        if (asprintf(&want, "%s%s", roots->cgroup2, cgroup) < 0) {
                sched_group_done(&now);
                return -ENOMEM;
        }
        in = streq(now.path, want);
        sched_group_done(&now);
        if (!in || proc_starttime(proc_root, pid, 0, &st) < 0 || st != starttime)
                return 0;
        return 1;
}

int group_scope_make(GroupScopes *g, SystemdUnits *s, const SchedGroupRoots *roots,
                     const char *proc_root, pid_t pid, uint64_t starttime,
                     const char *unit_cgroup, uint64_t weight, char **ret_cgroup)
{
        _cleanup_free_ char *name = NULL, *description = NULL, *cg = NULL, *reason = NULL;
        const char *why = NULL;
        uint64_t t0, refused;
        uid_t uid;
        int r;

        r = proc_real_uid(proc_root, pid, &uid);
        if (r < 0)
                return r == -ENOMEM ? r : 0; /* gone */
        r = group_scope_permitted(uid, unit_cgroup, &why);
        if (r < 0) {
                refusal_log(g, unit_cgroup, "not a unit's cgroup (no unit type in its name)");
                return 0;
        }
        if (r == 0) {
                refusal_log(g, unit_cgroup, "no scope of its own for process %d of uid %u: %s",
                            (int)pid, (unsigned)uid, why);
                return 0;
        }
        if (!group_scopes_take(g, uid, now_usec(CLOCK_MONOTONIC))) {
                ScopeBudget *b = budget_of(g, uid, now_usec(CLOCK_MONOTONIC));

                if (!b || b->refusal_logged)
                        return 0;
                b->refusal_logged = true;
                log_info("%s: no scope of its own for process %d: uid %u asked for more than "
                         "%u within %" PRIu64 " s, or its manager did not answer; group settings "
                         "are left out until it has one again (said once).",
                         unit_cgroup, (int)pid, (unsigned)uid, GROUP_SCOPE_BURST,
                         (uint64_t)GROUP_SCOPE_BURST * GROUP_SCOPE_INTERVAL_USEC / USEC_PER_SEC);
                return 0;
        }
        r = group_scope_name(pid, starttime, &name);
        if (r < 0)
                return r;
        if (asprintf(&description, "latnice: process %d on its own, out of %s", (int)pid,
                     unit_cgroup) < 0)
                return -ENOMEM;
        t0 = now_usec(CLOCK_MONOTONIC);
        refused = systemd_units_refusals(s);
        r = systemd_units_start_scope(s,
                                      &(SystemdScopeRequest){ .unit_cgroup = unit_cgroup,
                                                              .name = name,
                                                              .description = description,
                                                              .pid = pid,
                                                              .weight = weight },
                                      &cg, &reason);
        if (r == -ENOMEM)
                return r;
        if (r == -ENXIO) {
                refusal_log(g, unit_cgroup, "no systemd manager has a unit with this cgroup");
                return 0;
        }
        if (r == -EBUSY) {
                refusal_log(g, unit_cgroup, "process %d: %s", (int)pid, strna(reason));
                return 0;
        }
        if (r < 0) {
                /* A user's manager that systemd-units.c paused: it tells
                 * the end of the pause, and the request comes again then. */
                bool pause = r != -EREMOTEIO && systemd_units_refusals(s) == refused;

                if (pause)
                        group_scopes_pause(g, uid, now_usec(CLOCK_MONOTONIC));
                log_warning("%s: cannot make %s for process %d: %s; its group settings are left "
                            "out%s%u%s.",
                            unit_cgroup, name, (int)pid, reason ?: strerror(-r),
                            pause ? ", and no scope is asked for uid " : " for now (uid ",
                            (unsigned)uid, pause ? " for a minute" : ")");
                return 0;
        }
        r = scope_holds(roots, proc_root, pid, starttime, cg);
        if (r <= 0) {
                if (r == 0)
                        log_warning("%s: process %d is not in it after its start job (gone, or "
                                    "moved again); its group settings are left out.",
                                    name, (int)pid);
                return r;
        }
        log_info("%s: process %d on its own, out of %s (GroupScope=own, %" PRIu64 " ms).", cg,
                 (int)pid, unit_cgroup, (now_usec(CLOCK_MONOTONIC) - t0) / 1000);
        *ret_cgroup = TAKE_PTR(cg);
        return 1;
}
