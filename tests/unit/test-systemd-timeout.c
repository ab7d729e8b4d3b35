/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test of a unit property set that the manager did not answer in time
 * (daemon/groups/group-systemd.h, units.c): a [Unit app-b.scope]
 * CPUWeight=300 through a stand-in user manager (standin-manager.h) whose
 * first SetUnitProperties (first CPUWeight read: crash) is answered after
 * latniced's timeout (0.5 s for a user's manager).
 *
 *  - late:  the stand-in carries the call out after the timeout. latniced
 *           kept it as set, not yet known: the claim holds, and the give-back
 *           (units_restore_all()) puts CPUWeight= back to the original.
 *  - lost:  the stand-in drops the slow call. At the next look at the unit
 *           (the walk when the manager's pause ends, as units_watch_systemd()
 *           asks for it) the unit does not have 300: written again, and given
 *           back at the end. It passes without the timed-out set kept as
 *           written, and cannot fail without it: the timeout itself pauses a
 *           user's manager, and the walk at the pause's end writes any value
 *           that is not the wanted one, claim or none. "system lost" is the
 *           case that can.
 *  - system lost: the same on the system manager (a stand-in for PID 1 and
 *           its bus, StandInOptions.system, with units_watch_systemd() as
 *           latniced runs it). PID 1 is never paused: only units.c's retry
 *           walk, armed by the set that timed out (10 s later), writes 300
 *           again. Fails without that arming (seen). The retry's doubling (20
 *           s, ... 320 s) is not checked: that would be a timed assertion.
 *  - system stop: the system manager answers the give-back at the stop
 *           after 3 s, longer than its usual 2 s, within the 7 s the stop
 *           gives it (systemd_units_stopping()): answered, its record ends.
 *  - crash: a latniced that set CPUWeight=300 died; the next one's first
 *           read of the unit's CPUWeight= times out. The dead one's record is
 *           kept (not dropped as unknown), and given back at the stop.
 *
 * Seen in what the stand-in reports, waited for from an event loop (the
 * guard only turns a hang into a failure). The unit's cgroup is a real
 * cgroup2 cgroup named like one (units.c asks systemd only on the real
 * hierarchy). Needs root and a cgroup2 mount (skipped otherwise).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/groups/systemd-units.h"
#include "daemon/groups/units.h"
#include "daemon/state/state-file.h"
#include "lib/macro.h"
#include "lib/sched-group.h"
#include "policy/policy.h"
#include "standin-case.h"
#include "test-util.h"

/* Much longer than the user manager's call timeout (0.5 s). */
#define SLOW_ANSWER_USEC (1500 * 1000)
/* Longer than the system manager's (SYSTEMD_UNITS_TIMEOUT_USEC, 2 s). */
#define SYSTEM_SLOW_ANSWER_USEC (3 * 1000 * 1000)
/* Only a hang's bound: a pause of the user's manager is 10 s. */
#define GUARD_USEC (45ull * 1000 * 1000)

static char run[] = "/tmp/test-systemd-timeout.XXXXXX";

static const char unset[] = "SetUnitProperties app-b.scope 18446744073709551615\n";

typedef struct Wait {
        bool resumed;     /* on_resume() walked */
        UnitState *u;     /* the walk at a pause's end (lost) */
        const Policy *p;
} Wait;

/* What units_watch_systemd() does at a pause's end: walk again. */
static void on_resume(void *userdata)
{
        Wait *w = userdata;

        (void)units_apply_all(w->u, w->p, NULL);
        w->resumed = true;
}

/* Run E until a pause's end was walked. */
static void wait_resume(sd_event *e, Wait *w)
{
        uint64_t now, end;

        CHECK(sd_event_now(e, CLOCK_MONOTONIC, &now) >= 0);
        for (end = now + GUARD_USEC; !w->resumed && now < end;) {
                CHECK(sd_event_run(e, end - now) >= 0);
                CHECK(sd_event_now(e, CLOCK_MONOTONIC, &now) >= 0);
        }
        check(w->resumed);
}

static Policy *load_text(const char *text)
{
        Diagnostics d = {};
        Policy *p = NULL;

        CHECK(policy_load_string("test.policy", text, strlen(text), &p, &d) == 0);
        CHECK(diagnostics_count(&d, DIAG_ERROR) == 0);
        diagnostics_done(&d);
        return p;
}

static Policy *load(void)
{
        return load_text("[Unit app-b.scope]\nCPUWeight = 300\n");
}

static const Policy *get_policy(void *userdata)
{
        return userdata;
}

