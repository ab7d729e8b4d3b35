/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit test of a rule group's ledger claims after a crash
 * (daemon/groups/group-ledger.c, group_table_attach_state()): a state file
 * that a previous latniced left, with the record of a unit's group in its old form
 * (the unit's CPUWeight= as " sd=ORIG,WRITTEN" after the group's original),
 * is converted into the group's record and a unit property record, and
 * taken over by the ledger's rule; giving back then sets the unit's
 * original CPUWeight= through its manager. A stand-in user manager (a child
 * process serving D-Bus on RUN/user/UID/systemd/private: GetUnit, LoadUnit,
 * the ControlGroup and CPUWeight properties, SetUnitProperties) holds the
 * unit of a real cgroup2 cgroup named like an app scope, and reports the
 * calls it gets. Cases: the unit still has what the dead latniced set
 * (taken over; given back on restore); someone else set it meanwhile
 * (theirs: dropped, nothing set); the cgroup is gone (given back at once).
 * Needs root and a cgroup2 mount (skipped otherwise).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>
#include <unistd.h>

#include "daemon/groups/groups.h"
#include "daemon/groups/systemd-units.h"
#include "daemon/state/state-file.h"
#include "lib/macro.h"
#include "lib/sched-group.h"
#include "test-util.h"

static char run[] = "/tmp/test-group-ledger.XXXXXX";
static char state_path[sizeof(run) + 16];

typedef struct StandIn {
        const char *cgroup; /* the scope's ControlGroup */
        uint64_t weight;
        int report_fd;
} StandIn;

static int standin_set(StandIn *si, sd_bus_message *m)
{
        const char *unit, *name;
        char line[256];
        int runtime, r, n;
        uint64_t w;

        r = sd_bus_message_read(m, "sb", &unit, &runtime);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "(sv)");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
                r = sd_bus_message_read(m, "s", &name);
                if (r >= 0 && streq(name, "CPUWeight")) {
                        r = sd_bus_message_read(m, "v", "t", &w);
                        si->weight = w;
                        n = snprintf(line, sizeof(line), "set %s %llu\n", unit,
                                     (unsigned long long)w);
                        if (n > 0)
                                (void)!write(si->report_fd, line, (size_t)n);
                } else if (r >= 0)
                        r = sd_bus_message_skip(m, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

static int standin_call(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        StandIn *si = userdata;
        const char *member = sd_bus_message_get_member(m), *a = NULL, *b = NULL;

        if (!sd_bus_message_is_method_call(m, NULL, NULL) || !member)
                return 0;
        if (streq(member, "GetUnit") || streq(member, "LoadUnit"))
                return sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/unit/b");
        if (streq(member, "Get") && sd_bus_message_read(m, "ss", &a, &b) >= 0) {
                if (streq(b, "ControlGroup"))
                        return sd_bus_reply_method_return(m, "v", "s", si->cgroup);
                if (streq(b, "CPUWeight"))
                        return sd_bus_reply_method_return(m, "v", "t", si->weight);
        }
        if (streq(member, "SetUnitProperties"))
                return standin_set(si, m);
        return sd_bus_reply_method_errorf(m, "org.freedesktop.DBus.Error.UnknownMethod",
                                          "not in the stand-in: %s", member);
}

static void standin_serve(StandIn *si, int fd)
{
        sd_bus *bus = NULL;
        sd_id128_t id;
        int r;

        r = sd_id128_randomize(&id);
        if (r >= 0)
                r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_fd(bus, fd, fd);
        if (r >= 0)
                r = sd_bus_set_server(bus, 1, id);
        if (r >= 0)
                r = sd_bus_add_fallback(bus, NULL, "/", standin_call, si);
        if (r >= 0)
                r = sd_bus_start(bus);
        while (r >= 0) {
                r = sd_bus_process(bus, NULL);
                if (r == 0)
                        r = sd_bus_wait(bus, UINT64_MAX);
        }
        if (bus)
                sd_bus_close_unref(bus);
        else
                close(fd);
}

/* UID's stand-in manager, whose unit at CGROUP has CPUWeight=WEIGHT; the
 * calls that set it are reported on *RET_REPORT (non-blocking). */
static pid_t standin_start(unsigned uid, const char *cgroup, uint64_t weight, int *ret_report)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char cmd[512];
        int fd, p[2];
        pid_t pid;

        snprintf(cmd, sizeof(cmd), "mkdir -p %s/user/%u/systemd", run, uid);
        CHECK(system(cmd) == 0);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/user/%u/systemd/private", run, uid);
        (void)unlink(sa.sun_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(fd >= 0);
        CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
        CHECK(chown(sa.sun_path, uid, uid) == 0); /* the user's own, as systemd's */
        CHECK(listen(fd, 16) == 0);
        CHECK(pipe2(p, O_CLOEXEC) == 0);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                StandIn si = { .cgroup = cgroup, .weight = weight, .report_fd = p[1] };

                (void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed test leaves nothing */
                close(p[0]);
                for (;;) {
                        int c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);

                        if (c >= 0)
                                standin_serve(&si, c);
                        else if (errno != EINTR)
                                _exit(1);
                }
        }
        close(fd);
        close(p[1]);
        CHECK(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
        *ret_report = p[0];
        return pid;
}

/* What the stand-in reported so far (its replies come after its reports). */
static void reports(int fd, char *buf, size_t size)
{
        size_t n = strlen(buf);
        ssize_t k;

        while (n < size - 1 && (k = read(fd, buf + n, size - 1 - n)) > 0)
                n += (size_t)k;
        buf[n] = 0;
}

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
} Case;

