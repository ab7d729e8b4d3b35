/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/desktop/focus.c: the focus store, from the attribute of app
 * cgroups and from a compositor's D-Bus call. */
#include <stdlib.h>

#include "daemon/desktop/focus.h"
#include "test-util.h"

#define APPS "/user.slice/user-1000.slice/user@1000.service/app.slice"
#define TERM APPS "/app-gnome-org.gnome.Terminal-42.scope"
#define EDIT APPS "/app-gnome-org.gnome.TextEditor-43.scope"

static void test_app_cgroup(void)
{
        uid_t uid = 0;
        size_t end = 0;

        check(focus_app_cgroup(TERM, &uid, &end) && uid == 1000 && end == sizeof(TERM) - 1);
        check(focus_app_cgroup(TERM "/sub", NULL, &end) && end == sizeof(TERM) - 1);
        check(!focus_app_cgroup(APPS, NULL, NULL));
        check(!focus_app_cgroup(APPS "/", NULL, NULL));
        check(!focus_app_cgroup("/user.slice/user-1000.slice/user@1000.service/session.slice/x",
                                NULL, NULL));
        check(!focus_app_cgroup("/system.slice/foo.service", NULL, NULL));
        check(!focus_app_cgroup("/user.slice/user@x.service/app.slice/a.scope", NULL, NULL));
        check(!focus_app_cgroup(NULL, NULL, NULL));
}

static void test_xattr(void)
{
        FocusStore *s;
        FocusFact f;

        CHECK(focus_store_new(&s) == 0);
        check(focus_store_lookup(s, 1000, 10, 1, TERM).state == FOCUS_UNKNOWN);
        check(focus_store_set_scope(s, "/system.slice/x.service", true, 0, 5) == -EINVAL);
        check(focus_store_set_scope(s, TERM, true, 0, 100) == 1);
        check(focus_store_set_scope(s, TERM, true, 0, 200) == 0);
        check(focus_store_set_scope(s, EDIT, false, 50, 100) == 1);
        f = focus_store_lookup(s, 1000, 10, 1, TERM "/inner");
        check(f.state == FOCUS_YES && f.source == FOCUS_SOURCE_XATTR && f.since_usec == 100);
        check_streq(f.cgroup, TERM);
        f = focus_store_lookup(s, 1000, 11, 1, EDIT);
        check(f.state == FOCUS_NO && f.since_usec == 50);
        /* a process of another user in that cgroup is not judged by it */
        check(focus_store_lookup(s, 65534, 12, 1, TERM).state == FOCUS_UNKNOWN);
        /* nor is a system service */
        check(focus_store_lookup(s, 1000, 13, 1, "/system.slice/x.service").state ==
              FOCUS_UNKNOWN);
        /* focus moves */
        check(focus_store_set_scope(s, TERM, false, 300, 300) == 1);
        check(focus_store_set_scope(s, EDIT, true, 0, 300) == 1);
        check(focus_store_lookup(s, 1000, 10, 1, TERM).state == FOCUS_NO);
        check(focus_store_lookup(s, 1000, 11, 1, EDIT).state == FOCUS_YES);
        check(focus_store_drop_scope(s, EDIT) == 1);
        check(focus_store_drop_scope(s, EDIT) == 0);
        check(focus_store_lookup(s, 1000, 11, 1, EDIT).state == FOCUS_UNKNOWN);
        check(focus_store_n_scopes(s) == 1);
        focus_store_free(s);
}

static void test_bus(void)
{
        FocusStore *s;
        FocusFact f;
        char *old = NULL;
        pid_t old_pid = -1;

        CHECK(focus_store_new(&s) == 0);
        CHECK(focus_store_set_foreground(s, 1000, 500, TERM "/x", 77, "SetForegroundProcess",
                                         1000, &old_pid, &old) == 0);
        check(old_pid == 0 && !old);
        f = focus_store_lookup(s, 1000, 500, 1, "/whatever");
        check(f.state == FOCUS_YES && f.source == FOCUS_SOURCE_BUS && f.caller_pid == 77 &&
              f.foreground_pid == 500);
        check_streq(f.method, "SetForegroundProcess");
        /* its child, and its app's other processes */
        check(focus_store_lookup(s, 1000, 501, 500, "/elsewhere").state == FOCUS_YES);
        check(focus_store_lookup(s, 1000, 502, 1, TERM).state == FOCUS_YES);
        /* another app of the user is unfocused, a service unknown, another user unknown */
        check(focus_store_lookup(s, 1000, 503, 1, EDIT).state == FOCUS_NO);
        check(focus_store_lookup(s, 1000, 504, 1, "/user.slice/user-1000.slice/session-2.scope")
              .state == FOCUS_UNKNOWN);
        check(focus_store_lookup(s, 0, 500, 1, TERM).state == FOCUS_UNKNOWN);
        check(focus_store_lookup(s, 65534, 505, 1, "/x").state == FOCUS_UNKNOWN);
        /* the next one says which was before */
        CHECK(focus_store_set_foreground(s, 1000, 600, "/user.slice/x", 78, "SetFocus", 2000,
                                         &old_pid, &old) == 0);
        check(old_pid == 500);
        check_streq(old, TERM);
        free(old);
        check(focus_store_lookup(s, 1000, 500, 1, TERM).state == FOCUS_NO);
        check(focus_store_lookup(s, 1000, 600, 1, "/user.slice/x").state == FOCUS_YES);
        check(focus_store_n_foregrounds(s) == 1);
        /* bounded: the user who named one longest ago is forgotten */
        for (uid_t u = 1; u <= FOCUS_USERS_MAX; u++) {
                CHECK(focus_store_set_foreground(s, 2000 + u, 10, NULL, 1, "SetFocus", 3000 + u,
                                                 &old_pid, &old) == 0);
                free(old);
        }
        check(focus_store_n_foregrounds(s) == FOCUS_USERS_MAX);
        check(focus_store_lookup(s, 1000, 600, 1, "/user.slice/x").state == FOCUS_UNKNOWN);
        focus_store_free(s);
}

int main(void)
{
        test_app_cgroup();
        test_xattr();
        test_bus();
        return test_result();
}
