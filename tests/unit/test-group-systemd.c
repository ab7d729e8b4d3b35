/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/groups/group-systemd.c without a systemd: which groups are
 * asked about at all (only cgroup2 cgroups below the cgroup2 root, and only
 * with a manager), the CPUWeight= a group state asks for, and the
 * conversion of a previous latniced's record (the unit's CPUWeight= as a
 * suffix of the group's original) into the group's record and a unit
 * property record, with malformed ones refused. The calls to a real
 * manager are checked in the systemd VM (kernel/vm-systemd), taking over
 * converted records in test-group-ledger. */
#include <errno.h>
#include <stdio.h>
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

/* A record of a latniced before unit property records: ORIG carries the
 * unit's CPUWeight= as " sd=ORIG,WRITTEN". */
static StateCgroupRecord old_record(const char *orig)
{
        StateCgroupRecord rec = {
                .slot = 7,
                .target = STATE_TARGET_CGROUP_FILE,
                .owner = STATE_CGROUP_GROUPS,
                .kind = SCHED_GROUP_CGROUP2,
                .path = (char *)"/sys/fs/cgroup/user.slice/x.scope",
                .ino = 4242,
                .written = "50 0 0",
                .previous = "70 0 0",
        };

        snprintf(rec.orig, sizeof(rec.orig), "%s", orig);
        return rec;
}

static void converts(const char *orig, const char *state, const char *unit_orig,
                     const char *unit_written)
{
        StateCgroupRecord rec = old_record(orig), u = {};

        check(group_systemd_convert(&rec, &u) == 1);
        /* The group's record: its state alone, the rest as it was. */
        check_streq(rec.orig, state);
        check_streq(rec.written, "50 0 0");
        check_streq(rec.previous, "70 0 0");
        check(rec.target == STATE_TARGET_CGROUP_FILE);
        /* The unit's: a record of its own, of the same group. */
        check(u.target == STATE_TARGET_UNIT_PROPERTY);
        check(u.owner == STATE_CGROUP_GROUPS);
        check(u.kind == SCHED_GROUP_CGROUP2);
        check_streq(u.path, rec.path);
        check(u.path != rec.path);
        check(u.ino == 4242);
        check_streq(u.orig, unit_orig);
        check_streq(u.written, unit_written);
        check_streq(u.previous, "");
        free(u.path);
}

static void test_convert(void)
{
        converts("100 0 0 sd=default,idle", "100 0 0", "default", "idle");
        converts("100 1 0 sd=10000,1", "100 1 0", "10000", "1");
        converts("20 0 0 -5 sd=idle,default", "20 0 0 -5", "idle", "default");

        /* Not a unit's (no suffix): nothing to convert, nothing touched. */
        {
                StateCgroupRecord rec = old_record("100 0 0 -3"), u = {};

                check(group_systemd_convert(&rec, &u) == 0);
                check_streq(rec.orig, "100 0 0 -3");
                check(u.path == NULL);
        }

        /* Malformed: refused, the record as it was, no unit record. */
        static const char *const bad[] = {
                "100 1 0 sd=", "100 1 0 sd=idle", "100 1 0 sd=idle,", "100 1 0 sd=,idle",
                "100 1 0 sd=idle,x", "100 1 0 sd=-1,idle", "100 1 0 sd=idle,10001",
                "1 0 0 sd=99999999999999999999,1", /* 2^64 and more */
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                StateCgroupRecord rec = old_record(bad[i]), u = {};

                if (group_systemd_convert(&rec, &u) != -EINVAL)
                        test_fail("accepted: \"%s\"", bad[i]);
                check_streq(rec.orig, bad[i]);
                check(u.path == NULL);
        }
}

int main(void)
{
        test_find_without_manager();
        test_weight();
        test_convert();
        return test_result();
}
