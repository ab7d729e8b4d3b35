/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The stand-in systemd user manager of the unit tests (standin-manager.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>
#include <unistd.h>

#include "lib/sched-group.h"
#include "lib/time-util.h"
#include "standin-manager.h"
#include "test-util.h"

typedef struct StandIn {
        StandInOptions o;
        uint64_t weight;
        unsigned n_calls;
        unsigned n_slow_member; /* calls of slow_member so far */
        int report_fd;
} StandIn;

/* "WHAT A V" to the test, a line. */
static void report(StandIn *si, const char *what, const char *a, unsigned long long v)
{
        char line[256];
        int n = snprintf(line, sizeof(line), "%s %s %llu\n", what, a, v);

        if (n > 0)
                (void)!write(si->report_fd, line, (size_t)n);
}

static int standin_set(StandIn *si, sd_bus_message *m, bool lost)
{
        const char *unit, *name;
        int runtime, r;
        uint64_t w;

        r = sd_bus_message_read(m, "sb", &unit, &runtime);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "(sv)");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
                r = sd_bus_message_read(m, "s", &name);
                if (r >= 0 && streq(name, "CPUWeight")) {
                        r = sd_bus_message_read(m, "v", "t", &w);
                        if (!lost)
                                si->weight = w;
                        report(si, lost ? "Lost" : "SetUnitProperties", unit,
                               (unsigned long long)w);
                } else if (r >= 0)
                        r = sd_bus_message_skip(m, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

/* Is M (MEMBER) the call WHAT names: "Member", or "Get Property"? */
static bool call_is(sd_bus_message *m, const char *member, const char *what)
{
        const char *sp = strchr(what, ' '), *iface, *prop;
        bool is;

        if (!sp)
                return streq(member, what);
        if (strlen(member) != (size_t)(sp - what) || strncmp(member, what, (size_t)(sp - what)) != 0)
                return false;
        is = sd_bus_message_read(m, "ss", &iface, &prop) >= 0 && streq(prop, sp + 1);
        (void)sd_bus_message_rewind(m, true);
        return is;
}

static int standin_call(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        StandIn *si = userdata;
        const char *member = sd_bus_message_get_member(m), *a = NULL, *b = NULL;
        bool slow;

        if (!sd_bus_message_is_method_call(m, NULL, NULL) || !member)
                return 0;
        si->n_calls++;
        if (si->o.report_calls)
                report(si, member, "#", si->n_calls);
        slow = si->n_calls == si->o.slow_call;
        if (si->o.slow_member && call_is(m, member, si->o.slow_member) &&
            ++si->n_slow_member == MAX(si->o.slow_nth, 1u))
                slow = true;
        if (slow)
                usleep(si->o.slow_usec);
        if (si->o.system && streq(member, "Hello"))
                return sd_bus_reply_method_return(m, "s", ":1.1");
        if (si->o.system && (streq(member, "AddMatch") || streq(member, "RemoveMatch") ||
                             streq(member, "Subscribe")))
                return sd_bus_reply_method_return(m, NULL);
        if (streq(member, "GetUnit") || streq(member, "LoadUnit"))
                return sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/unit/b");
        if (streq(member, "Get") && sd_bus_message_read(m, "ss", &a, &b) >= 0) {
                if (streq(b, "ControlGroup"))
                        return sd_bus_reply_method_return(m, "v", "s", si->o.cgroup);
                if (streq(b, "CPUWeight"))
                        return sd_bus_reply_method_return(m, "v", "t", si->weight);
        }
        if (streq(member, "SetUnitProperties"))
                return standin_set(si, m, slow && si->o.slow_lost);
        return sd_bus_reply_method_errorf(m, "org.freedesktop.DBus.Error.UnknownMethod",
                                          "not in the stand-in: %s", member);
}

/* Serve one connection until it ends. */
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

pid_t standin_start(const StandInOptions *o, int *ret_report)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char cmd[512];
        int fd, p[2];
        pid_t pid;

        if (o->system)
                snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/system_bus_socket", o->run);
        else {
                snprintf(cmd, sizeof(cmd), "mkdir -p %s/user/%u/systemd", o->run, o->uid);
                CHECK(system(cmd) == 0);
                snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/user/%u/systemd/private", o->run,
                         o->uid);
        }
        (void)unlink(sa.sun_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(fd >= 0);
        CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
        if (!o->system)
                CHECK(chown(sa.sun_path, o->uid, o->uid) == 0); /* the user's own, as systemd's */
        CHECK(listen(fd, 16) == 0);
        if (o->system) {
                snprintf(cmd, sizeof(cmd), "unix:path=%s", sa.sun_path);
                CHECK(setenv("DBUS_SYSTEM_BUS_ADDRESS", cmd, 1) == 0);
        }
        CHECK(pipe2(p, O_CLOEXEC) == 0);
        pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
                StandIn si = { .o = *o, .weight = o->weight, .report_fd = p[1] };

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

void standin_reports(int fd, char *buf, size_t size)
{
        size_t n = strlen(buf);
        ssize_t k;

        while (n < size - 1 && (k = read(fd, buf + n, size - 1 - n)) > 0)
                n += (size_t)k;
        buf[n] = 0;
}

bool standin_wait_report(int fd, char *buf, size_t size, const char *want, int guard_msec)
{
        uint64_t end = now_usec(CLOCK_MONOTONIC) + (uint64_t)guard_msec * 1000;
        struct pollfd pfd = { .fd = fd, .events = POLLIN };

        for (;;) {
                standin_reports(fd, buf, size);
                if (strstr(buf, want))
                        return true;
                if (now_usec(CLOCK_MONOTONIC) >= end)
                        return false;
                (void)poll(&pfd, 1, 100);
        }
}

const char *standin_test_begin(char *run)
{
        static SchedGroupRoots roots;
        char cmd[256];

        if (geteuid() != 0 || sched_group_roots_find(&roots) < 0 || !roots.cgroup2) {
                fprintf(stderr, "needs root and a cgroup2 mount: skipped\n");
                exit(77);
        }
        CHECK(mkdtemp(run));
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/systemd/system", run);
        CHECK(system(cmd) == 0);
        CHECK(setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/latnice-test", 1) == 0);
        return roots.cgroup2;
}
