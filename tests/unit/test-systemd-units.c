/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/groups/systemd-units.c without a systemd: which manager a
 * cgroup path belongs to (seen from where the lookup goes: the system bus, a
 * user's private socket, or nowhere), that only a socket the user owns is
 * taken for their manager, that a user's manager that does not answer is
 * left alone for a while, and the CPUWeight= text forms. The calls to real
 * managers are checked in the systemd VM (kernel/vm-systemd). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/groups/systemd-units.h"
#include "lib/macro.h"
#include "test-util.h"

static char run[] = "/tmp/test-systemd-units.XXXXXX";

/* mkdir -p RUN/SUB, RUN/user/UID/systemd if SUB is NULL. */
static void mkdir_p(const char *sub, unsigned uid)
{
        char cmd[512];

        if (sub)
                snprintf(cmd, sizeof(cmd), "mkdir -p %s/%s", run, sub);
        else
                snprintf(cmd, sizeof(cmd), "mkdir -p %s/user/%u/systemd", run, uid);
        CHECK(system(cmd) == 0);
}

/* A unix socket at RUN/user/UID/systemd/private that nobody listens on. */
static void make_socket(unsigned uid)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        mkdir_p(NULL, uid);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/user/%u/systemd/private", run, uid);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(fd >= 0);
        CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
        close(fd);
}

static void test_no_systemd(void)
{
        SystemdUnits *s = NULL;

        check(systemd_units_new(run, &s) == -ENOMEDIUM && !s);
}

static void test_owner(void)
{
        _cleanup_(systemd_units_freep) SystemdUnits *s = NULL;
        char path[256];
        unsigned me = (unsigned)getuid(), other = me + 1;
        uint64_t w = 42;
        int r;

        mkdir_p("systemd/system", 0);
        CHECK(systemd_units_new(run, &s) == 0 && s);

        /* Not a unit's cgroup: nobody to ask. */
        check(systemd_units_get_weight(s, "/", SYSTEMD_UNITS_OWNED, &w) == -ENXIO);
        check(systemd_units_get_weight(s, "/foo", SYSTEMD_UNITS_OWNED, &w) == -ENXIO);
        check(systemd_units_set_weight(s, "/a.slice/b.target", SYSTEMD_UNITS_OWNED, 100) == -ENXIO);

        /* Below user@UID.service: that user's manager; no socket there, no manager. */
        snprintf(path, sizeof(path), "/user.slice/user-%u.slice/user@%u.service/app.slice/x.service",
                 other, other);
        check(systemd_units_get_weight(s, path, SYSTEMD_UNITS_OWNED, &w) == -ENXIO);
        /* A socket there that the user does not own is not their manager. */
        make_socket(other);
        check(systemd_units_get_weight(s, path, SYSTEMD_UNITS_BY_NAME, &w) == -ENXIO);

        /* The user's own socket is used (nobody listens: an error, not -ENXIO). */
        make_socket(me);
        snprintf(path, sizeof(path), "/user.slice/user-%u.slice/user@%u.service/app.slice/x.service",
                 me, me);
        r = systemd_units_get_weight(s, path, SYSTEMD_UNITS_OWNED, &w);
        check(r < 0 && r != -ENXIO);
        /* user@ with a name that is not a uid is no user manager's ... */
        snprintf(path, sizeof(path), "/user.slice/user@%ux.service/x.service", me);
        r = systemd_units_get_weight(s, path, SYSTEMD_UNITS_OWNED, &w);
        check(r < 0 && r != -ENXIO); /* ... it goes to the system manager */

        /* user@UID.service itself, and everything else: the system manager, on
         * the system bus (none here). */
        snprintf(path, sizeof(path), "/user.slice/user-%u.slice/user@%u.service", me, me);
        r = systemd_units_get_weight(s, path, SYSTEMD_UNITS_OWNED, &w);
        check(r < 0 && r != -ENXIO);
        r = systemd_units_set_weight(s, "/system.slice/x.service", SYSTEMD_UNITS_OWNED, 100);
        check(r < 0 && r != -ENXIO);
        check(w == 42); /* untouched on failure */
}

/* A user's manager that accepts the connection and never answers (stopped
 * by its user): the call times out once, then that manager is asked about
 * no new unit for a while (-EHOSTDOWN at once), while giving back what was
 * set (BY_NAME) is still tried. */
static void test_stuck_manager(void)
{
        _cleanup_(systemd_units_freep) SystemdUnits *s = NULL;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        unsigned me = (unsigned)getuid();
        char path[256];
        uint64_t w = 42;
        int fd;

        CHECK(systemd_units_new(run, &s) == 0 && s);
        mkdir_p(NULL, me);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/user/%u/systemd/private", run, me);
        (void)unlink(sa.sun_path);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(fd >= 0);
        CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
        CHECK(listen(fd, 16) == 0); /* never accepted: connect() succeeds, nothing answers */

        snprintf(path, sizeof(path), "/user.slice/user-%u.slice/user@%u.service/app.slice/y.scope",
                 me, me);
        check(systemd_units_get_weight(s, path, SYSTEMD_UNITS_OWNED, &w) == -ETIMEDOUT);
        check(systemd_units_get_weight(s, path, SYSTEMD_UNITS_OWNED, &w) == -EHOSTDOWN);
        check(systemd_units_set_weight(s, path, SYSTEMD_UNITS_OWNED, 100) == -EHOSTDOWN);
        check(systemd_units_get_weight(s, path, SYSTEMD_UNITS_BY_NAME, &w) == -ETIMEDOUT);
        /* The system manager is not the stuck user's: still asked. */
        check(systemd_units_get_weight(s, "/system.slice/z.service", SYSTEMD_UNITS_OWNED, &w) !=
              -EHOSTDOWN);
        check(w == 42);
        close(fd);
}

static void test_strings(void)
{
        static const struct {
                uint64_t w;
                const char *s;
        } ok[] = {
                { SYSTEMD_WEIGHT_IDLE, "idle" },
                { SYSTEMD_WEIGHT_UNSET, "default" },
                { 1, "1" },
                { 300, "300" },
                { 10000, "10000" },
        };
        static const char *const bad[] = { "", "0", "10001", "-1", "abc", "100x", "1e3", " 5" };
        uint64_t w;

        for (size_t i = 0; i < ELEMENTSOF(ok); i++) {
                _cleanup_free_ char *s = NULL;

                CHECK(systemd_weight_to_string(ok[i].w, &s) == 0);
                check_streq(s, ok[i].s);
                check(systemd_weight_from_string(ok[i].s, &w) == 0 && w == ok[i].w);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                w = 7;
                check(systemd_weight_from_string(bad[i], &w) == -EINVAL && w == 7);
        }
}

int main(void)
{
        char cmd[64];

        CHECK(mkdtemp(run));
        /* No system bus for the system manager's lookups. */
        CHECK(setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/latnice-test", 1) == 0);
        test_no_systemd();
        test_owner();
        test_stuck_manager();
        test_strings();
        snprintf(cmd, sizeof(cmd), "rm -rf %s", run);
        (void) system(cmd);
        return test_result();
}
