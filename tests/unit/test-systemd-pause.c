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
#include <errno.h>
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
#include "standin-manager.h"
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

typedef struct Wait {
        char seen[8192];
        size_t n;
        const char *want;
} Wait;

static int on_report(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        Wait *w = userdata;
        ssize_t k = read(fd, w->seen + w->n, sizeof(w->seen) - 1 - w->n);

        if (k > 0) {
                w->n += (size_t)k;
                w->seen[w->n] = 0;
        }
        if (strstr(w->seen, w->want) || k == 0 || w->n == sizeof(w->seen) - 1)
                return sd_event_exit(sd_event_source_get_event(s), 0);
        return 0;
}

static int on_guard(sd_event_source *s, uint64_t usec, void *userdata)
{
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

static void run_case(const char *cgroup2, unsigned slow_call)
{
        _cleanup_(systemd_units_freep) SystemdUnits *s = NULL;
        char rel[256], dir[512], want[300];
        Settings set = {};
        sd_event_source *io = NULL, *guard = NULL;
        sd_event *e = NULL;
        GroupTable *t = NULL;
        unsigned uid = 64000 + (unsigned)getpid() % 1000;
        Wait w = { .want = want };
        pid_t standin, member;
        uint64_t st, now;
        int report;

        snprintf(rel, sizeof(rel), "/latnice-test-pause-%d-%u.slice/user@%u.service/app.slice/app-b.scope",
                 (int)getpid(), slow_call, uid);
        snprintf(dir, sizeof(dir), "%s%s", cgroup2, rel);
        snprintf(want, sizeof(want), "SetUnitProperties app-b.scope 50\n");
        {
                char cmd[600];

                snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
                CHECK(system(cmd) == 0);
        }
        CHECK(systemd_units_new(run, &s) == 0);
        standin = standin_start(&(StandInOptions){ .run = run, .uid = uid, .cgroup = rel,
                                                   .weight = SYSTEMD_WEIGHT_UNSET,
                                                   .slow_call = slow_call,
                                                   .slow_usec = SLOW_ANSWER_USEC,
                                                   .report_calls = true },
                                &report);
        member = cgroup_member_start(dir, true);
        CHECK(proc_starttime("/proc", member, 0, &st) == 0);

        CHECK(sd_event_new(&e) >= 0);
        CHECK(group_table_new("/proc", false, s, &t) == 0);
        CHECK(group_table_attach_event(t, e) == 0);
        CHECK(settings_parse_assignment(&set, "CPUWeight=50", NULL) >= 0);

        /* The slow call pauses the manager: nothing written, and the
         * rescan's request is refused at once (no call). */
        check(group_table_request(t, member, st, &set) == 0);
        check(systemd_units_refusals(s) == 1);
        check(group_table_request(t, member, st, &set) == 0);
        check(systemd_units_refusals(s) == 2);
        check(autogroup_nice(member) == 0);

        /* When the pause ends, the scope gets its CPUWeight=. */
        CHECK(sd_event_add_io(e, &io, report, EPOLLIN, on_report, &w) >= 0);
        CHECK(sd_event_now(e, CLOCK_MONOTONIC, &now) >= 0);
        CHECK(sd_event_add_time(e, &guard, CLOCK_MONOTONIC, now + GUARD_USEC, 0, on_guard, NULL) >= 0);
        CHECK(sd_event_loop(e) >= 0);
        if (!strstr(w.seen, want))
                test_fail("slow call %u: no CPUWeight=50 for app-b.scope through its manager "
                          "after the pause; the stand-in got:\n%s", slow_call, w.seen);
        check(autogroup_nice(member) == 0);

        sd_event_source_disable_unref(io);
        sd_event_source_disable_unref(guard);
        group_table_free(t);
        sd_event_unref(e);
        kill(member, SIGKILL);
        kill(standin, SIGKILL);
        (void)waitpid(member, NULL, 0);
        (void)waitpid(standin, NULL, 0);
        close(report);
        standin_cgroup_remove(dir, 3);
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
        _cleanup_(systemd_units_freep) SystemdUnits *s = NULL;
        char rel[256], dir[512], cmd[600];
        const char *want = "SetUnitProperties app-b.scope 50\n";
        Settings set = {};
        sd_event_source *io = NULL, *guard = NULL;
        sd_event *e = NULL;
        GroupTable *t = NULL;
        unsigned uid = 64000 + (unsigned)getpid() % 1000;
        Wait w = { .want = want };
        pid_t standin, member;
        uint64_t st, now;
        int report;

        snprintf(rel, sizeof(rel), "/latnice-test-pause-%d-lost.slice/user@%u.service/app.slice/app-b.scope",
                 (int)getpid(), uid);
        snprintf(dir, sizeof(dir), "%s%s", cgroup2, rel);
        snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
        CHECK(system(cmd) == 0);
        CHECK(systemd_units_new(run, &s) == 0);
        standin = standin_start(&(StandInOptions){ .run = run, .uid = uid, .cgroup = rel,
                                                   .weight = SYSTEMD_WEIGHT_UNSET,
                                                   .slow_member = "SetUnitProperties",
                                                   .slow_usec = SLOW_ANSWER_USEC,
                                                   .slow_lost = true },
                                &report);
        member = cgroup_member_start(dir, true);
        CHECK(proc_starttime("/proc", member, 0, &st) == 0);
        CHECK(sd_event_new(&e) >= 0);
        CHECK(group_table_new("/proc", false, s, &t) == 0);
        CHECK(group_table_attach_event(t, e) == 0);
        CHECK(settings_parse_assignment(&set, "CPUWeight=50", NULL) >= 0);

        /* Written (not yet known); the manager paused. */
        check(group_table_request(t, member, st, &set) >= 0);
        check(systemd_units_refusals(s) == 1);
        CHECK(sd_event_add_io(e, &io, report, EPOLLIN, on_report, &w) >= 0);
        CHECK(sd_event_now(e, CLOCK_MONOTONIC, &now) >= 0);
        CHECK(sd_event_add_time(e, &guard, CLOCK_MONOTONIC, now + GUARD_USEC, 0, on_guard, NULL) >= 0);
        CHECK(sd_event_loop(e) >= 0);
        if (!strstr(w.seen, want) || !strstr(w.seen, "Lost app-b.scope 50\n"))
                test_fail("lost: CPUWeight=50 not set again after the pause; the stand-in "
                          "got:\n%s", w.seen);
        /* Latniced's from then on: given back at the stop. */
        check(group_table_restore_all(t) == 1);
        standin_reports(report, w.seen, sizeof(w.seen));
        if (!strstr(w.seen, "SetUnitProperties app-b.scope 18446744073709551615\n"))
                test_fail("lost: CPUWeight= not given back; the stand-in got:\n%s", w.seen);

        sd_event_source_disable_unref(io);
        sd_event_source_disable_unref(guard);
        group_table_free(t);
        sd_event_unref(e);
        kill(member, SIGKILL);
        kill(standin, SIGKILL);
        (void)waitpid(member, NULL, 0);
        (void)waitpid(standin, NULL, 0);
        close(report);
        standin_cgroup_remove(dir, 3);
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