static void run_case(const char *cgroup2, bool lost)
{
        _cleanup_(systemd_units_freep) SystemdUnits *s = NULL;
        _cleanup_(policy_freep) Policy *p = load();
        unsigned uid = standin_case_uid();
        const char *name = lost ? "lost" : "late";
        const char *set = "SetUnitProperties app-b.scope 300\n";
        UnitState *u = NULL;
        sd_event *e = NULL;
        StandInCase c;
        Wait w = {};

        standin_case_begin(&c, cgroup2,
                           "/latnice-test-timeout-%d-%s.slice/user@%u.service/app.slice/app-b.scope",
                           (int)getpid(), name, uid);
        CHECK(systemd_units_new(run, &s) == 0);
        standin_case_start(&c, (StandInOptions){ .run = run, .uid = uid,
                                                 .weight = SYSTEMD_WEIGHT_UNSET,
                                                 .slow_member = "SetUnitProperties",
                                                 .slow_usec = SLOW_ANSWER_USEC,
                                                 .slow_lost = lost });
        CHECK(sd_event_new(&e) >= 0);
        CHECK(units_new(NULL, false, s, &u) == 0);
        w.u = u;
        w.p = p;
        CHECK(systemd_units_on_resume(s, e, on_resume, &w) == 0);

        /* The set times out: latniced goes on at once. */
        check(units_apply_all(u, p, NULL) == 0);
        if (!lost) {
                /* Carried out late: still latniced's to give back. */
                standin_case_wait(&c, e, set, 1, GUARD_USEC);
                check(standin_count(c.seen, set) == 1);
        } else {
                /* Dropped: the walk at the pause's end writes it again. */
                standin_case_wait(&c, e, "Lost app-b.scope 300\n", 1, GUARD_USEC);
                check(standin_count(c.seen, "Lost app-b.scope 300\n") == 1);
                standin_case_wait(&c, e, set, 1, GUARD_USEC);
                if (standin_count(c.seen, set) != 1)
                        test_fail("lost: CPUWeight=300 not written again; the stand-in got:\n%s",
                                  c.seen);
        }
        check(units_restore_all(u) == 0);
        standin_case_reports(&c);
        if (standin_count(c.seen, unset) != 1)
                test_fail("%s: CPUWeight= not given back; the stand-in got:\n%s", name, c.seen);

        systemd_units_on_resume_remove(s, on_resume, &w);
        units_free(u);
        sd_event_unref(e);
        standin_case_end(&c);
}

/*
 * crash: a latniced set CPUWeight=300 and died (its state file has the
 * record); the next one's first read of the unit's CPUWeight= is answered
 * too late. The record is kept as the dead latniced left it, and given back
 * at the stop.
 */
static void run_crash(const char *cgroup2)
{
        _cleanup_(policy_freep) Policy *p = load();
        unsigned uid = standin_case_uid();
        const char *set = "SetUnitProperties app-b.scope 300\n";
        char state[sizeof(run) + 16];
        StateFileLoad l = {};
        SystemdUnits *s = NULL;
        StateFile *f = NULL;
        UnitState *u = NULL;
        sd_event *e = NULL;
        StandInCase c;
        Wait w = { .p = p };

        snprintf(state, sizeof(state), "%s/state", run);
        standin_case_begin(&c, cgroup2,
                           "/latnice-test-timeout-%d-crash.slice/user@%u.service/app.slice/app-b.scope",
                           (int)getpid(), uid);

        /* The first latniced: set, recorded, killed. */
        CHECK(systemd_units_new(run, &s) == 0);
        standin_case_start(&c, (StandInOptions){ .run = run, .uid = uid,
                                                 .weight = SYSTEMD_WEIGHT_UNSET });
        CHECK(state_file_open(state, &f, &l) == 0);
        state_file_load_done(&l);
        CHECK(units_new(NULL, false, s, &u) == 0);
        CHECK(units_attach_state(u, f) == 0);
        check(units_apply_all(u, p, NULL) == 0);
        standin_case_reports(&c);
        check(standin_count(c.seen, set) == 1);
        u = units_free(u);
        f = state_file_free(f);
        s = systemd_units_free(s);
        standin_case_stop(&c);

        /* The next one, on a loaded manager (the unit still has 300). */
        CHECK(systemd_units_new(run, &s) == 0);
        standin_case_start(&c, (StandInOptions){ .run = run, .uid = uid, .weight = 300,
                                                 .slow_member = "Get CPUWeight",
                                                 .slow_usec = SLOW_ANSWER_USEC });
        CHECK(sd_event_new(&e) >= 0);
        CHECK(state_file_open(state, &f, &l) == 0);
        state_file_load_done(&l);
        CHECK(units_new(NULL, false, s, &u) == 0);
        w.u = u;
        CHECK(systemd_units_on_resume(s, e, on_resume, &w) == 0);
        CHECK(units_attach_state(u, f) == 0);
        check(units_apply_all(u, p, NULL) == 0);
        wait_resume(e, &w);
        check(units_restore_all(u) == 0);
        standin_case_reports(&c);
        if (standin_count(c.seen, unset) != 1)
                test_fail("crash: CPUWeight= not given back; the stand-in got:\n%s", c.seen);

        systemd_units_on_resume_remove(s, on_resume, &w);
        units_free(u);
        state_file_free(f);
        systemd_units_free(s);
        sd_event_unref(e);
        standin_case_end(&c);
}

/*
 * lost, on the system manager (a stand-in on a bus socket of its own): PID 1
 * is never paused, so nothing but units.c's retry walk (units_retry_later(),
 * armed by the set that timed out, UNITS_RETRY_USEC later) writes the
 * dropped CPUWeight=300 again. Through units_watch_systemd(), as latniced
 * runs it.
 */
