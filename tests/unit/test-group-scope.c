/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/groups/group-scope.c without a systemd: the scope's name,
 * which cgroups are latniced's scopes, who may get a scope from which
 * manager, and the per-user budget. Making a scope through a real manager
 * is checked in the systemd VM (kernel/vm-systemd, group-own-scope). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/groups/group-scope.h"
#include "lib/macro.h"
#include "test-util.h"

#define USER "/user.slice/user-1000.slice/user@1000.service"

static void test_name(void)
{
        _cleanup_free_ char *n = NULL;

        check(group_scope_name(4242, 123456, &n) == 0);
        check_streq(n, "latnice-123456-4242.scope");
        check(group_scope_is_ours(n));
        check(group_scope_is_ours(USER "/app.slice/latnice-1-2.scope"));
        check(!group_scope_is_ours(USER "/app.slice/vmt-shell.scope"));
        check(!group_scope_is_ours(USER "/app.slice/latnice-1-2.service"));
        check(!group_scope_is_ours(USER "/latnice-1-2.scope/sub"));
        check(!group_scope_is_ours("/latnice-.scope"));
        check(!group_scope_is_ours("/xlatnice-1.scope"));
}

static void test_owner(void)
{
        uid_t uid = 0;

        check(systemd_units_cgroup_owner(USER "/app.slice/a.scope", &uid) == 0 && uid == 1000);
        check(systemd_units_cgroup_owner("/system.slice/cron.service", &uid) == 0 &&
              uid == (uid_t)-1);
        /* user@UID.service itself is the system manager's unit. */
        check(systemd_units_cgroup_owner(USER, &uid) == 0 && uid == (uid_t)-1);
        check(systemd_units_cgroup_owner("/user.slice/user-1000.slice/session-2.scope", &uid) ==
                      0 &&
              uid == (uid_t)-1);
        check(systemd_units_cgroup_owner("/machine/payload", &uid) == -ENXIO);
}

static void test_permitted(void)
{
        const char *why = NULL;

        /* Her own manager's units; her own login session (system manager,
         * her own slice). */
        check(group_scope_permitted(1000, USER "/app.slice/a.scope", &why) == 1);
        check(group_scope_permitted(1000, "/user.slice/user-1000.slice/session-2.scope", &why) ==
              1);
        check(why == NULL);
        /* Someone else's: a system service, another user's session or
         * manager, a slice that only starts like hers. */
        check(group_scope_permitted(1000, "/system.slice/cron.service", &why) == 0 && why);
        why = NULL;
        check(group_scope_permitted(1000, "/user.slice/user-1001.slice/session-3.scope", &why) ==
                      0 &&
              why);
        why = NULL;
        check(group_scope_permitted(1000, "/user.slice/user-10000.slice/session-3.scope", &why) ==
                      0 &&
              why);
        why = NULL;
        check(group_scope_permitted(1001, USER "/app.slice/a.scope", &why) == 0 && why);
        /* root's processes: either. */
        check(group_scope_permitted(0, "/system.slice/cron.service", &why) == 1);
        check(group_scope_permitted(0, USER "/app.slice/a.scope", &why) == 1);
        check(group_scope_permitted(1000, "/not/a/unit", &why) == -ENXIO);
}

static void test_budget(void)
{
        _cleanup_(group_scopes_freep) GroupScopes *g = NULL;
        uint64_t t = 1000 * USEC_PER_SEC;
        unsigned n = 0;

        check(group_scopes_new(&g) == 0);
        while (group_scopes_take(g, 1000, t))
                if (++n > 100)
                        break;
        check(n == GROUP_SCOPE_BURST);
        /* Someone else's budget is their own. */
        check(group_scopes_take(g, 1001, t));
        /* One more per interval, not before. */
        check(!group_scopes_take(g, 1000, t + GROUP_SCOPE_INTERVAL_USEC - 1));
        check(group_scopes_take(g, 1000, t + GROUP_SCOPE_INTERVAL_USEC));
        check(!group_scopes_take(g, 1000, t + GROUP_SCOPE_INTERVAL_USEC));
        /* Long after, the burst again, and no more. */
        t += 3600 * USEC_PER_SEC;
        for (n = 0; group_scopes_take(g, 1000, t) && n <= 100;)
                n++;
        check(n == GROUP_SCOPE_BURST);
        /* A full table: new users still get theirs (a full budget makes
         * room), and user 1000's empty one is not the one forgotten. */
        for (uid_t u = 2000; u < 2000 + 2 * GROUP_SCOPE_USERS_MAX; u++)
                if (!group_scopes_take(g, u, t))
                        test_fail("uid %u got no scope", (unsigned)u);
        check(!group_scopes_take(g, 1000, t));

        /* A manager that did not answer: nothing for a minute, whatever
         * was left, then one per interval again; the paused budget is not
         * the one a full table forgets. */
        t += 3600 * USEC_PER_SEC;
        check(group_scopes_take(g, 1001, t));
        group_scopes_pause(g, 1001, t);
        check(!group_scopes_take(g, 1001, t + GROUP_SCOPE_PAUSE_USEC - 1));
        for (uid_t u = 5000; u < 5000 + 2 * GROUP_SCOPE_USERS_MAX; u++)
                (void)group_scopes_take(g, u, t + 1);
        check(!group_scopes_take(g, 1001, t + GROUP_SCOPE_PAUSE_USEC));
        check(group_scopes_take(g, 1001, t + GROUP_SCOPE_PAUSE_USEC + GROUP_SCOPE_INTERVAL_USEC));
}

int main(void)
{
        test_name();
        test_owner();
        test_permitted();
        test_budget();
        return test_result();
}
