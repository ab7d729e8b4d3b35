/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test of a rule group's ledger claims after a crash
 * (daemon/groups/group-ledger.c, group_table_attach_state()): a state file
 * that a previous latniced left, with the record of a unit's group in its old form
 * (the unit's CPUWeight= as " sd=ORIG,WRITTEN" after the group's original),
 * is converted into the group's record and a unit property record, and
 * taken over by the ledger's rule; giving back then sets the unit's
 * original CPUWeight= through its manager. A stand-in user manager
 * (standin-manager.h) holds the unit of a real cgroup2 cgroup named like an
 * app scope, and reports the CPUWeight= it is set to. Cases: the unit still has what the dead latniced set
 * (taken over; given back on restore); someone else set it meanwhile
 * (theirs: dropped, nothing set); the cgroup is gone (given back at once);
 * the give-back at the stop is answered after the manager's timeout,
 * carried out (late) or not (lost): not counted as restored, the unit's
 * record stays, and the next latniced finds the original (late: the record
 * goes) or latniced's value (lost: given back then).
 * Needs root and a cgroup2 mount (skipped otherwise).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/groups/groups.h"
#include "daemon/groups/systemd-units.h"
#include "daemon/state/state-file.h"
#include "lib/macro.h"
#include "lib/sched-group.h"
#include "standin-case.h"
#include "test-util.h"

static char run[] = "/tmp/test-group-ledger.XXXXXX";
static char state_path[sizeof(run) + 16];

/* A state file as a previous latniced (before unit property records) left
 * it: the group at DIR (INO) went from "100 0 0" to "50 0 0", through its
 * unit's CPUWeight= (systemd's default before, 50 written). */
static void old_state_file(const char *dir, uint64_t ino)
{
        StateCgroupRecord rec = {
                .target = STATE_TARGET_CGROUP_FILE,
                .owner = STATE_CGROUP_GROUPS,
                .kind = SCHED_GROUP_CGROUP2,
                .path = (char *)dir,
                .ino = ino,
                .orig = "100 0 0 sd=default,50",
                .written = "50 0 0",
        };
        StateFileLoad l = {};
        StateFile *f = NULL;
        uint32_t slot1 = 0;

        (void)unlink(state_path);
        CHECK(state_file_open(state_path, &f, &l) == 0);
        state_file_load_done(&l);
        CHECK(state_file_cgroup_put(f, &slot1, &rec) == 0);
        state_file_free(f);
}

typedef enum Case {
        CASE_OURS,   /* the unit still has CPUWeight=50 */
        CASE_THEIRS, /* someone else set 70 meanwhile */
        CASE_GONE,   /* the cgroup is gone; the unit keeps 50 */
        CASE_LATE,   /* CASE_OURS, the give-back at the stop answered late */
        CASE_LOST,   /* ... and not carried out */
} Case;

/* Much longer than a user manager's call timeout (0.5 s). */
#define SLOW_ANSWER_USEC (1500 * 1000)
/* Only a hang's bound. */
#define GUARD_MSEC 45000

/*
 * CASE_LATE, CASE_LOST: the give-back at the stop (group_table_restore_all())
 * timed out. It is not counted as restored, and the unit's record stays,
 * written, not yet known. The next latniced settles it by the ledger's
 * rule: the unit has its original again (late: the record goes, nothing
 * written) or still 50 (lost: given back now).
 */