static void run_system_lost(const char *cgroup2)
{
        _cleanup_(systemd_units_freep) SystemdUnits *s = NULL;
        _cleanup_(policy_freep) Policy *p =
                load_text("[Unit latnice-test-b.service]\nCPUWeight = 300\n");
        const char *set = "SetUnitProperties latnice-test-b.service 300\n";
        const char *lost = "Lost latnice-test-b.service 300\n";
        UnitState *u = NULL;
        sd_event *e = NULL;
        StandInCase c;

        standin_case_begin(&c, cgroup2, "/latnice-test-timeout-%d-sys.slice/latnice-test-b.service",
                           (int)getpid());
        CHECK(systemd_units_new(run, &s) == 0);
        standin_case_start(&c, (StandInOptions){ .run = run, .system = true,
                                                 .weight = SYSTEMD_WEIGHT_UNSET,
                                                 .slow_member = "SetUnitProperties",
                                                 .slow_usec = SYSTEM_SLOW_ANSWER_USEC,
                                                 .slow_lost = true });
        CHECK(sd_event_new(&e) >= 0);
        CHECK(units_new(NULL, false, s, &u) == 0);
        CHECK(units_watch_systemd(u, e, get_policy, p) == 0);

        check(units_apply_all(u, p, NULL) == 0);
        standin_case_wait(&c, e, lost, 1, GUARD_USEC);
        check(standin_count(c.seen, lost) == 1);
        /* Written again by the retry walk, from the event loop. */
        standin_case_wait(&c, e, set, 1, GUARD_USEC);
        if (standin_count(c.seen, set) != 1)
                test_fail("system lost: CPUWeight=300 not written again; the stand-in got:\n%s",
                          c.seen);
        check(units_restore_all(u) == 0);
        standin_case_reports(&c);
        if (standin_count(c.seen, "SetUnitProperties latnice-test-b.service 18446744073709551615\n") !=
            1)
                test_fail("system lost: CPUWeight= not given back; the stand-in got:\n%s", c.seen);

        units_free(u);
        sd_event_unref(e);
        standin_case_end(&c);
        CHECK(setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/latnice-test", 1) == 0);
}

/*
 * stop, on the system manager: the give-back at latniced's stop
 * (units_restore_all()) is answered after SYSTEM_SLOW_ANSWER_USEC, longer
 * than the system manager's usual timeout but within what the stop gives
 * PID 1 (SYSTEMD_UNITS_STOP_USEC, systemd_units_stopping()): answered, the
 * give-back is known and its record ends. Had it timed out, the record
 * would stay for the next latniced (written, not yet known).
 */
static void run_system_stop(const char *cgroup2)
{
        _cleanup_(policy_freep) Policy *p =
                load_text("[Unit latnice-test-b.service]\nCPUWeight = 300\n");
        const char *set = "SetUnitProperties latnice-test-b.service 300\n";
        const char *unset_b = "SetUnitProperties latnice-test-b.service 18446744073709551615\n";
        char state[sizeof(run) + 16];
        StateFileLoad l = {};
        SystemdUnits *s = NULL;
        StateFile *f = NULL;
        UnitState *u = NULL;
        StandInCase c;

        snprintf(state, sizeof(state), "%s/state-stop", run);
        standin_case_begin(&c, cgroup2, "/latnice-test-timeout-%d-stop.slice/latnice-test-b.service",
                           (int)getpid());
        CHECK(systemd_units_new(run, &s) == 0);
        standin_case_start(&c, (StandInOptions){ .run = run, .system = true,
                                                 .weight = SYSTEMD_WEIGHT_UNSET,
                                                 .slow_member = "SetUnitProperties",
                                                 .slow_nth = 2,
                                                 .slow_usec = SYSTEM_SLOW_ANSWER_USEC });
        CHECK(state_file_open(state, &f, &l) == 0);
        state_file_load_done(&l);
        CHECK(units_new(NULL, false, s, &u) == 0);
        CHECK(units_attach_state(u, f) == 0);
        check(units_apply_all(u, p, NULL) == 0);
        standin_case_reports(&c);
        check(standin_count(c.seen, set) == 1);
        check(state_file_cgroup_n_used(f) == 1);

        check(units_restore_all(u) == 0);
        standin_case_reports(&c);
        if (standin_count(c.seen, unset_b) != 1)
                test_fail("system stop: CPUWeight= not given back; the stand-in got:\n%s",
                          c.seen);
        if (state_file_cgroup_n_used(f) != 0)
                test_fail("system stop: the give-back was not answered within the stop's "
                          "time (its record stays)");

        units_free(u);
        state_file_free(f);
        systemd_units_free(s);
        standin_case_end(&c);
        CHECK(setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/latnice-test", 1) == 0);
}

int main(void)
{
        const char *cgroup2 = standin_test_begin(run);
        char cmd[128];

        run_case(cgroup2, false);
        run_case(cgroup2, true);
        run_crash(cgroup2);
        run_system_lost(cgroup2);
        run_system_stop(cgroup2);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", run);
        (void)system(cmd);
        return test_result();
}
