/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Focus store (see focus.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/desktop/focus.h"
#include "lib/macro.h"
#include "lib/time-util.h"

typedef struct FocusScope {
        char *cgroup;
        uid_t uid;
        bool focused;
        uint64_t since_usec;
        uint64_t seen_usec; /* last change, to forget the oldest */
} FocusScope;

/* A process that was its user's foreground one, and when it stopped. */
typedef struct FocusLeft {
        pid_t pid;
        char *cgroup; /* its app cgroup, NULL if it is in none */
        uint64_t left_usec;
} FocusLeft;

typedef struct FocusForeground {
        uid_t uid;
        pid_t pid;
        char *cgroup;     /* its app cgroup, NULL if it is in none */
        pid_t caller_pid;
        const char *method;
        uint64_t since_usec;
        /* The focus history: the last ones in the foreground, newest first;
         * every other app is unfocused since base_usec (the user's first
         * call, or the newest time forgotten from LEFT). */
        FocusLeft left[FOCUS_LEFT_MAX];
        size_t n_left;
        uint64_t base_usec;
        char *app_slice; /* the user's app.slice, from a named process's cgroup */
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

static void foreground_done(FocusForeground *f)
{
        free(f->cgroup);
        free(f->app_slice);
        for (size_t i = 0; i < f->n_left; i++)
                free(f->left[i].cgroup);
}

FocusStore *focus_store_free(FocusStore *s)
{
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_scopes; i++)
                free(s->scopes[i].cgroup);
        free(s->scopes);
        for (size_t i = 0; i < s->n_users; i++)
                foreground_done(&s->users[i]);
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

/* Is the process PID (parent PPID) in CGROUP (in_app: an app cgroup of
 * its user) the one of PID_AT in APP? */
static bool same_app(pid_t pid, pid_t ppid, const char *cgroup, bool in_app, pid_t pid_at,
                     const char *app)
{
        return pid_at > 0 && (pid == pid_at || (ppid > 0 && ppid == pid_at) ||
                              (app && in_app && cgroup_within(cgroup, app)));
}

/* The entry of LEFT that is PID's or APP's, if any. */
static FocusLeft *left_find(FocusForeground *f, pid_t pid, const char *app)
{
        for (size_t i = 0; i < f->n_left; i++)
                if (app ? streq_ptr(f->left[i].cgroup, app) : f->left[i].pid == pid)
                        return &f->left[i];
        return NULL;
}

static void left_remove(FocusForeground *f, FocusLeft *l)
{
        free(l->cgroup);
        memmove(l, l + 1, (size_t)(f->left + f->n_left - (l + 1)) * sizeof(*l));
        f->n_left--;
}

/* The process PID (app APP) left the foreground at NOW; and PID_NEW (app
 * APP_NEW) is there now. -ENOMEM. */
static int left_push(FocusForeground *f, pid_t pid, const char *app, pid_t pid_new,
                     const char *app_new, uint64_t now)
{
        FocusLeft *l;
        char *copy = NULL;

        l = left_find(f, pid_new, app_new);
        if (l)
                left_remove(f, l);
        if (pid <= 0 || (pid == pid_new && streq_ptr(app, app_new)))
                return 0;
        if (app && !(copy = strdup(app)))
                return -ENOMEM;
        l = left_find(f, pid, app);
        if (l)
                left_remove(f, l);
        if (f->n_left == FOCUS_LEFT_MAX) {
                /* the oldest is forgotten: it, and every app not in LEFT,
                 * is unfocused since then at least */
                f->base_usec = MAX(f->base_usec, f->left[f->n_left - 1].left_usec);
                left_remove(f, &f->left[f->n_left - 1]);
        }
        memmove(f->left + 1, f->left, f->n_left * sizeof(*l));
        f->left[0] = (FocusLeft){ .pid = pid, .cgroup = copy, .left_usec = now };
        f->n_left++;
        return 0;
}

/* The user's entry, a new one (the user who named one longest ago
 * forgotten when the store is full). */
static FocusForeground *foreground_add(FocusStore *s, uid_t uid, uint64_t now)
{
        FocusForeground *f;

        if (s->n_users >= FOCUS_USERS_MAX) {
                size_t oldest = 0;

                for (size_t i = 1; i < s->n_users; i++)
                        if (s->users[i].since_usec < s->users[oldest].since_usec)
                                oldest = i;
                foreground_done(&s->users[oldest]);
                s->users[oldest] = s->users[--s->n_users];
        }
        f = &s->users[s->n_users++];
        *f = (FocusForeground){ .uid = uid, .base_usec = now };
        return f;
}

int focus_store_set_foreground(FocusStore *s, uid_t uid, pid_t pid, const char *cgroup,
                               pid_t caller_pid, const char *method, uint64_t now,
                               pid_t *ret_old_pid, char **ret_old_cgroup)
{
        FocusForeground *f = foreground_find(s, uid);
        _cleanup_free_ char *app = NULL;
        int r;

        r = app_of(cgroup, &app);
        if (r < 0)
                return r;
        if (!f)
                f = foreground_add(s, uid, now);
        r = left_push(f, f->pid, f->cgroup, pid, app, now);
        if (r < 0)
                return r;
        if (app && !f->app_slice) {
                f->app_slice = strndup(app, (size_t)(strrchr(app, '/') - app));
                if (!f->app_slice)
                        return -ENOMEM;
        }
        *ret_old_pid = f->pid;
        *ret_old_cgroup = f->cgroup;
        f->pid = pid;
        f->cgroup = TAKE_PTR(app);
        f->caller_pid = caller_pid;
        f->method = method;
        f->since_usec = now;
        return 0;
}

bool focus_store_has_foreground(const FocusStore *s, uid_t uid)
{
        return foreground_find(s, uid) != NULL;
}

static FocusFact fact_from_bus(const FocusForeground *f, FocusState st, uint64_t unfocused_since)
{
        return (FocusFact){ .state = st, .source = FOCUS_SOURCE_BUS, .cgroup = f->cgroup,
                            .since_usec = f->since_usec, .foreground_pid = f->pid,
                            .caller_pid = f->caller_pid, .method = f->method,
                            .unfocused_since = unfocused_since };
}

/* Since when the process, not in the foreground, has been unfocused: when it
 * last left it, or the user's base. */
static uint64_t bus_unfocused_since(const FocusForeground *f, pid_t pid, pid_t ppid,
                                    const char *cgroup, bool in_app)
{
        for (size_t i = 0; i < f->n_left; i++)
                if (same_app(pid, ppid, cgroup, in_app, f->left[i].pid, f->left[i].cgroup))
                        return f->left[i].left_usec;
        return f->base_usec;
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
        if (f && same_app(pid, ppid, cgroup, in_app, f->pid, f->cgroup))
                return fact_from_bus(f, FOCUS_YES, 0);
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
                                    .since_usec = best->since_usec,
                                    .unfocused_since = best->focused ? 0 : best->since_usec };
        if (f && f->pid > 0)
                return fact_from_bus(f, FOCUS_NO,
                                     bus_unfocused_since(f, pid, ppid, cgroup, in_app));
        return (FocusFact){};
}

uint64_t focus_fact_unfocused_for(const FocusFact *f, uint64_t now)
{
        return f->state == FOCUS_NO && now > f->unfocused_since ? now - f->unfocused_since : 0;
}

/* One time a process (or app, or a user's other apps) lost the focus. */
typedef struct FocusLoss {
        uid_t uid;
        const char *cgroup;
        pid_t pid;
        uint64_t since;
} FocusLoss;

typedef void (*loss_fn)(const FocusLoss *l, void *userdata);

static void foreach_loss(const FocusStore *s, loss_fn fn, void *userdata)
{
        for (size_t i = 0; i < s->n_scopes; i++)
                if (!s->scopes[i].focused)
                        fn(&(FocusLoss){ .uid = s->scopes[i].uid, .cgroup = s->scopes[i].cgroup,
                                         .since = s->scopes[i].since_usec },
                           userdata);
        for (size_t i = 0; i < s->n_users; i++) {
                const FocusForeground *f = &s->users[i];

                if (f->pid <= 0)
                        continue;
                for (size_t j = 0; j < f->n_left; j++)
                        fn(&(FocusLoss){ .uid = f->uid, .cgroup = f->left[j].cgroup,
                                         .pid = f->left[j].cgroup ? 0 : f->left[j].pid,
                                         .since = f->left[j].left_usec },
                           userdata);
                fn(&(FocusLoss){ .uid = f->uid, .cgroup = f->app_slice, .since = f->base_usec },
                   userdata);
        }
}

typedef struct Crossing {
        const uint64_t *spans;
        size_t n;
        uint64_t after, upto, next;
        focus_crossed_t fn;
        void *userdata;
} Crossing;

static void next_of(const FocusLoss *l, void *userdata)
{
        Crossing *c = userdata;

        for (size_t i = 0; i < c->n; i++)
                if (l->since <= UINT64_MAX - c->spans[i] && l->since + c->spans[i] > c->after)
                        c->next = MIN(c->next, l->since + c->spans[i]);
}

uint64_t focus_store_next_crossing(const FocusStore *s, const uint64_t *spans, size_t n,
                                   uint64_t after)
{
        Crossing c = { .spans = spans, .n = n, .after = after, .next = UINT64_MAX };

        if (s)
                foreach_loss(s, next_of, &c);
        return c.next;
}

static void crossed_of(const FocusLoss *l, void *userdata)
{
        Crossing *c = userdata;

        for (size_t i = 0; i < c->n; i++)
                if (l->since <= UINT64_MAX - c->spans[i] && l->since + c->spans[i] > c->after &&
                    l->since + c->spans[i] <= c->upto) {
                        c->fn(c->userdata, l->uid, l->cgroup, l->pid);
                        return; /* once is enough */
                }
}

void focus_store_crossed(const FocusStore *s, const uint64_t *spans, size_t n, uint64_t after,
                         uint64_t upto, focus_crossed_t fn, void *userdata)
{
        Crossing c = { .spans = spans, .n = n, .after = after, .upto = upto, .fn = fn,
                       .userdata = userdata };

        if (s)
                foreach_loss(s, crossed_of, &c);
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

/* A span in words: "12 s", "4 min", "2 h 5 min". */
static void format_span(uint64_t usec, char *buf, size_t size)
{
        uint64_t sec = usec / 1000000;

        if (sec < 60)
                snprintf(buf, size, "%" PRIu64 " s", sec);
        else if (sec < 3600)
                snprintf(buf, size, "%" PRIu64 " min", sec / 60);
        else
                snprintf(buf, size, "%" PRIu64 " h %" PRIu64 " min", sec / 3600,
                         sec % 3600 / 60);
}

int focus_fact_format(const FocusFact *f, uint64_t mono_now, uint64_t real_now, char **ret)
{
        char when[32], lost[32], span[32];
        int r;

        time_format_clock(f->since_usec, mono_now, real_now, when, sizeof(when));
        time_format_clock(f->unfocused_since, mono_now, real_now, lost, sizeof(lost));
        format_span(focus_fact_unfocused_for(f, mono_now), span, sizeof(span));
        if (f->state == FOCUS_UNKNOWN)
                r = asprintf(ret, "%s", "");
        else if (f->source == FOCUS_SOURCE_XATTR && f->state == FOCUS_YES)
                r = asprintf(ret, "focused since %s (user.xdg.inactive-since on %s)", when,
                             f->cgroup);
        else if (f->source == FOCUS_SOURCE_XATTR)
                r = asprintf(ret, "unfocused since %s (%s; user.xdg.inactive-since on %s)", lost,
                             span, f->cgroup);
        else if (f->state == FOCUS_YES)
                r = asprintf(ret, "focused (%s from pid %d, %s)", f->method, (int)f->caller_pid,
                             when);
        else
                r = asprintf(ret, "unfocused since %s (%s; pid %d of the same user is in the "
                             "foreground, %s from pid %d, %s)", lost, span,
                             (int)f->foreground_pid, f->method, (int)f->caller_pid, when);
        if (r < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return 0;
}
