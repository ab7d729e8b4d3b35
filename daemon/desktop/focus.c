/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Focus store (see focus.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/desktop/focus.h"
#include "lib/macro.h"

typedef struct FocusScope {
        char *cgroup;
        uid_t uid;
        bool focused;
        uint64_t since_usec;
        uint64_t seen_usec; /* last change, to forget the oldest */
} FocusScope;

typedef struct FocusForeground {
        uid_t uid;
        pid_t pid;
        char *cgroup;     /* its app cgroup, NULL if it is in none */
        pid_t caller_pid;
        const char *method;
        uint64_t since_usec;
} FocusForeground;

struct FocusStore {
        FocusScope *scopes;
        size_t n_scopes, allocated;
        FocusForeground users[FOCUS_USERS_MAX];
        size_t n_users;
};

int focus_store_new(FocusStore **ret)
{
        FocusStore *s = calloc(1, sizeof(*s));

        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

FocusStore *focus_store_free(FocusStore *s)
{
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_scopes; i++)
                free(s->scopes[i].cgroup);
        free(s->scopes);
        for (size_t i = 0; i < s->n_users; i++)
                free(s->users[i].cgroup);
        free(s);
        return NULL;
}

static bool parse_uid(const char *p, size_t n, uid_t *ret)
{
        unsigned long v = 0;

        if (n == 0 || n > 10)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (p[i] < '0' || p[i] > '9')
                        return false;
                v = v * 10 + (unsigned long)(p[i] - '0');
        }
        if (v >= UINT32_MAX)
                return false;
        *ret = (uid_t)v;
        return true;
}

bool focus_app_cgroup(const char *cgroup, uid_t *ret_uid, size_t *ret_app_end)
{
        static const char svc[] = ".service/app.slice/";
        const char *p, *at, *app, *end;
        uid_t uid;

        if (!cgroup)
                return false;
        /* the last "/user@UID.service/app.slice/" in the path */
        for (p = cgroup, at = NULL; (p = strstr(p, "/user@")); p++)
                at = p;
        if (!at)
                return false;
        end = strchr(at + 6, '.');
        if (!end || !parse_uid(at + 6, (size_t)(end - at - 6), &uid) ||
            strncmp(end, svc, strlen(svc)) != 0)
                return false;
        app = end + strlen(svc);
        if (*app == 0 || *app == '/')
                return false;
        if (ret_uid)
                *ret_uid = uid;
        if (ret_app_end)
                *ret_app_end = (size_t)(strchrnul(app, '/') - cgroup);
        return true;
}

/* Is CGROUP the app cgroup APP, or below it? */
static bool cgroup_within(const char *cgroup, const char *app)
{
        size_t n = strlen(app);

        return cgroup && strncmp(cgroup, app, n) == 0 && (cgroup[n] == 0 || cgroup[n] == '/');
}

static FocusScope *scope_find(const FocusStore *s, const char *cgroup)
{
        for (size_t i = 0; i < s->n_scopes; i++)
                if (streq(s->scopes[i].cgroup, cgroup))
                        return &s->scopes[i];
        return NULL;
}

static void scope_remove(FocusStore *s, FocusScope *sc)
{
        free(sc->cgroup);
        *sc = s->scopes[--s->n_scopes];
}

/* A free entry, the oldest one forgotten when the store is full. */
static FocusScope *scope_add(FocusStore *s)
{
        if (s->n_scopes >= FOCUS_SCOPES_MAX) {
                FocusScope *oldest = &s->scopes[0];

                for (size_t i = 1; i < s->n_scopes; i++)
                        if (s->scopes[i].seen_usec < oldest->seen_usec)
                                oldest = &s->scopes[i];
                scope_remove(s, oldest);
        }
        if (s->n_scopes == s->allocated) {
                size_t n = MAX(s->allocated * 2, (size_t)16);
                FocusScope *p = reallocarray(s->scopes, n, sizeof(*p));

                if (!p)
                        return NULL;
                s->scopes = p;
                s->allocated = n;
        }
        return &s->scopes[s->n_scopes++];
}

int focus_store_set_scope(FocusStore *s, const char *cgroup, bool focused, uint64_t since_usec,
                          uint64_t now)
{
        FocusScope *sc;
        uid_t uid;
        char *copy;

        if (!focus_app_cgroup(cgroup, &uid, NULL))
                return -EINVAL;
        sc = scope_find(s, cgroup);
        if (sc) {
                if (sc->focused == focused && (focused || sc->since_usec == since_usec))
                        return 0;
                sc->focused = focused;
                sc->since_usec = focused ? now : since_usec;
                sc->seen_usec = now;
                return 1;
        }
        copy = strdup(cgroup);
        if (!copy)
                return -ENOMEM;
        sc = scope_add(s);
        if (!sc) {
                free(copy);
                return -ENOMEM;
        }
        *sc = (FocusScope){ .cgroup = copy, .uid = uid, .focused = focused,
                            .since_usec = focused ? now : since_usec, .seen_usec = now };
        return 1;
}

int focus_store_drop_scope(FocusStore *s, const char *cgroup)
{
        FocusScope *sc = scope_find(s, cgroup);

        if (!sc)
                return 0;
        scope_remove(s, sc);
        return 1;
}

static FocusForeground *foreground_find(const FocusStore *s, uid_t uid)
{
        for (size_t i = 0; i < s->n_users; i++)
                if (s->users[i].uid == uid)
                        return (FocusForeground *)&s->users[i];
        return NULL;
}

