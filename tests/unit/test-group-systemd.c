/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/groups/group-systemd.c without a systemd: which groups are
 * asked about at all (only cgroup2 cgroups below the cgroup2 root, and only
 * with a manager), the CPUWeight= a group state asks for, and the state-file
 * suffix, written and read back, with malformed ones refused. The calls to a
 * real manager are checked in the systemd VM (kernel/vm-systemd). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/groups/group-systemd.h"
#include "lib/macro.h"
#include "test-util.h"

static void test_find_without_manager(void)
{
        SchedGroup g = { .kind = SCHED_GROUP_CGROUP2, .path = (char *)"/sys/fs/cgroup/a.scope" };
        GroupSystemd gs = {};

        /* No manager, a v1 group, an autogroup, a path outside the root:
         * files, and no call. */
        check(group_systemd_find(NULL, "/sys/fs/cgroup", &g, &gs) == 0);
        g.kind = SCHED_GROUP_CGROUP1;
        check(group_systemd_find(NULL, "/sys/fs/cgroup", &g, &gs) == 0);
        g.kind = SCHED_GROUP_AUTOGROUP;
        check(group_systemd_find(NULL, "/sys/fs/cgroup", &g, &gs) == 0);
        check(gs.unit_path == NULL);
}

static void test_weight(void)
{
        SchedGroupState idle = { .weight = 200, .idle = true };
        SchedGroupState w = { .weight = 20 };

        check(group_systemd_weight(&idle) == SYSTEMD_WEIGHT_IDLE);
        check(group_systemd_weight(&w) == 20);
}

static void roundtrip(uint64_t orig, uint64_t written, const char *want)
{
        GroupSystemd gs = { .unit_path = (char *)"/user.slice/x.scope", .orig = orig };
        GroupSystemd back = {};
        _cleanup_free_ char *s = NULL, *rec = NULL;

        CHECK(group_systemd_format(&gs, written, &s) == 0);
        check_streq(s, want);
        /* As groups.c records it: after the file state "weight idle nice". */
        CHECK(asprintf(&rec, "100 1 0%s", s) > 0);
        check(strlen(rec) < 32); /* STATE_VALUE_MAX */
        check(group_systemd_parse(rec, "/user.slice/x.scope", &back) == 1);
        check_streq(back.unit_path, "/user.slice/x.scope");
        check(back.orig == orig);
        check(back.written == written);
        check(back.set);
        group_systemd_done(&back);
}

static void test_suffix(void)
{
        GroupSystemd files = {}, gs = {};
        _cleanup_free_ char *s = NULL;

        roundtrip(SYSTEMD_WEIGHT_UNSET, SYSTEMD_WEIGHT_IDLE, " sd=default,idle");
        roundtrip(10000, 1, " sd=10000,1");
        roundtrip(SYSTEMD_WEIGHT_IDLE, SYSTEMD_WEIGHT_UNSET, " sd=idle,default");

        /* Not a unit's: no suffix, and a record without one parses as none. */
        CHECK(group_systemd_format(&files, 20, &s) == 0);
        check_streq(s, "");
        check(group_systemd_parse("100 0 0", "/a.scope", &gs) == 0);
        check(gs.unit_path == NULL);

        /* Malformed: refused, nothing taken. */
        static const char *const bad[] = {
                "100 1 0 sd=", "100 1 0 sd=idle", "100 1 0 sd=idle,", "100 1 0 sd=,idle",
                "100 1 0 sd=idle,x", "100 1 0 sd=-1,idle", "100 1 0 sd=idle,10001",
                "100 1 0 sd=99999999999999999999999,idle",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                if (group_systemd_parse(bad[i], "/a.scope", &gs) != -EINVAL)
                        test_fail("accepted: \"%s\"", bad[i]);
                check(gs.unit_path == NULL);
        }
}

int main(void)
{
        test_find_without_manager();
        test_weight();
        test_suffix();
        return test_result();
}
