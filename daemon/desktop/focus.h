/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Focus store: which app has the user's focus, as latniced was told.
 *
 * Two sources, each kept per user:
 *   - the attribute user.xdg.inactive-since that GNOME's Mutter writes on
 *     the cgroup of every app below user@UID.service/app.slice
 *     (lib/inactive-since.h; daemon/desktop/focus-watch.c follows it with inotify):
 *     one entry per such cgroup, focused or unfocused since a time;
 *   - a compositor's D-Bus call (SetFocus, or system76-scheduler's
 *     SetForegroundProcess: daemon/bus/bus-focus.c): one foreground process per
 *     user, with who named it and when.
 *
 * A process is focused when its cgroup is (or lies below) an app cgroup
 * whose attribute says "-1", or when it is its user's foreground process,
 * a child of it, or in the same app cgroup below app.slice (an app's
 * helpers share its scope). It is unfocused when it is in another app
 * cgroup: one whose attribute gives a time, or, when its user named a
 * foreground process, any other app cgroup below its app.slice. Anything
 * else is unknown: a system service is neither. Only a process of the
 * user whose user@UID.service holds the cgroup is judged by its attribute.
 *
 * Everything here is the user's choice (they may write the attribute on
 * their own scopes and call SetFocus for their own processes), so the
 * match key that reads it ("focused", policy/keys.c) is KEY_TRUST_USER:
 * it grants no boost its user could not take anyway (latnice.policy(5),
 * BOOSTS AND TRUST).
 *
 * Pure data; time is passed in (CLOCK_MONOTONIC µs).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Bounds: app cgroups with an attribute (all users), users with a
 * foreground process. Beyond them the oldest entry is forgotten. */
#define FOCUS_SCOPES_MAX 4096
#define FOCUS_USERS_MAX 256
/* Per user, the foreground processes (apps) of the last calls that
 * remember when they lost the focus. */
#define FOCUS_LEFT_MAX 8

typedef enum FocusState {
        FOCUS_UNKNOWN = 0,
        FOCUS_NO,
        FOCUS_YES,
} FocusState;

typedef enum FocusSource {
        FOCUS_SOURCE_NONE = 0,
        FOCUS_SOURCE_XATTR, /* user.xdg.inactive-since */
        FOCUS_SOURCE_BUS,   /* SetFocus, SetForegroundProcess */
} FocusSource;

/* What the store knows of one process. Strings are borrowed from the store
 * until its next change. */
typedef struct FocusFact {
        FocusState state;
        FocusSource source;
        /* XATTR: the app cgroup whose attribute decided; BUS: the foreground
         * process's app cgroup, or NULL */
        const char *cgroup;
        /* CLOCK_MONOTONIC µs: XATTR focused: when latniced saw "-1" first;
         * XATTR unfocused: the attribute's time; BUS: when the call came */
        uint64_t since_usec;
        /* FOCUS_NO: CLOCK_MONOTONIC µs it lost the focus (the "unfocused"
         * key): XATTR: the attribute's time; BUS: when a call named another
         * process while it was in the foreground, or, if latniced never saw
         * it there, when its user first named one (or the oldest change
         * latniced still remembers, FOCUS_LEFT_MAX) */
        uint64_t unfocused_since;
        /* BUS: the foreground process, the caller's pid and the method */
        pid_t foreground_pid;
        pid_t caller_pid;
        const char *method;
} FocusFact;

typedef struct FocusStore FocusStore;

int focus_store_new(FocusStore **ret);
FocusStore *focus_store_free(FocusStore *s);
static inline void focus_store_freep(FocusStore **s)
{
        if (*s)
                focus_store_free(*s);
}

/* "user@UID.service/app.slice" in CGROUP (a cgroup path, "/user.slice/..."),
 * and the cgroup is below it: true with *RET_UID. The root of an app's
 * cgroup is the component just below app.slice; *RET_APP_END (optional)
 * gets its length in CGROUP. */
bool focus_app_cgroup(const char *cgroup, uid_t *ret_uid, size_t *ret_app_end);

