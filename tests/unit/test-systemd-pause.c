/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test of what a pause of a user's systemd manager puts off
 * (daemon/groups/systemd-units.c, daemon/groups/groups.c): a stand-in user
 * manager (standin-manager.h) does not answer one call in time, so latniced's
 * SystemdUnits pauses it; a process in one of its app scopes (a real
 * cgroup2 cgroup named like one) asks for CPUWeight=50 meanwhile, twice (a
 * rescan). Nothing may be written in the unit's stead (not its cgroup's
 * files, not the process's autogroup), and when the pause ends the scope
 * gets CPUWeight=50 through the manager: seen in the calls the stand-in
 * received, from the test's event loop, which runs until that call came
 * (the guard only turns a hang into a failure). Once with the slow call
 * being the first lookup (which group the process is weighed in), once the
 * lookup before the first write (whether a unit owns the cgroup).
 * lost: the first set is answered late and not carried out (written, not
 * yet known); at the pause's end the request is made again, and the unit
 * still has what it had before: latniced's own write was lost, not someone
 * else's change, so CPUWeight=50 is set again (it was taken for someone
 * else's change before: "changed by someone else (weight 100), leaving it
 * alone"), and given back at the stop.
 * Needs root and a cgroup2 mount (skipped otherwise).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/groups/groups.h"
#include "daemon/groups/systemd-units.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/sched-group.h"
#include "cgroup-member.h"
#include "standin-case.h"
#include "test-util.h"

/* Much longer than the user manager's call timeout (0.5 s). */
#define SLOW_ANSWER_USEC (1500 * 1000)
/* Only a hang's bound: the pause is 10 s. */
#define GUARD_USEC (45ull * 1000 * 1000)

static char run[] = "/tmp/test-systemd-pause.XXXXXX";

static int autogroup_nice(pid_t pid)
{
        char path[64], line[128] = "";
        int nice = 99;
        FILE *f;

        snprintf(path, sizeof(path), "/proc/%d/autogroup", (int)pid);
        f = fopen(path, "re");
        if (!f)
                return 99;
        if (fgets(line, sizeof(line), f) && strstr(line, " nice "))
                (void)sscanf(strstr(line, " nice ") + 6, "%d", &nice);
        fclose(f);
        return nice;
}

/* A case: an app scope of user UID whose manager is the stand-in O, a
 * process of its own in it, the group table that asks for it. */
typedef struct Pause {
        StandInCase c;
        SystemdUnits *s;
        sd_event *e;
        GroupTable *t;
        Settings set; /* CPUWeight=50 */
        pid_t member;
        uint64_t st;  /* its start time */
} Pause;

static void pause_begin(Pause *p, const char *cgroup2, const char *name, StandInOptions o)
{
        unsigned uid = standin_case_uid();

        *p = (Pause){};
        standin_case_begin(&p->c, cgroup2,
                           "/latnice-test-pause-%d-%s.slice/user@%u.service/app.slice/app-b.scope",
                           (int)getpid(), name, uid);
        CHECK(systemd_units_new(run, &p->s) == 0);
        o.run = run;
        o.uid = uid;
        o.weight = SYSTEMD_WEIGHT_UNSET;
        o.slow_usec = SLOW_ANSWER_USEC;
        standin_case_start(&p->c, o);
        p->member = cgroup_member_start(p->c.dir, true);
        CHECK(proc_starttime("/proc", p->member, 0, &p->st) == 0);
        CHECK(sd_event_new(&p->e) >= 0);
        CHECK(group_table_new("/proc", false, p->s, &p->t) == 0);
        CHECK(group_table_attach_event(p->t, p->e) == 0);
        CHECK(settings_parse_assignment(&p->set, "CPUWeight=50", NULL) >= 0);
}

static void pause_end(Pause *p)
{
        group_table_free(p->t);
        sd_event_unref(p->e);
        kill(p->member, SIGKILL);
        (void)waitpid(p->member, NULL, 0);
        standin_case_end(&p->c);
        systemd_units_free(p->s);
}

static void run_case(const char *cgroup2, unsigned slow_call)
{
        const char *want = "SetUnitProperties app-b.scope 50\n";
        char name[16];
        Pause p;

        snprintf(name, sizeof(name), "%u", slow_call);
        pause_begin(&p, cgroup2, name,
                    (StandInOptions){ .slow_call = slow_call, .report_calls = true });

        /* The slow call pauses the manager: nothing written, and the
         * rescan's request is refused at once (no call). */
        check(group_table_request(p.t, p.member, p.st, &p.set) == 0);
        check(systemd_units_refusals(p.s) == 1);
        check(group_table_request(p.t, p.member, p.st, &p.set) == 0);
        check(systemd_units_refusals(p.s) == 2);
        check(autogroup_nice(p.member) == 0);

        /* When the pause ends, the scope gets its CPUWeight=. */
        if (!standin_case_wait(&p.c, p.e, want, 1, GUARD_USEC))
                test_fail("slow call %u: no CPUWeight=50 for app-b.scope through its manager "
                          "after the pause; the stand-in got:\n%s", slow_call, p.c.seen);
        check(autogroup_nice(p.member) == 0);
        pause_end(&p);
}

/*
 * lost: the first CPUWeight=50 through the manager is answered late and
 * not carried out (a set that timed out: written, not yet known; the
 * manager paused). At the pause's end the request is made again: the unit
 * still has what it had before, which is latniced's own write lost, not
 * someone else's change: CPUWeight=50 is set again.
 */
static void run_lost(const char *cgroup2)
{
        const char *want = "SetUnitProperties app-b.scope 50\n";
        Pause p;

        pause_begin(&p, cgroup2, "lost",
                    (StandInOptions){ .slow_member = "SetUnitProperties", .slow_lost = true });

        /* Written (not yet known); the manager paused. */
        check(group_table_request(p.t, p.member, p.st, &p.set) >= 0);
        check(systemd_units_refusals(p.s) == 1);
        (void)standin_case_wait(&p.c, p.e, want, 1, GUARD_USEC);
        if (!strstr(p.c.seen, want) || !strstr(p.c.seen, "Lost app-b.scope 50\n"))
                test_fail("lost: CPUWeight=50 not set again after the pause; the stand-in "
                          "got:\n%s", p.c.seen);
        /* Latniced's from then on: given back at the stop. */
        check(group_table_restore_all(p.t) == 1);
        standin_case_reports(&p.c);
        if (!strstr(p.c.seen, "SetUnitProperties app-b.scope 18446744073709551615\n"))
                test_fail("lost: CPUWeight= not given back; the stand-in got:\n%s", p.c.seen);
        pause_end(&p);
}

int main(void)
{
        const char *cgroup2 = standin_test_begin(run);
        char cmd[128];

        run_case(cgroup2, 1); /* which group the process is weighed in */
        run_case(cgroup2, 4); /* whether a unit owns that cgroup */
        run_lost(cgroup2);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", run);
        (void)system(cmd);
        return test_result();
}
