/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Audio watch: the users' runtime directories and their PipeWire sockets
 * (see audio-watch.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/desktop/audio-watch.h"

#if HAVE_PIPEWIRE

#include "daemon/desktop/audio-connect.h"
#include "daemon/desktop/audio-pw.h"
#include "lib/log.h"
#include "lib/macro.h"

#define RETRY_USEC 1000000ULL
/* A new runtime directory not (yet) the user's is looked at again this
 * many times, a second apart: logind makes it, then mounts the user's
 * tmpfs on it, which no event says. */
#define RETRY_DIR_MAX 30

/* A socket that refuses (made by bind() before its server's listen(), or
 * left by a PipeWire that went) is tried again this many times, a second
 * apart, after each sign of a new PipeWire: no event says it listens. */
#define RETRY_CONNECT_MAX 10

typedef struct UserDir {
        uid_t uid;
        int wd;
        unsigned connect_retries;
} UserDir;

struct AudioWatch {
        sd_event *event;
        sd_event_source *inotify_source, *retry;
        int inotify_fd, root_fd;
        int root_wd, parent_wd;
        char *run_root;
        UserDir dirs[AUDIO_USERS_MAX];
        size_t n_dirs;
        bool said_full;
        unsigned dir_retries; /* left for a directory not yet the user's */
        AudioPw *pw;
        audio_watch_changed_t changed;
        void *userdata;
};

static UserDir *find_dir(AudioWatch *w, uid_t uid)
{
        for (size_t i = 0; i < w->n_dirs; i++)
                if (w->dirs[i].uid == uid)
                        return &w->dirs[i];
        return NULL;
}

static void arm_retry(AudioWatch *w)
{
        if (sd_event_source_set_time_relative(w->retry, RETRY_USEC) >= 0)
                (void)sd_event_source_set_enabled(w->retry, SD_EVENT_ONESHOT);
}

/* Connect to UID's PipeWire if it listens and is not followed yet. */
static void try_connect(AudioWatch *w, uid_t uid)
{
        const char *why = NULL;
        int fd, r;

        if (audio_pw_connected(w->pw, uid))
                return;
        fd = audio_connect_user(w->root_fd, uid, AUDIO_SOCKET, &why);
        if (fd == -EAGAIN)
                return arm_retry(w);
        if (fd == -ECONNREFUSED) {
                UserDir *d = find_dir(w, uid);

                if (d && d->connect_retries > 0) {
                        d->connect_retries--;
                        arm_retry(w);
                }
        }
        if (fd == -EPERM)
                return (void)log_notice("Audio: not connecting to %s/%u/%s: %s.", w->run_root,
                                        (unsigned)uid, AUDIO_SOCKET, why);
        if (fd < 0)
                return (void)log_debug("Audio: no PipeWire of uid %u yet: %s", (unsigned)uid,
                                       strerror(-fd));
        r = audio_pw_connect(w->pw, uid, fd);
        if (r < 0)
                return (void)log_warning("Audio: cannot follow uid %u's PipeWire: %s",
                                         (unsigned)uid, strerror(-r));
        log_info("Audio: following uid %u's PipeWire (%s/%u/%s).", (unsigned)uid, w->run_root,
                 (unsigned)uid, AUDIO_SOCKET);
}

static int parse_uid(const char *name, uid_t *ret)
{
        uint32_t v;

        if (audio_parse_number(name, UINT32_MAX - 1, &v) < 0)
                return -EINVAL;
        *ret = (uid_t)v;
        return 0;
}

/* A runtime directory NAME appeared (or was there at the start). */
static void user_add(AudioWatch *w, const char *name)
{
        char path[PATH_MAX];
        struct stat st;
        uid_t uid;
        int wd;

        if (parse_uid(name, &uid) < 0 || find_dir(w, uid))
                return;
        if (w->n_dirs >= AUDIO_USERS_MAX) {
                if (!w->said_full)
                        log_notice("Audio: more than %d users below %s; the PipeWire of the "
                                   "others is not followed.", AUDIO_USERS_MAX, w->run_root);
                w->said_full = true;
                return;
        }
        if (fstatat(w->root_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != uid) {
                if (w->dir_retries > 0) {
                        w->dir_retries--;
                        arm_retry(w);
                }
                return (void)log_debug("Audio: %s/%s is not a directory of uid %u (yet).",
                                       w->run_root, name, (unsigned)uid);
        }
        snprintf(path, sizeof(path), "%s/%s", w->run_root, name);
        wd = inotify_add_watch(w->inotify_fd, path,
                               IN_CREATE | IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW);
        if (wd < 0)
                return (void)log_debug("Audio: cannot watch %s: %m", path);
        w->dirs[w->n_dirs++] = (UserDir){ .uid = uid, .wd = wd,
                                          .connect_retries = RETRY_CONNECT_MAX };
        try_connect(w, uid);
}

static void user_remove(AudioWatch *w, uid_t uid, bool watched)
{
        UserDir *d = find_dir(w, uid);

        if (!d)
                return;
        if (watched)
                (void)inotify_rm_watch(w->inotify_fd, d->wd);
        *d = w->dirs[--w->n_dirs];
        if (audio_pw_connected(w->pw, uid))
                log_info("Audio: uid %u logged out, its PipeWire is not followed any more.",
                         (unsigned)uid);
        audio_pw_disconnect(w->pw, uid);
}

/* Add every user below RUN_ROOT not added yet. */
static int root_scan(AudioWatch *w)
{
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        d = opendir(w->run_root);
        if (!d)
                return -errno;
        while ((de = readdir(d)))
                user_add(w, de->d_name);
        return 0;
}

/* Watch RUN_ROOT and add every user there; without it, watch its parent. */
static int root_watch(AudioWatch *w)
{
        int fd;

        fd = open(w->run_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 && errno != ENOENT)
                return -errno;
        if (fd < 0) {
                _cleanup_free_ char *parent = strdup(w->run_root);
                char *slash = parent ? strrchr(parent, '/') : NULL;

                if (!slash)
                        return parent ? -EINVAL : -ENOMEM;
                *(slash == parent ? slash + 1 : slash) = 0;
                w->parent_wd = inotify_add_watch(w->inotify_fd, parent,
                                                 IN_CREATE | IN_MOVED_TO | IN_ONLYDIR);
                return w->parent_wd < 0 ? -errno : 0;
        }
        w->root_fd = fd;
        w->root_wd = inotify_add_watch(w->inotify_fd, w->run_root,
                                       IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM |
                                               IN_ONLYDIR);
        if (w->root_wd < 0)
                return -errno;
        return root_scan(w);
}

static void handle_event(AudioWatch *w, const struct inotify_event *e)
{
        const char *base = strrchr(w->run_root, '/');
        uid_t uid;

        if (e->mask & IN_Q_OVERFLOW) {
                for (size_t i = 0; i < w->n_dirs; i++)
                        try_connect(w, w->dirs[i].uid);
                return;
        }
        if (e->wd == w->parent_wd && e->len > 0 && base && strcmp(e->name, base + 1) == 0) {
                (void)inotify_rm_watch(w->inotify_fd, w->parent_wd);
                w->parent_wd = -1;
                if (root_watch(w) < 0)
                        log_warning("Audio: cannot watch %s: %m", w->run_root);
                return;
        }
        if (e->wd == w->root_wd && e->len > 0) {
                if (e->mask & (IN_CREATE | IN_MOVED_TO)) {
                        w->dir_retries = RETRY_DIR_MAX;
                        user_add(w, e->name);
                }
                else if (parse_uid(e->name, &uid) == 0)
                        user_remove(w, uid, true);
                return;
        }
        for (size_t i = 0; i < w->n_dirs; i++) {
                if (w->dirs[i].wd != e->wd)
                        continue;
                uid = w->dirs[i].uid;
                if (e->mask & IN_IGNORED)
                        user_remove(w, uid, false);
                else if (e->len > 0 && strcmp(e->name, AUDIO_SOCKET) == 0) {
                        w->dirs[i].connect_retries = RETRY_CONNECT_MAX;
                        try_connect(w, uid);
                }
                return;
        }
}

/* One read of events per wake-up: the rest wait for the next. */
static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        AudioWatch *w = userdata;
        union {
                struct inotify_event e;
                char raw[4096];
        } buf;
        ssize_t n;

        n = read(fd, &buf, sizeof(buf));
        if (n < 0)
                return errno == EAGAIN || errno == EINTR ? 0 : (log_debug("Audio: inotify: %m"), 0);
        for (char *p = buf.raw; p < buf.raw + n;) {
                const struct inotify_event *e = (const struct inotify_event *)p;

                handle_event(w, e);
                p += sizeof(*e) + e->len;
        }
        return 0;
}

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
        AudioWatch *w = userdata;

        for (size_t i = 0; i < w->n_dirs; i++)
                try_connect(w, w->dirs[i].uid);
        if (w->root_fd >= 0)
                (void)root_scan(w);
        return 0;
}