/* The app cgroup of CGROUP (a copy), NULL (and 0) if it is in none. */
static int app_of(const char *cgroup, char **ret)
{
        size_t end;

        *ret = NULL;
        if (!focus_app_cgroup(cgroup, NULL, &end))
                return 0;
        *ret = strndup(cgroup, end);
        return *ret ? 0 : -ENOMEM;
}

int focus_store_set_foreground(FocusStore *s, uid_t uid, pid_t pid, const char *cgroup,
                               pid_t caller_pid, const char *method, uint64_t now,
                               pid_t *ret_old_pid, char **ret_old_cgroup)
{
        FocusForeground *f = foreground_find(s, uid);
        char *app;
        int r;

        r = app_of(cgroup, &app);
        if (r < 0)
                return r;
        if (!f) {
                if (s->n_users >= FOCUS_USERS_MAX) {
                        /* forget the user who named one longest ago */
                        size_t oldest = 0;

                        for (size_t i = 1; i < s->n_users; i++)
                                if (s->users[i].since_usec < s->users[oldest].since_usec)
                                        oldest = i;
                        free(s->users[oldest].cgroup);
                        s->users[oldest] = s->users[--s->n_users];
                }
                f = &s->users[s->n_users++];
                *f = (FocusForeground){ .uid = uid };
        }
        *ret_old_pid = f->pid;
        *ret_old_cgroup = f->cgroup;
        *f = (FocusForeground){ .uid = uid, .pid = pid, .cgroup = app, .caller_pid = caller_pid,
                                .method = method, .since_usec = now };
        return 0;
}

bool focus_store_has_foreground(const FocusStore *s, uid_t uid)
{
        return foreground_find(s, uid) != NULL;
}

static FocusFact fact_from_bus(const FocusForeground *f, FocusState st)
{
        return (FocusFact){ .state = st, .source = FOCUS_SOURCE_BUS, .cgroup = f->cgroup,
                            .since_usec = f->since_usec, .foreground_pid = f->pid,
                            .caller_pid = f->caller_pid, .method = f->method };
}

FocusFact focus_store_lookup(const FocusStore *s, uid_t uid, pid_t pid, pid_t ppid,
                             const char *cgroup)
{
        const FocusForeground *f = s ? foreground_find(s, uid) : NULL;
        const FocusScope *best = NULL;
        uid_t owner;
        bool in_app;

        if (!s)
                return (FocusFact){};
        in_app = focus_app_cgroup(cgroup, &owner, NULL) && owner == uid;
        if (f && f->pid > 0 &&
            (pid == f->pid || (ppid > 0 && ppid == f->pid) ||
             (f->cgroup && in_app && cgroup_within(cgroup, f->cgroup))))
                return fact_from_bus(f, FOCUS_YES);
        if (!in_app)
                return (FocusFact){};
        /* the innermost app cgroup with an attribute that holds it */
        for (size_t i = 0; i < s->n_scopes; i++) {
                const FocusScope *sc = &s->scopes[i];

                if (sc->uid == uid && cgroup_within(cgroup, sc->cgroup) &&
                    (!best || strlen(sc->cgroup) > strlen(best->cgroup)))
                        best = sc;
        }
        if (best)
                return (FocusFact){ .state = best->focused ? FOCUS_YES : FOCUS_NO,
                                    .source = FOCUS_SOURCE_XATTR, .cgroup = best->cgroup,
                                    .since_usec = best->since_usec };
        if (f && f->pid > 0)
                return fact_from_bus(f, FOCUS_NO);
        return (FocusFact){};
}

size_t focus_store_n_scopes(const FocusStore *s)
{
        return s ? s->n_scopes : 0;
}

size_t focus_store_n_foregrounds(const FocusStore *s)
{
        return s ? s->n_users : 0;
}

const char *focus_state_to_string(FocusState st)
{
        return st == FOCUS_YES ? "yes" : st == FOCUS_NO ? "no" : NULL;
}

static void format_clock(uint64_t mono, uint64_t mono_now, uint64_t real_now, char *buf,
                         size_t size)
{
        uint64_t real = mono <= mono_now ? real_now - MIN(real_now, mono_now - mono) : real_now;
        time_t t = (time_t)(real / 1000000);
        struct tm tm;

        if (!localtime_r(&t, &tm) || strftime(buf, size, "%H:%M:%S", &tm) == 0)
                snprintf(buf, size, "?");
}

int focus_fact_format(const FocusFact *f, uint64_t mono_now, uint64_t real_now, char **ret)
{
        const char *what = f->state == FOCUS_YES ? "focused" : "unfocused";
        char when[32];
        int r;

        format_clock(f->since_usec, mono_now, real_now, when, sizeof(when));
        if (f->state == FOCUS_UNKNOWN)
                r = asprintf(ret, "%s", "");
        else if (f->source == FOCUS_SOURCE_XATTR)
                r = asprintf(ret, "%s since %s (user.xdg.inactive-since on %s)", what, when,
                             f->cgroup);
        else if (f->state == FOCUS_YES)
                r = asprintf(ret, "focused (%s from pid %d, %s)", f->method, (int)f->caller_pid,
                             when);
        else
                r = asprintf(ret, "unfocused (pid %d of the same user is in the foreground, %s "
                             "from pid %d, %s)", (int)f->foreground_pid, f->method,
                             (int)f->caller_pid, when);
        if (r < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return 0;
}
