/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Focus watch (see focus-watch.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "daemon/desktop/focus-watch.h"
#include "lib/inactive-since.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"

/* Levels below the users' slice: 0 the slice, 1 user-UID.slice,
 * 2 user@UID.service, 3 app.slice, 4 and more: app cgroups and below. */
#define LEVEL_APP_SLICE 3

typedef struct Watched {
        int wd;
        unsigned level;
        char *cgroup; /* relative to the cgroup root */
} Watched;

struct FocusWatch {
        char *root;
        int fd;
        sd_event_source *io;
        FocusStore *store;
        focus_watch_changed_t changed;
        void *userdata;
        Watched *w;
        size_t n, allocated;
        bool full_said;
};

static const char *const level_glob[LEVEL_APP_SLICE + 1] = {
        NULL, "user-*.slice", "user@*.service", "app.slice",
};

static Watched *watched_find(FocusWatch *w, int wd)
{
        for (size_t i = 0; i < w->n; i++)
                if (w->w[i].wd == wd)
                        return &w->w[i];
        return NULL;
}

static void watched_forget(FocusWatch *w, Watched *x)
{
        free(x->cgroup);
        *x = w->w[--w->n];
}

/* Read the attribute of CGROUP (level 4 or more) into the store: 1 if that
 * changed what it says. */
static int read_attribute(FocusWatch *w, const char *cgroup)
{
        _cleanup_free_ char *path = NULL;
        char buf[INACTIVE_SINCE_MAX + 1];
        InactiveSince v;
        const char *why;
        ssize_t n;

        if (asprintf(&path, "%s%s", w->root, cgroup) < 0)
                return -ENOMEM;
        n = getxattr(path, FOCUS_XATTR, buf, sizeof(buf));
        if (n < 0) {
                if (errno != ENODATA && errno != ENOENT && errno != ENOTSUP)
                        log_debug("Cannot read %s of %s: %m", FOCUS_XATTR, path);
                return focus_store_drop_scope(w->store, cgroup);
        }
        if (inactive_since_parse(buf, (size_t)n, &v, &why) < 0) {
                log_debug("Ignoring %s of %s: %s", FOCUS_XATTR, path, why);
                return focus_store_drop_scope(w->store, cgroup);
        }
        return focus_store_set_scope(w->store, cgroup, v.focused, v.since_usec,
                                     now_usec(CLOCK_MONOTONIC));
}

static int add_tree(FocusWatch *w, const char *cgroup, unsigned level, bool notify);

/* Watch CGROUP at LEVEL, its attribute and what is below it. */
static int add_one(FocusWatch *w, const char *cgroup, unsigned level, bool notify)
{
        _cleanup_free_ char *path = NULL, *copy = NULL;
        uint32_t mask = IN_CREATE | IN_ONLYDIR | IN_DONT_FOLLOW;
        int wd, r;

        if (level >= LEVEL_APP_SLICE)
                mask |= IN_ATTRIB;
        if (w->n >= FOCUS_WATCHES_MAX) {
                if (!w->full_said)
                        log_warning("Following the focus of %zu cgroups, the most there may be: "
                                    "%s%s and other new ones are not followed.",
                                    w->n, w->root, cgroup);
                w->full_said = true;
                return 0;
        }
        if (asprintf(&path, "%s%s", w->root, cgroup) < 0)
                return -ENOMEM;
        wd = inotify_add_watch(w->fd, path, mask);
        if (wd < 0)
                return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
        if (!watched_find(w, wd)) {
                if (w->n == w->allocated) {
                        size_t m = MAX(w->allocated * 2, (size_t)16);
                        Watched *p = reallocarray(w->w, m, sizeof(*p));

                        if (!p)
                                return -ENOMEM;
                        w->w = p;
                        w->allocated = m;
                }
                copy = strdup(cgroup);
                if (!copy)
                        return -ENOMEM;
                w->w[w->n++] = (Watched){ .wd = wd, .level = level, .cgroup = TAKE_PTR(copy) };
        }
        if (level > LEVEL_APP_SLICE) {
                r = read_attribute(w, cgroup);
                if (r < 0)
                        return r;
                if (r > 0 && notify)
                        w->changed(w->userdata, cgroup);
        }
        return 1;
}

/* Does NAME belong at LEVEL? */
static bool level_wants(unsigned level, const char *name)
{
        if (level > LEVEL_APP_SLICE)
                return level <= LEVEL_APP_SLICE + FOCUS_WATCH_DEPTH;
        return level > 0 && fnmatch(level_glob[level], name, 0) == 0;
}

static int add_tree(FocusWatch *w, const char *cgroup, unsigned level, bool notify)
{
        _cleanup_free_ char *path = NULL;
        DIR *d;
        struct dirent *de;
        int r;

        r = add_one(w, cgroup, level, notify);
        if (r <= 0)
                return r;
        if (asprintf(&path, "%s%s", w->root, cgroup) < 0)
                return -ENOMEM;
        d = opendir(path);
        if (!d)
                return 0;
        while ((de = readdir(d))) {
                _cleanup_free_ char *child = NULL;

                if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
                    !level_wants(level + 1, de->d_name))
                        continue;
                if (asprintf(&child, "%s/%s", cgroup, de->d_name) < 0) {
                        r = -ENOMEM;
                        break;
                }
                r = add_tree(w, child, level + 1, notify);
                if (r < 0)
                        break;
        }
        closedir(d);
        return r < 0 ? r : 0;
}

