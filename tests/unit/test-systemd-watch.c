/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for the watch of daemon/groups/systemd-units.c on a private
 * bus (dbus-daemon --session) with a stand-in for the system manager in a
 * child process: the watch and the calls share one connection (the
 * stand-in refuses StartTransientUnit from any other than the one that
 * subscribed), a UnitNew that comes while a scope's start job is waited
 * for is handed on only by the event loop afterwards, and one that comes
 * otherwise is handed on at once; the connection still serves calls after
 * the event loop exited (latniced gives back through it then). The real
 * manager is checked in the
 * systemd VM (kernel/vm-systemd). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/groups/systemd-units.h"
#include "lib/macro.h"
#include "lib/util.h"
#include "test-util.h"

#define SD_PATH "/org/freedesktop/systemd1"
#define SD_MANAGER "org.freedesktop.systemd1.Manager"
#define UNIT_PATH "/org/freedesktop/systemd1/unit/x_2eservice"
#define JOB_PATH "/org/freedesktop/systemd1/job/7"

static char run[] = "/tmp/test-systemd-watch.XXXXXX";

/* ---- The stand-in manager (child process) ------------------------------ */

static char *subscriber; /* the unique name that called Subscribe */

static int emit_unit_new(sd_bus *bus, const char *unit)
{
        return sd_bus_emit_signal(bus, SD_PATH, SD_MANAGER, "UnitNew", "so", unit, UNIT_PATH);
}

static int fake_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        free(subscriber);
        subscriber = strdup(sd_bus_message_get_sender(m));
        if (!subscriber)
                return -ENOMEM;
        CHECK(sd_bus_reply_method_return(m, NULL) >= 0);
        /* After the reply: the watch sees it as soon as it is subscribed. */
        return emit_unit_new(sd_bus_message_get_bus(m), "first.service");
}

static int fake_get_unit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return sd_bus_reply_method_return(m, "o", UNIT_PATH);
}

static int fake_start(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        sd_bus *bus = sd_bus_message_get_bus(m);
        const char *name;

        if (!subscriber || !streq(subscriber, sd_bus_message_get_sender(m)))
                return sd_bus_error_set(error, "org.latnice.Test.OtherConnection",
                                        "not the connection that subscribed");
        CHECK(sd_bus_message_read(m, "s", &name) >= 0);
        CHECK(sd_bus_reply_method_return(m, "o", JOB_PATH) >= 0);
        /* While latniced waits for the job: a unit of someone else's, then
         * the job's end. */
        CHECK(emit_unit_new(bus, "meanwhile.service") >= 0);
        return sd_bus_emit_signal(bus, SD_PATH, SD_MANAGER, "JobRemoved", "uoss", 7, JOB_PATH,
                                  name, "done");
}

static int fake_string(sd_bus *bus, const char *path, const char *interface,
                       const char *property, sd_bus_message *reply, void *userdata,
                       sd_bus_error *error)
{
        if (streq(property, "ControlGroup"))
                return sd_bus_message_append(reply, "s", "/system.slice/x.service");
        return sd_bus_message_append(reply, "s", "system.slice"); /* Slice */
}

static int fake_main_pid(sd_bus *bus, const char *path, const char *interface,
                         const char *property, sd_bus_message *reply, void *userdata,
                         sd_bus_error *error)
{
        return sd_bus_message_append(reply, "u", (uint32_t)1);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("Subscribe", "", "", fake_subscribe, 0),
        SD_BUS_METHOD("GetUnit", "s", "o", fake_get_unit, 0),
        SD_BUS_METHOD("StartTransientUnit", "ssa(sv)a(sa(sv))", "o", fake_start, 0),
        SD_BUS_SIGNAL("UnitNew", "so", 0),
        SD_BUS_SIGNAL("JobRemoved", "uoss", 0),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable service_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("ControlGroup", "s", fake_string, 0, 0),
        SD_BUS_PROPERTY("Slice", "s", fake_string, 0, 0),
        SD_BUS_PROPERTY("MainPID", "u", fake_main_pid, 0, 0),
        SD_BUS_VTABLE_END,
};

_noreturn_ static void fake_manager(const char *address, int ready_fd)
{
        sd_bus *bus = NULL;

        CHECK(sd_bus_new(&bus) >= 0);
        CHECK(sd_bus_set_address(bus, address) >= 0);
        CHECK(sd_bus_set_bus_client(bus, 1) >= 0);
        CHECK(sd_bus_start(bus) >= 0);
        CHECK(sd_bus_add_object_vtable(bus, NULL, SD_PATH, SD_MANAGER, manager_vtable, NULL) >=
              0);
        CHECK(sd_bus_add_object_vtable(bus, NULL, UNIT_PATH, "org.freedesktop.systemd1.Service",
                                       service_vtable, NULL) >= 0);
        CHECK(sd_bus_request_name(bus, "org.freedesktop.systemd1", 0) >= 0);
        CHECK(write(ready_fd, "r", 1) == 1);
        for (;;) {
                int r = sd_bus_process(bus, NULL);

                CHECK(r >= 0);
                if (r == 0)
                        CHECK(sd_bus_wait(bus, UINT64_MAX) >= 0);
        }
}