static void run_case(const char *cgroup2, Case c)
{
        _cleanup_(systemd_units_freep) SystemdUnits *s = NULL;
        char rel[256], dir[512], cmd[600], seen[4096] = "";
        unsigned uid = 64000 + (unsigned)getpid() % 1000;
        const char *unset = "set app-b.scope 18446744073709551615\n";
        StateFileLoad l = {};
        StateFile *f = NULL;
        GroupTable *t = NULL;
        struct stat st;
        pid_t standin;
        int report;

        snprintf(rel, sizeof(rel), "/latnice-test-ledger-%d-%d.slice/user@%u.service/app.slice/app-b.scope",
                 (int)getpid(), (int)c, uid);
        snprintf(dir, sizeof(dir), "%s%s", cgroup2, rel);
        snprintf(cmd, sizeof(cmd), "mkdir -p %s", dir);
        CHECK(system(cmd) == 0);
        CHECK(stat(dir, &st) == 0);
        old_state_file(dir, st.st_ino);
        if (c == CASE_GONE)
                CHECK(rmdir(dir) == 0);
        CHECK(systemd_units_new(run, &s) == 0);
        standin = standin_start(uid, rel, c == CASE_THEIRS ? 70 : 50, &report);

        CHECK(state_file_open(state_path, &f, &l) == 0);
        state_file_load_done(&l);
        check(state_file_cgroup_n_used(f) == 1);
        CHECK(group_table_new("/proc", false, s, &t) == 0);
        CHECK(group_table_attach_state(t, f) == 0);
        reports(report, seen, sizeof(seen));
        switch (c) {
        case CASE_OURS:
                /* Taken over: the group's record and its unit's. */
                check(group_table_size(t) == 1);
                check(state_file_cgroup_n_used(f) == 2);
                check_streq(seen, "");
                /* Given back through the manager; the records end. */
                check(group_table_restore_all(t) == 1);
                reports(report, seen, sizeof(seen));
                check_streq(seen, unset);
                check(state_file_cgroup_n_used(f) == 0);
                break;
        case CASE_THEIRS:
                check(group_table_size(t) == 0);
                check(state_file_cgroup_n_used(f) == 0);
                check(group_table_restore_all(t) == 0);
                reports(report, seen, sizeof(seen));
                check_streq(seen, "");
                break;
        case CASE_GONE:
                check(group_table_size(t) == 0);
                check(state_file_cgroup_n_used(f) == 0);
                check_streq(seen, unset);
                break;
        }

        group_table_free(t);
        state_file_free(f);
        kill(standin, SIGKILL);
        (void)waitpid(standin, NULL, 0);
        close(report);
        if (c != CASE_GONE)
                (void)rmdir(dir);
        for (int i = 0; i < 3; i++) {
                *strrchr(dir, '/') = 0;
                (void)rmdir(dir);
        }
}

int main(void)
{
        SchedGroupRoots roots = {};
        char cmd[64];

        if (geteuid() != 0 || sched_group_roots_find(&roots) < 0 || !roots.cgroup2) {
                fprintf(stderr, "needs root and a cgroup2 mount: skipped\n");
                return 77;
        }
        CHECK(mkdtemp(run));
        snprintf(state_path, sizeof(state_path), "%s/tasks.state", run);
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/systemd/system", run);
        CHECK(system(cmd) == 0);
        run_case(roots.cgroup2, CASE_OURS);
        run_case(roots.cgroup2, CASE_THEIRS);
        run_case(roots.cgroup2, CASE_GONE);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", run);
        (void)!system(cmd);
        sched_group_roots_done(&roots);
        return test_result();
}