/*
 * The attribute of app cgroup CGROUP (a path as focus_app_cgroup() takes
 * it; other paths are refused with -EINVAL) is now FOCUSED, or unfocused
 * since SINCE_USEC; NOW is the time. Returns 1 if what the store says of
 * it changed, 0 if not, -ENOMEM.
 */
int focus_store_set_scope(FocusStore *s, const char *cgroup, bool focused, uint64_t since_usec,
                          uint64_t now);
/* CGROUP lost its attribute or is gone: 1 if the store had it, else 0. */
int focus_store_drop_scope(FocusStore *s, const char *cgroup);

/*
 * UID's foreground process is now PID (in cgroup CGROUP, NULL if unknown),
 * named by CALLER_PID through METHOD (a static string) at NOW. The one
 * before it (0 if none) in *RET_OLD_PID, its cgroup in *RET_OLD_CGROUP
 * (owned by the caller; NULL if none). -ENOMEM.
 */
int focus_store_set_foreground(FocusStore *s, uid_t uid, pid_t pid, const char *cgroup,
                               pid_t caller_pid, const char *method, uint64_t now,
                               pid_t *ret_old_pid, char **ret_old_cgroup);

/* Has UID named a foreground process? */
bool focus_store_has_foreground(const FocusStore *s, uid_t uid);

/* What the store knows of process PID (parent PPID, 0 if unknown) of UID in
 * CGROUP (NULL if unknown). */
FocusFact focus_store_lookup(const FocusStore *s, uid_t uid, pid_t pid, pid_t ppid,
                             const char *cgroup);

/* For how long F's process has been unfocused at NOW (µs; 0 unless F says
 * unfocused). */
uint64_t focus_fact_unfocused_for(const FocusFact *f, uint64_t now);

/*
 * The focus history against time (the "unfocused" key: unfocused:>5min):
 * the moments at which a process's match may change are each time a
 * process lost the focus plus each of SPANS (N µs, the policy's,
 * policy_durations()).
 *
 * focus_store_next_crossing(): the earliest such moment after AFTER,
 * UINT64_MAX if there is none.
 *
 * focus_store_crossed(): FN for each of the moments in (AFTER, UPTO], with
 * what to evaluate again: app cgroup CGROUP (PID 0), or process PID (and
 * its children; CGROUP its app cgroup or NULL), or, for all of UID's apps
 * that latniced never saw in the foreground, UID's app.slice as CGROUP, or
 * NULL when it is not known (then everything of UID). FN must not change
 * the store.
 */
uint64_t focus_store_next_crossing(const FocusStore *s, const uint64_t *spans, size_t n,
                                   uint64_t after);
typedef void (*focus_crossed_t)(void *userdata, uid_t uid, const char *cgroup, pid_t pid);
void focus_store_crossed(const FocusStore *s, const uint64_t *spans, size_t n, uint64_t after,
                         uint64_t upto, focus_crossed_t fn, void *userdata);

/* Number of app cgroups with an attribute, of users with a foreground. */
size_t focus_store_n_scopes(const FocusStore *s);
size_t focus_store_n_foregrounds(const FocusStore *s);

const char *focus_state_to_string(FocusState st); /* "yes", "no", NULL */

/*
 * F as a sentence for explain and the journal: "focused since 12:03:11
 * (user.xdg.inactive-since on CGROUP)", "unfocused since 12:04:40 (4 min;
 * user.xdg.inactive-since on CGROUP)",
 * "focused (SetForegroundProcess from pid 812, 12:03:11)", "unfocused since
 * 12:04:40 (4 min; pid 900 of the same user is in the foreground, SetFocus
 * from pid 812, 12:04:40)"; ""
 * when unknown. Times are local times of the CLOCK_MONOTONIC µs in F, with
 * MONO_NOW and REAL_NOW (CLOCK_REALTIME µs) taken at one moment. -ENOMEM.
 */
int focus_fact_format(const FocusFact *f, uint64_t mono_now, uint64_t real_now, char **ret);
