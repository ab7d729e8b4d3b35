/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Audio streams through libpipewire-0.3 (see audio-pw.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pipewire/impl-module.h>
#include <pipewire/pipewire.h>
#include <spa/utils/dict.h>

#include "daemon/desktop/audio-pw.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"

typedef struct PwUser PwUser;

typedef struct PwObject {
        PwUser *user;
        uint32_t id;
        bool client;  /* a client; else a stream node */
        struct pw_proxy *proxy;
        struct spa_hook listener;
        AudioProps props; /* of its last info */
        bool running;     /* a node: its state is "running" */
} PwObject;

struct PwUser {
        AudioPw *pw;
        uid_t uid;
        struct pw_core *core;
        struct spa_hook core_listener;
        struct pw_registry *registry;
        struct spa_hook registry_listener;
        PwObject *objects[2 * AUDIO_NODES_MAX];
        size_t n_objects, n_nodes, n_clients;
        bool lost, said_full;
};

struct AudioPw {
        sd_event_source *io, *defer;
        struct pw_loop *loop;
        struct pw_context *context;
        AudioStore *store;
        const char *proc_root;
        audio_pw_changed_t changed;
        audio_pw_lost_t lost;
        void *userdata;
        PwUser *users[AUDIO_USERS_MAX];
        size_t n_users;
        bool initialized; /* pw_init() */
};

static PwUser *find_user(const AudioPw *pw, uid_t uid)
{
        for (size_t i = 0; i < pw->n_users; i++)
                if (pw->users[i]->uid == uid)
                        return pw->users[i];
        return NULL;
}

static PwObject *find_object(const PwUser *u, uint32_t id, size_t *ret_index)
{
        for (size_t i = 0; i < u->n_objects; i++)
                if (u->objects[i]->id == id) {
                        if (ret_index)
                                *ret_index = i;
                        return u->objects[i];
                }
        return NULL;
}

/* Is process PID the user's (the owner of /proc/PID)? */
static bool pid_is_users(const PwUser *u, pid_t pid)
{
        char path[64];
        struct stat st;

        if (pid <= 0)
                return false;
        snprintf(path, sizeof(path), "%s/%d", u->pw->proc_root, (int)pid);
        return stat(path, &st) == 0 && st.st_uid == u->uid;
}

/* The process of node N (audio-pw.h), 0 if none that is the user's. */
static pid_t node_pid(const PwUser *u, const PwObject *n)
{
        const PwObject *c = n->props.has_client_id ? find_object(u, n->props.client_id, NULL)
                                                   : NULL;
        pid_t first[3] = {}, *p = first;

        if (c && !c->client)
                c = NULL;
        if (n->props.pulse || (c && c->props.pulse)) {
                *p++ = n->props.app_pid;
                *p++ = c ? c->props.app_pid : 0;
        } else {
                *p++ = c ? c->props.sec_pid : 0;
                *p++ = n->props.app_pid;
                *p++ = c ? c->props.app_pid : 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(first); i++)
                if (pid_is_users(u, first[i]))
                        return first[i];
        return 0;
}

static void tell(PwUser *u, pid_t pid, uint32_t node)
{
        if (pid > 0 && u->pw->changed)
                u->pw->changed(u->pw->userdata, u->uid, pid, node);
}

static void node_update(PwUser *u, PwObject *n)
{
        pid_t pid = node_pid(u, n), old = 0;
        int r;

        r = audio_store_set_node(u->pw->store, u->uid, n->id, pid, n->props.kind, n->running,
                                 now_usec(CLOCK_MONOTONIC), &old);
        if (r < 0) {
                log_debug("Audio: node %u of uid %u not kept: %s", n->id, (unsigned)u->uid,
                          strerror(-r));
                return;
        }
        log_debug("Audio: uid %u's node %u (%s) of pid %d is %s.", (unsigned)u->uid, n->id,
                  strna(audio_stream_kind_to_string(n->props.kind)), (int)pid,
                  n->running ? "running" : "not running");
        if (r == 0)
                return;
        if (old != pid)
                tell(u, old, n->id);
        tell(u, pid, n->id);
}

static void props_read(PwObject *o, const struct spa_dict *props)
{
        const struct spa_dict_item *item;
        AudioProps p = {};

        spa_dict_for_each(item, props)
                if (audio_props_add(&p, item->key, item->value) < 0)
                        log_debug("Audio: uid %u's object %u: %s=\"%.64s\" not taken: %s.",
                                  (unsigned)o->user->uid, o->id, p.why_key, item->value, p.why);
        o->props = p;
}

static void node_info(void *data, const struct pw_node_info *info)
{
        PwObject *n = data;

        if (info->change_mask & PW_NODE_CHANGE_MASK_PROPS && info->props)
                props_read(n, info->props);
        n->running = info->state == PW_NODE_STATE_RUNNING;
        node_update(n->user, n);
}

static const struct pw_node_events node_events = {
        PW_VERSION_NODE_EVENTS,
        .info = node_info,
};

static void client_info(void *data, const struct pw_client_info *info)
{
        PwObject *c = data;
        PwUser *u = c->user;

        if (!(info->change_mask & PW_CLIENT_CHANGE_MASK_PROPS) || !info->props)
                return;
        props_read(c, info->props);
        /* its nodes may have come first */
        for (size_t i = 0; i < u->n_objects; i++) {
                PwObject *n = u->objects[i];

                if (!n->client && n->props.has_client_id && n->props.client_id == c->id)
                        node_update(u, n);
        }
}

static const struct pw_client_events client_events = {
        PW_VERSION_CLIENT_EVENTS,
        .info = client_info,
};

static void object_free(PwObject *o)
{
        spa_hook_remove(&o->listener);
        pw_proxy_destroy(o->proxy);
        free(o);
}

/* Bind global ID of TYPE: a client, or a node of an audio stream. */
static void bind_object(PwUser *u, uint32_t id, const char *type, bool client)
{
        PwObject *o;

        if ((client ? u->n_clients : u->n_nodes) >= AUDIO_NODES_MAX) {
                if (!u->said_full)
                        log_notice("Audio: uid %u's PipeWire has more than %d %s; the rest "
                                   "are not followed.", (unsigned)u->uid, AUDIO_NODES_MAX,
                                   client ? "clients" : "stream nodes");
                u->said_full = true;
                return;
        }
        o = calloc(1, sizeof(*o));
        if (!o)
                return (void)log_oom();
        *o = (PwObject){ .user = u, .id = id, .client = client };
        o->proxy = pw_registry_bind(u->registry, id, type,
                                    client ? PW_VERSION_CLIENT : PW_VERSION_NODE, 0);
        if (!o->proxy) {
                free(o);
                return (void)log_debug("Audio: cannot bind object %u of uid %u.", id,
                                       (unsigned)u->uid);
        }
        if (client)
                pw_client_add_listener((struct pw_client *)o->proxy, &o->listener,
                                       &client_events, o);
        else
                pw_node_add_listener((struct pw_node *)o->proxy, &o->listener, &node_events, o);
        u->objects[u->n_objects++] = o;
        if (client)
                u->n_clients++;
        else
                u->n_nodes++;
}

static void registry_global(void *data, uint32_t id, uint32_t permissions, const char *type,
                            uint32_t version, const struct spa_dict *props)
{
        PwUser *u = data;
        AudioProps p = {};
        const char *class;

        if (find_object(u, id, NULL))
                return;
        if (strcmp(type, PW_TYPE_INTERFACE_Client) == 0)
                return bind_object(u, id, type, true);
        if (strcmp(type, PW_TYPE_INTERFACE_Node) != 0 || !props)
                return;
        class = spa_dict_lookup(props, PW_KEY_MEDIA_CLASS);
        (void)audio_props_add(&p, PW_KEY_MEDIA_CLASS, class);
        if (p.kind != AUDIO_STREAM_NONE)
                bind_object(u, id, type, false);
}

static void registry_global_remove(void *data, uint32_t id)
{
        PwUser *u = data;
        PwObject *o;
        size_t i;
        pid_t pid;

        o = find_object(u, id, &i);
        if (!o)
                return;
        u->objects[i] = u->objects[--u->n_objects];
        if (o->client)
                u->n_clients--;
        else {
                u->n_nodes--;
                if (audio_store_drop_node(u->pw->store, u->uid, id, &pid) > 0)
                        tell(u, pid, id);
        }
        object_free(o);
}

static const struct pw_registry_events registry_events = {
        PW_VERSION_REGISTRY_EVENTS,
        .global = registry_global,
        .global_remove = registry_global_remove,
};

static void core_error(void *data, uint32_t id, int seq, int res, const char *message)
{
        PwUser *u = data;

        if (id != PW_ID_CORE || res != -EPIPE) {
                log_debug("Audio: uid %u's PipeWire: object %u: %s (%s).", (unsigned)u->uid, id,
                          strna(message), strerror(-res));
                return;
        }
        /* the connection is gone: ended after this iteration (on_defer()) */
        u->lost = true;
        (void)sd_event_source_set_enabled(u->pw->defer, SD_EVENT_ONESHOT);
}

static const struct pw_core_events core_events = {
        PW_VERSION_CORE_EVENTS,
        .error = core_error,
};

static void user_free(PwUser *u)
{
        for (size_t i = 0; i < u->n_objects; i++)
                object_free(u->objects[i]);
        if (u->registry) {
                spa_hook_remove(&u->registry_listener);
                pw_proxy_destroy((struct pw_proxy *)u->registry);
        }
        if (u->core) {
                spa_hook_remove(&u->core_listener);
                pw_core_disconnect(u->core);
        }
        free(u);
}

void audio_pw_disconnect(AudioPw *pw, uid_t uid)
{
        _cleanup_free_ pid_t *pids = NULL;
        PwUser *u = find_user(pw, uid);
        size_t n = 0;

        if (!u)
                return;
        for (size_t i = 0; i < pw->n_users; i++)
                if (pw->users[i] == u)
                        pw->users[i] = pw->users[--pw->n_users];
        user_free(u);
        if (audio_store_drop_user(pw->store, uid, &pids, &n) < 0)
                log_oom();
        for (size_t i = 0; i < n; i++)
                if (pw->changed)
                        pw->changed(pw->userdata, uid, pids[i], 0);
}

int audio_pw_connect(AudioPw *pw, uid_t uid, int fd)
{
        PwUser *u;
        int r;

        if (find_user(pw, uid))
                return safe_close(fd), -EEXIST;
        if (pw->n_users >= AUDIO_USERS_MAX)
                return safe_close(fd), -ENOSPC;
        u = calloc(1, sizeof(*u));
        if (!u)
                return safe_close(fd), -ENOMEM;
        *u = (PwUser){ .pw = pw, .uid = uid };
        /* libpipewire owns FD from here on */
        u->core = pw_context_connect_fd(pw->context, fd, NULL, 0);
        if (!u->core) {
                free(u);
                return -EIO;
        }
        pw_core_add_listener(u->core, &u->core_listener, &core_events, u);
        u->registry = pw_core_get_registry(u->core, PW_VERSION_REGISTRY, 0);
        if (!u->registry) {
                user_free(u);
                return -EIO;
        }
        pw_registry_add_listener(u->registry, &u->registry_listener, &registry_events, u);
        r = audio_store_add_user(pw->store, uid);
        if (r < 0) {
                user_free(u);
                return r;
        }
        pw->users[pw->n_users++] = u;
        return 0;
}

bool audio_pw_connected(const AudioPw *pw, uid_t uid)
{
        return find_user(pw, uid) != NULL;
}

/* PipeWire's fds are ready: one iteration, without waiting. */
static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        AudioPw *pw = userdata;

        pw_loop_enter(pw->loop);
        (void)pw_loop_iterate(pw->loop, 0);
        pw_loop_leave(pw->loop);
        return 0;
}