static void next_latniced(SystemdUnits **s, GroupTable **t, StateFile **f, Case c, int report,
                          char *seen, size_t size)
{
        const char *unset = "SetUnitProperties app-b.scope 18446744073709551615\n";
        StateFileLoad l = {};

        check(group_table_restore_all(*t) == 0);
        check(state_file_cgroup_n_used(*f) == 1);
        if (!standin_wait_report(report, seen, size,
                                 c == CASE_LATE ? unset : "Lost app-b.scope 18446744073709551615\n",
                                 GUARD_MSEC))
                test_fail("the slow give-back never came; the stand-in got:\n%s", seen);
        *t = group_table_free(*t);
        *f = state_file_free(*f);
        *s = systemd_units_free(*s); /* the stand-in serves one connection at a time */

        CHECK(systemd_units_new(run, s) == 0);
        CHECK(state_file_open(state_path, f, &l) == 0);
        state_file_load_done(&l);
        CHECK(group_table_new("/proc", false, *s, t) == 0);
        CHECK(group_table_attach_state(*t, *f) == 0);
        check(group_table_size(*t) == 0);
        check(state_file_cgroup_n_used(*f) == 0);
        if (c == CASE_LOST)
                (void)standin_wait_report(report, seen, size, unset, GUARD_MSEC);
        else
                standin_reports(report, seen, size);
        /* Once in all: the late give-back's own, or the next latniced's. */
        if (standin_count(seen, unset) != 1)
                test_fail("%s: CPUWeight= given back %u times in all; the stand-in got:\n%s",
                          c == CASE_LOST ? "lost" : "late", standin_count(seen, unset), seen);
        group_table_free(*t);
        *t = NULL;
}

static void run_case(const char *cgroup2, Case c)
{
        _cleanup_(systemd_units_freep) SystemdUnits *s = NULL;
        unsigned uid = standin_case_uid();
        const char *unset = "SetUnitProperties app-b.scope 18446744073709551615\n";
        StateFileLoad l = {};
        StateFile *f = NULL;
        GroupTable *t = NULL;
        StandInCase sc;
        struct stat st;

        standin_case_begin(&sc, cgroup2,
                           "/latnice-test-ledger-%d-%d.slice/user@%u.service/app.slice/app-b.scope",
                           (int)getpid(), (int)c, uid);
        CHECK(stat(sc.dir, &st) == 0);
        old_state_file(sc.dir, st.st_ino);
        if (c == CASE_GONE)
                CHECK(rmdir(sc.dir) == 0);
        CHECK(systemd_units_new(run, &s) == 0);
        standin_case_start(&sc, (StandInOptions){ .run = run, .uid = uid,
                                                  .weight = c == CASE_THEIRS ? 70 : 50,
                                                  .slow_member = c >= CASE_LATE
                                                                         ? "SetUnitProperties"
                                                                         : NULL,
                                                  .slow_usec = SLOW_ANSWER_USEC,
                                                  .slow_lost = c == CASE_LOST });

        CHECK(state_file_open(state_path, &f, &l) == 0);
        state_file_load_done(&l);
        check(state_file_cgroup_n_used(f) == 1);
        CHECK(group_table_new("/proc", false, s, &t) == 0);
        CHECK(group_table_attach_state(t, f) == 0);
        standin_case_reports(&sc);
        switch (c) {
        case CASE_OURS:
                /* Taken over: the group's record and its unit's. */
                check(group_table_size(t) == 1);
                check(state_file_cgroup_n_used(f) == 2);
                check_streq(sc.seen, "");
                /* Given back through the manager; the records end. */
                check(group_table_restore_all(t) == 1);
                standin_case_reports(&sc);
                check_streq(sc.seen, unset);
                check(state_file_cgroup_n_used(f) == 0);
                break;
        case CASE_THEIRS:
                check(group_table_size(t) == 0);
                check(state_file_cgroup_n_used(f) == 0);
                check(group_table_restore_all(t) == 0);
                standin_case_reports(&sc);
                check_streq(sc.seen, "");
                break;
        case CASE_GONE:
                check(group_table_size(t) == 0);
                check(state_file_cgroup_n_used(f) == 0);
                check_streq(sc.seen, unset);
                break;
        case CASE_LATE:
        case CASE_LOST:
                check(group_table_size(t) == 1);
                next_latniced(&s, &t, &f, c, sc.report, sc.seen, sizeof(sc.seen));
                break;
        }

        group_table_free(t);
        state_file_free(f);
        standin_case_end(&sc);
}

int main(void)
{
        const char *cgroup2 = standin_test_begin(run);
        char cmd[64];

        snprintf(state_path, sizeof(state_path), "%s/tasks.state", run);
        run_case(cgroup2, CASE_OURS);
        run_case(cgroup2, CASE_THEIRS);
        run_case(cgroup2, CASE_GONE);
        run_case(cgroup2, CASE_LATE);
        run_case(cgroup2, CASE_LOST);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", run);
        (void)!system(cmd);
        return test_result();
}