/* ---- The test ------------------------------------------------------------ */

typedef struct Seen {
        char *units[8];
        size_t n;
} Seen;

static void seen_unit(const char *unit, void *userdata)
{
        Seen *s = userdata;

        if (s->n < ELEMENTSOF(s->units))
                s->units[s->n++] = strdup(unit);
}

/* Run E until S has N units (a test that hangs is killed by meson's timeout). */
static void run_until(sd_event *e, Seen *s, size_t n)
{
        while (s->n < n)
                CHECK(sd_event_run(e, UINT64_MAX) >= 0);
}

static void test_watch(const char *address)
{
        static const SystemdUnitsWatch w = { .job_done = seen_unit, .unit_new = seen_unit };
        _cleanup_(systemd_units_freep) SystemdUnits *s = NULL;
        _cleanup_free_ char *cg = NULL, *reason = NULL;
        sd_event *e = NULL;
        Seen seen = {};
        char marker[256];
        int r;

        snprintf(marker, sizeof(marker), "mkdir -p %s/systemd/system", run);
        CHECK(system(marker) == 0);
        CHECK(setenv("DBUS_SYSTEM_BUS_ADDRESS", address, 1) == 0);
        CHECK(systemd_units_new(run, &s) == 0);
        CHECK(sd_event_new(&e) >= 0);
        CHECK(systemd_units_watch(s, e, &w, &seen) == 0);
        run_until(e, &seen, 1);
        check(seen.n == 1 && streq(seen.units[0], "first.service"));

        r = systemd_units_start_scope(s,
                                      &(SystemdScopeRequest){
                                              .unit_cgroup = "/system.slice/x.service",
                                              .name = "t.scope",
                                              .description = "test",
                                              .pid = getpid(),
                                              .weight = 100,
                                      },
                                      &cg, &reason);
        check(r == 0);
        if (r < 0) {
                fprintf(stderr, "start_scope: %s (%s)\n", strerror(-r), strna(reason));
                return;
        }
        check_streq(cg, "/system.slice/t.scope");
        /* What came during the wait has not been handed on yet ... */
        check(seen.n == 1);
        /* ... the event loop does: the other unit, then the scope's job. */
        run_until(e, &seen, 3);
        check(seen.n == 3 && streq(seen.units[1], "meanwhile.service") &&
              streq(seen.units[2], "t.scope"));

        /* latniced gives back what it set through systemd after its event
         * loop ended (SIGTERM): the connection the watch rides on must not
         * be closed by the loop's exit. */
        CHECK(sd_event_exit(e, 0) >= 0);
        CHECK(sd_event_loop(e) >= 0);
        cg = mfree(cg);
        reason = mfree(reason);
        r = systemd_units_start_scope(s,
                                      &(SystemdScopeRequest){
                                              .unit_cgroup = "/system.slice/x.service",
                                              .name = "u.scope",
                                              .description = "test",
                                              .pid = getpid(),
                                              .weight = 100,
                                      },
                                      &cg, &reason);
        if (r < 0)
                test_fail("a call after the event loop's exit: %s (%s)", strerror(-r),
                          strna(reason));
        check_streq(cg, "/system.slice/u.scope");

        systemd_units_unwatch(s);
        for (size_t i = 0; i < seen.n; i++)
                free(seen.units[i]);
        s = systemd_units_free(s);
        sd_event_unref(e);
}

int main(void)
{
        _cleanup_free_ char *address = NULL;
        char line[512], cmd[128], c;
        pid_t daemon_pid = 0, fake;
        int ready[2];
        FILE *p;

        CHECK(mkdtemp(run));
        p = popen("dbus-daemon --session --fork --print-address=1 --print-pid=1", "r");
        if (!p || !fgets(line, sizeof(line), p)) {
                fprintf(stderr, "no dbus-daemon: skipped\n");
                return 77;
        }
        line[strcspn(line, "\n")] = 0;
        address = strdup(line);
        CHECK(address && fgets(line, sizeof(line), p));
        daemon_pid = (pid_t)atoi(line);
        pclose(p);
        CHECK(daemon_pid > 0);

        CHECK(pipe(ready) == 0);
        fake = fork();
        CHECK(fake >= 0);
        if (fake == 0) {
                close(ready[0]);
                fake_manager(address, ready[1]);
        }
        close(ready[1]);
        CHECK(read(ready[0], &c, 1) == 1); /* it owns the name */
        close(ready[0]);

        test_watch(address);

        (void) kill(fake, SIGKILL);
        (void) waitpid(fake, NULL, 0);
        (void) kill(daemon_pid, SIGTERM);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", run);
        (void) system(cmd);
        return test_result();
}