/* Connections found lost in the last iteration end here, outside it. */
static int on_defer(sd_event_source *s, void *userdata)
{
        AudioPw *pw = userdata;

        for (size_t i = 0; i < pw->n_users;) {
                PwUser *u = pw->users[i];
                uid_t uid = u->uid;

                if (!u->lost) {
                        i++;
                        continue;
                }
                log_info("Audio: uid %u's PipeWire went away.", (unsigned)uid);
                audio_pw_disconnect(pw, uid);
                if (pw->lost)
                        pw->lost(pw->userdata, uid);
        }
        return 0;
}

int audio_pw_new(sd_event *event, AudioStore *store, const char *proc_root,
                 audio_pw_changed_t changed, audio_pw_lost_t lost, void *userdata,
                 AudioPw **ret)
{
        _cleanup_(audio_pw_freep) AudioPw *pw = NULL;
        int r;

        pw = calloc(1, sizeof(*pw));
        if (!pw)
                return -ENOMEM;
        /* undone by pw_deinit() in audio_pw_free() */
        pw_init(NULL, NULL);
        /* latniced's log says what matters; libpipewire's own warnings (no
         * real-time, no modules from the configuration) are not latniced's */
        pw_log_set_level(SPA_LOG_LEVEL_ERROR);
        *pw = (AudioPw){ .initialized = true, .store = store, .proc_root = proc_root ?: "/proc",
                         .changed = changed, .lost = lost, .userdata = userdata };
        pw->loop = pw_loop_new(NULL);
        if (!pw->loop)
                return -EIO;
        /* no configuration file (it would load modules, real-time ones too):
         * the native protocol only. "loop.cancel": the context's data loop
         * (below) is stopped with pthread_cancel(), not with a stop request:
         * libpipewire 0.3.65 runs that request in the caller's thread when
         * the loop's thread has not entered the loop yet, so a thread that
         * checked "running" just before waits in epoll_wait() for ever, and
         * the caller with it in pthread_join() (latniced hung at start-up,
         * about one start in 13 on a loaded machine) */
        pw->context = pw_context_new(pw->loop,
                                     pw_properties_new(PW_KEY_CONFIG_NAME, "null",
                                                       "loop.cancel", "true", NULL), 0);
        if (!pw->context)
                return -EIO;
        /* the context's data loop runs nodes in a thread; latniced has no
         * node: no thread */
        (void)pw_data_loop_stop(pw_context_get_data_loop(pw->context));
        if (!pw_context_load_module(pw->context, "libpipewire-module-protocol-native", NULL,
                                    NULL)) {
                /* a module, not the library: Debian packs it apart
                 * (libpipewire-0.3-modules), which the library does not pull in */
                log_warning("Cannot load PipeWire's native protocol module "
                            "(libpipewire-module-protocol-native, in Debian's package "
                            "libpipewire-0.3-modules): %m");
                return -ENOPKG;
        }
        r = sd_event_add_io(event, &pw->io, pw_loop_get_fd(pw->loop), EPOLLIN, on_io, pw);
        if (r < 0)
                return r;
        r = sd_event_add_defer(event, &pw->defer, on_defer, pw);
        if (r < 0)
                return r;
        (void)sd_event_source_set_enabled(pw->defer, SD_EVENT_OFF);
        *ret = TAKE_PTR(pw);
        return 0;
}

AudioPw *audio_pw_free(AudioPw *pw)
{
        if (!pw)
                return NULL;
        while (pw->n_users > 0) {
                PwUser *u = pw->users[--pw->n_users];

                user_free(u);
        }
        sd_event_source_disable_unref(pw->io);
        sd_event_source_disable_unref(pw->defer);
        if (pw->context)
                pw_context_destroy(pw->context);
        if (pw->loop)
                pw_loop_destroy(pw->loop);
        if (pw->initialized)
                pw_deinit();
        free(pw);
        return NULL;
}