/* The queue overflowed: read every attribute again. */
static void reread_all(FocusWatch *w)
{
        for (size_t i = 0; i < w->n; i++)
                if (w->w[i].level > LEVEL_APP_SLICE && read_attribute(w, w->w[i].cgroup) > 0)
                        w->changed(w->userdata, w->w[i].cgroup);
}

static void handle_event(FocusWatch *w, const struct inotify_event *ev)
{
        Watched *x = watched_find(w, ev->wd);
        _cleanup_free_ char *child = NULL;
        int r = 0;

        if (ev->mask & IN_Q_OVERFLOW) {
                log_debug("Focus watch: inotify queue overflow, reading every attribute");
                return reread_all(w);
        }
        if (!x)
                return;
        if (ev->mask & IN_IGNORED) {
                /* the cgroup is gone */
                if (focus_store_drop_scope(w->store, x->cgroup) > 0)
                        w->changed(w->userdata, x->cgroup);
                return watched_forget(w, x);
        }
        if ((ev->mask & IN_ATTRIB) && ev->len == 0 && x->level > LEVEL_APP_SLICE) {
                r = read_attribute(w, x->cgroup);
                if (r > 0)
                        w->changed(w->userdata, x->cgroup);
        } else if ((ev->mask & IN_CREATE) && (ev->mask & IN_ISDIR) && ev->len > 0 &&
                   level_wants(x->level + 1, ev->name)) {
                if (asprintf(&child, "%s/%s", x->cgroup, ev->name) < 0)
                        r = -ENOMEM;
                else
                        r = add_tree(w, child, x->level + 1, true);
        }
        /* (add_tree() may have moved X) */
        if (r < 0)
                log_warning("Focus watch: cannot follow a cgroup%s%s%s: %s", child ? " " : "",
                            child ? w->root : "", strempty(child), strerror(-r));
}

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        FocusWatch *w = userdata;
        char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));

                if (n <= 0) {
                        if (n < 0 && errno == EINTR)
                                continue;
                        return 0;
                }
                for (char *p = buf; p < buf + n;) {
                        const struct inotify_event *ev = (const struct inotify_event *)p;

                        handle_event(w, ev);
                        p += sizeof(*ev) + ev->len;
                }
        }
}

int focus_watch_new(sd_event *event, const char *cgroup_root, const char *user_slice,
                    FocusStore *store, focus_watch_changed_t changed, void *userdata,
                    FocusWatch **ret)
{
        _cleanup_(focus_watch_freep) FocusWatch *w = NULL;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->fd = -EBADF;
        w->store = store;
        w->changed = changed;
        w->userdata = userdata;
        w->root = strdup(cgroup_root);
        if (!w->root)
                return -ENOMEM;
        w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->fd < 0)
                return -errno;
        r = add_tree(w, user_slice, 0, false);
        if (r < 0)
                return r;
        if (w->n == 0)
                return -ENOENT;
        r = sd_event_add_io(event, &w->io, w->fd, EPOLLIN, on_inotify, w);
        if (r < 0)
                return r;
        (void)sd_event_source_set_description(w->io, "focus-watch");
        *ret = TAKE_PTR(w);
        return 0;
}

FocusWatch *focus_watch_free(FocusWatch *w)
{
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->io);
        if (w->fd >= 0)
                close(w->fd);
        for (size_t i = 0; i < w->n; i++)
                free(w->w[i].cgroup);
        free(w->w);
        free(w->root);
        free(w);
        return NULL;
}

size_t focus_watch_n_watches(const FocusWatch *w)
{
        return w ? w->n : 0;
}
