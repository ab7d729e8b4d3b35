/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Focus watch: follows user.xdg.inactive-since on the users' app cgroups
 * with inotify, no polling, into a FocusStore (daemon/desktop/focus.h).
 *
 * Watched (cgroup2): the users' slice directory (/user.slice), each
 * user-UID.slice in it, each user@UID.service in those, each app.slice in
 * those, and every cgroup below app.slice (up to FOCUS_WATCH_DEPTH levels):
 * IN_CREATE for new directories on the way, IN_ATTRIB on the cgroups below
 * app.slice, which is how a change of an extended attribute shows. A new
 * directory is watched and its attribute read at once (it may have been set
 * before the watch); an event queue overflow reads every attribute again.
 * At most FOCUS_WATCHES_MAX watches; beyond that new cgroups are not
 * followed, said once.
 */
#pragma once

#include <systemd/sd-event.h>

#include "daemon/desktop/focus.h"

#define FOCUS_XATTR "user.xdg.inactive-since"
#define FOCUS_WATCH_DEPTH 6
#define FOCUS_WATCHES_MAX 8192

typedef struct FocusWatch FocusWatch;

/* What the store says of app cgroup CGROUP (relative to the cgroup root,
 * "/user.slice/...") changed. */
typedef void (*focus_watch_changed_t)(void *userdata, const char *cgroup);

/*
 * Watch CGROUP_ROOT/USER_SLICE (USER_SLICE relative to the cgroup2 root,
 * "/user.slice"; -ENOENT if there is none) on EVENT, keeping STORE (borrowed)
 * current and calling CHANGED for each change. Reads every attribute
 * there is before it returns (without calling CHANGED).
 */
int focus_watch_new(sd_event *event, const char *cgroup_root, const char *user_slice,
                    FocusStore *store, focus_watch_changed_t changed, void *userdata,
                    FocusWatch **ret);
FocusWatch *focus_watch_free(FocusWatch *w);
static inline void focus_watch_freep(FocusWatch **w)
{
        if (*w)
                focus_watch_free(*w);
}

size_t focus_watch_n_watches(const FocusWatch *w);