static void on_lost(void *userdata, uid_t uid)
{
        AudioWatch *w = userdata;
        UserDir *d = find_dir(w, uid);

        /* a new PipeWire may listen already: its socket came before the end */
        if (d) {
                d->connect_retries = RETRY_CONNECT_MAX;
                try_connect(w, uid);
        }
}

static void on_changed(void *userdata, uid_t uid, pid_t pid, uint32_t node)
{
        AudioWatch *w = userdata;

        if (w->changed)
                w->changed(w->userdata, uid, pid, node);
}

int audio_watch_new(sd_event *event, const char *run_root, const char *proc_root,
                    AudioStore *store, audio_watch_changed_t changed, void *userdata,
                    AudioWatch **ret)
{
        _cleanup_(audio_watch_freep) AudioWatch *w = NULL;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        *w = (AudioWatch){ .event = event, .inotify_fd = -EBADF, .root_fd = -EBADF,
                           .root_wd = -1, .parent_wd = -1, .changed = changed,
                           .userdata = userdata };
        w->run_root = strdup(run_root);
        if (!w->run_root)
                return -ENOMEM;
        r = audio_pw_new(event, store, proc_root, on_changed, on_lost, w, &w->pw);
        if (r < 0)
                return r;
        w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->inotify_fd < 0)
                return -errno;
        r = sd_event_add_io(event, &w->inotify_source, w->inotify_fd, EPOLLIN, on_inotify, w);
        if (r < 0)
                return r;
        r = sd_event_add_time_relative(event, &w->retry, CLOCK_MONOTONIC, RETRY_USEC, 0,
                                       on_retry, w);
        if (r < 0)
                return r;
        (void)sd_event_source_set_enabled(w->retry, SD_EVENT_OFF);
        r = root_watch(w);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

AudioWatch *audio_watch_free(AudioWatch *w)
{
        if (!w)
                return NULL;
        w->pw = audio_pw_free(w->pw);
        sd_event_source_disable_unref(w->inotify_source);
        sd_event_source_disable_unref(w->retry);
        safe_close(w->inotify_fd);
        safe_close(w->root_fd);
        free(w->run_root);
        free(w);
        return NULL;
}

#else /* !HAVE_PIPEWIRE */

int audio_watch_new(sd_event *event, const char *run_root, const char *proc_root,
                    AudioStore *store, audio_watch_changed_t changed, void *userdata,
                    AudioWatch **ret)
{
        return -EOPNOTSUPP;
}

AudioWatch *audio_watch_free(AudioWatch *w)
{
        return NULL;
}

#endif
