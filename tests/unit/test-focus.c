/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/desktop/focus.c: the focus store, from the attribute of app
 * cgroups and from a compositor's D-Bus call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/desktop/focus.h"
#include "lib/macro.h"
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

/* What focus_store_crossed() asked to evaluate, one line each. */
typedef struct Crossed {
        char lines[16][256];
        size_t n;
} Crossed;

static void on_crossed(void *userdata, uid_t uid, const char *cgroup, pid_t pid)
{
        Crossed *c = userdata;

        if (c->n < ELEMENTSOF(c->lines))
                snprintf(c->lines[c->n++], sizeof(c->lines[0]), "%u %s %d", (unsigned)uid,
                         cgroup ? cgroup : "-", (int)pid);
}

/* The focus history: since when a process is unfocused (the "unfocused"
 * key), from the attribute and from the calls, and the moments at which a
 * span of the policy passes. */
static void test_history(void)
{
        static const uint64_t spans[] = { 10, 300 };
        FocusStore *s;
        FocusFact f;
        Crossed c = {};
        char *old = NULL, *text = NULL;
        pid_t old_pid;

        CHECK(focus_store_new(&s) == 0);
        check(focus_store_next_crossing(s, spans, 2, 0) == UINT64_MAX);
        /* the attribute: unfocused since its time; focused has no such time */
        CHECK(focus_store_set_scope(s, EDIT, false, 1000, 1500) == 1);
        CHECK(focus_store_set_scope(s, TERM, true, 0, 1500) == 1);
        f = focus_store_lookup(s, 1000, 11, 1, EDIT);
        check(f.unfocused_since == 1000 && focus_fact_unfocused_for(&f, 1500) == 500);
        f = focus_store_lookup(s, 1000, 10, 1, TERM);
        check(focus_fact_unfocused_for(&f, 1500) == 0);
        check(focus_store_next_crossing(s, spans, 2, 0) == 1010);
        check(focus_store_next_crossing(s, spans, 2, 1010) == 1300);
        check(focus_store_next_crossing(s, spans, 2, 1300) == UINT64_MAX);
        check(focus_store_next_crossing(s, spans, 0, 0) == UINT64_MAX);
        focus_store_crossed(s, spans, 2, 1009, 1010, on_crossed, &c);
        check(c.n == 1);
        check_streq(c.lines[0], "1000 " EDIT " 0");
        c.n = 0;
        focus_store_crossed(s, spans, 2, 1010, 1299, on_crossed, &c);
        check(c.n == 0);
        /* the sentence says since when and how long */
        CHECK(focus_fact_format(&(FocusFact){ .state = FOCUS_NO, .source = FOCUS_SOURCE_XATTR,
                                             .cgroup = EDIT, .unfocused_since = 1000,
                                             .since_usec = 1000 },
                                1000 + 245 * UINT64_C(1000000), 1700000000 * UINT64_C(1000000),
                                &text) == 0);
        check(text && strstr(text, "unfocused since ") && strstr(text, " (4 min; "
                                                                     "user.xdg.inactive-since on "
                                                                     EDIT ")"));
        free(text);
        focus_store_drop_scope(s, EDIT);
        focus_store_drop_scope(s, TERM);

        /* the calls: A (TERM) at 2000, B (EDIT) at 3000: A unfocused since
         * 3000; every app never in the foreground since the first call */
        CHECK(focus_store_set_foreground(s, 1000, 500, TERM, 1, "SetFocus", 2000, &old_pid,
                                         &old) == 0);
        f = focus_store_lookup(s, 1000, 700, 1, APPS "/app-other.scope");
        check(f.state == FOCUS_NO && f.unfocused_since == 2000);
        CHECK(focus_store_set_foreground(s, 1000, 600, EDIT, 1, "SetFocus", 3000, &old_pid,
                                         &old) == 0);
        free(old);
        f = focus_store_lookup(s, 1000, 501, 1, TERM);
        check(f.state == FOCUS_NO && f.unfocused_since == 3000);
        check(focus_store_lookup(s, 1000, 700, 1, APPS "/app-other.scope").unfocused_since ==
              2000);
        /* A again at 4000, B left at 4000 */
        CHECK(focus_store_set_foreground(s, 1000, 500, TERM, 1, "SetFocus", 4000, &old_pid,
                                         &old) == 0);
        free(old);
        check(focus_store_lookup(s, 1000, 501, 1, TERM).state == FOCUS_YES);
        check(focus_store_lookup(s, 1000, 601, 1, EDIT).unfocused_since == 4000);
        /* crossings: the app.slice (apps never focused) at 2010 and 2300, B's at 4010 and 4300 */
        check(focus_store_next_crossing(s, spans, 2, 2000) == 2010);
        check(focus_store_next_crossing(s, spans, 2, 2300) == 4010);
        c.n = 0;
        focus_store_crossed(s, spans, 2, 2000, 4010, on_crossed, &c);
        check(c.n == 2);
        check_streq(c.lines[0], "1000 " EDIT " 0");
        check_streq(c.lines[1], "1000 " APPS " 0");
        /* a process in no app cgroup is remembered by pid */
        CHECK(focus_store_set_foreground(s, 1000, 800, "/user.slice/x", 1, "SetFocus", 5000,
                                         &old_pid, &old) == 0);
        free(old);
        CHECK(focus_store_set_foreground(s, 1000, 500, TERM, 1, "SetFocus", 6000, &old_pid,
                                         &old) == 0);
        free(old);
        check(focus_store_lookup(s, 1000, 800, 1, "/user.slice/x").state == FOCUS_UNKNOWN);
        c.n = 0;
        focus_store_crossed(s, spans, 2, 6000, 6010, on_crossed, &c);
        check(c.n == 1);
        check_streq(c.lines[0], "1000 - 800");
        /* bounded: beyond FOCUS_LEFT_MAX, the oldest is forgotten, and what
         * is not remembered is unfocused since the newest forgotten time */
        for (int i = 0; i < FOCUS_LEFT_MAX + 2; i++) {
                char cg[256];

                snprintf(cg, sizeof(cg), APPS "/app-%d.scope", i);
                CHECK(focus_store_set_foreground(s, 1000, 900 + i, cg, 1, "SetFocus",
                                                 (uint64_t)(7000 + 100 * i), &old_pid,
                                                 &old) == 0);
                free(old);
        }
        f = focus_store_lookup(s, 1000, 1, 1, APPS "/app-never.scope");
        check(f.state == FOCUS_NO && f.unfocused_since > 2000 && f.unfocused_since <= 7100);
        f = focus_store_lookup(s, 1000, 1, 1, APPS "/app-8.scope");
        check(f.unfocused_since == 7900);
        focus_store_free(s);
}

int main(void)
{
        test_app_cgroup();
        test_xattr();
        test_bus();
        test_history();
        return test_result();
}
