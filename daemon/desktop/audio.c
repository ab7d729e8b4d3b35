/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Audio store: the users followed and their stream nodes (see audio.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/desktop/audio.h"
#include "lib/macro.h"
#include "lib/time-util.h"

typedef struct AudioNode {
        uint32_t id;
        pid_t pid;
        AudioStreamKind kind;
        bool running;
        uint64_t since_usec;
} AudioNode;

typedef struct AudioUser {
        uid_t uid;
        AudioNode *nodes; /* AUDIO_NODES_MAX of them, n_nodes used */
        size_t n_nodes;
} AudioUser;

struct AudioStore {
        AudioUser users[AUDIO_USERS_MAX];
        size_t n_users;
};

int audio_store_new(AudioStore **ret)
{
        *ret = calloc(1, sizeof(AudioStore));
        return *ret ? 0 : -ENOMEM;
}

AudioStore *audio_store_free(AudioStore *s)
{
        if (!s)
                return NULL;
        for (size_t i = 0; i < s->n_users; i++)
                free(s->users[i].nodes);
        free(s);
        return NULL;
}

static AudioUser *find_user(const AudioStore *s, uid_t uid)
{
        for (size_t i = 0; s && i < s->n_users; i++)
                if (s->users[i].uid == uid)
                        return (AudioUser *)&s->users[i];
        return NULL;
}

int audio_store_add_user(AudioStore *s, uid_t uid)
{
        AudioUser *u;

        if (find_user(s, uid))
                return 0;
        if (s->n_users >= AUDIO_USERS_MAX)
                return -ENOSPC;
        u = &s->users[s->n_users];
        *u = (AudioUser){ .uid = uid, .nodes = calloc(AUDIO_NODES_MAX, sizeof(AudioNode)) };
        if (!u->nodes)
                return -ENOMEM;
        s->n_users++;
        return 0;
}

int audio_store_drop_user(AudioStore *s, uid_t uid, pid_t **ret_pids, size_t *ret_n)
{
        AudioUser *u = find_user(s, uid);
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0;
        int r = 0;

        *ret_pids = NULL;
        *ret_n = 0;
        if (!u)
                return 0;
        if (u->n_nodes > 0) {
                pids = calloc(u->n_nodes, sizeof(pid_t));
                if (!pids)
                        r = -ENOMEM;
        }
        for (size_t i = 0; pids && i < u->n_nodes; i++)
                if (u->nodes[i].running && u->nodes[i].pid > 0)
                        pids[n++] = u->nodes[i].pid;
        free(u->nodes);
        *u = s->users[--s->n_users];
        if (r < 0)
                return r;
        *ret_pids = TAKE_PTR(pids);
        *ret_n = n;
        return 0;
}

bool audio_store_following(const AudioStore *s, uid_t uid)
{
        return find_user(s, uid) != NULL;
}

static bool pid_plays(const AudioUser *u, pid_t pid)
{
        for (size_t i = 0; pid > 0 && i < u->n_nodes; i++)
                if (u->nodes[i].pid == pid && u->nodes[i].running)
                        return true;
        return false;
}

static AudioNode *find_node(const AudioUser *u, uint32_t id)
{
        for (size_t i = 0; i < u->n_nodes; i++)
                if (u->nodes[i].id == id)
                        return &u->nodes[i];
        return NULL;
}

int audio_store_set_node(AudioStore *s, uid_t uid, uint32_t id, pid_t pid, AudioStreamKind kind,
                         bool running, uint64_t now, pid_t *ret_old_pid)
{
        AudioUser *u = find_user(s, uid);
        AudioNode *node;
        bool old_plays, new_plays, was_running;
        pid_t old_pid;

        *ret_old_pid = 0;
        if (!u)
                return -ENOENT;
        node = find_node(u, id);
        if (!node) {
                if (u->n_nodes >= AUDIO_NODES_MAX)
                        return -ENOSPC;
                node = &u->nodes[u->n_nodes++];
                *node = (AudioNode){ .id = id };
        }
        old_pid = node->pid;
        was_running = node->running;
        old_plays = pid_plays(u, old_pid);
        new_plays = pid_plays(u, pid);
        node->pid = pid;
        node->kind = kind;
        node->running = running;
        if (running && (!was_running || old_pid != pid))
                node->since_usec = now;
        *ret_old_pid = old_pid;
        return old_plays != pid_plays(u, old_pid) || new_plays != pid_plays(u, pid);
}

int audio_store_drop_node(AudioStore *s, uid_t uid, uint32_t id, pid_t *ret_pid)
{
        AudioUser *u = find_user(s, uid);
        AudioNode *node = u ? find_node(u, id) : NULL;
        bool running;

        *ret_pid = 0;
        if (!node)
                return 0;
        *ret_pid = node->pid;
        running = node->running;
        *node = u->nodes[--u->n_nodes];
        return running;
}

AudioFact audio_store_lookup(const AudioStore *s, uid_t uid, pid_t pid)
{
        const AudioUser *u = find_user(s, uid);
        AudioFact f = { .uid = uid };

        if (!u)
                return f;
        f.state = AUDIO_NO;
        for (size_t i = 0; pid > 0 && i < u->n_nodes; i++) {
                const AudioNode *n = &u->nodes[i];

                if (n->pid != pid || !n->running)
                        continue;
                /* the output first: "playing" over "recording" */
                if (f.n_running++ == 0 ||
                    (n->kind == AUDIO_STREAM_OUTPUT && f.kind != AUDIO_STREAM_OUTPUT)) {
                        f.node = n->id;
                        f.kind = n->kind;
                        f.since_usec = n->since_usec;
                }
                f.state = AUDIO_PLAYING;
        }
        return f;
}

size_t audio_store_n_users(const AudioStore *s)
{
        return s ? s->n_users : 0;
}

size_t audio_store_n_nodes(const AudioStore *s, uid_t uid)
{
        const AudioUser *u = find_user(s, uid);

        return u ? u->n_nodes : 0;
}

const char *audio_state_to_string(AudioState st)
{
        return st == AUDIO_PLAYING ? "playing" : st == AUDIO_NO ? "no" : NULL;
}

int audio_fact_format(const AudioFact *f, uint64_t mono_now, uint64_t real_now, char **ret)
{
        char when[32];
        int r;

        time_format_clock(f->since_usec, mono_now, real_now, when, sizeof(when));
        if (f->state == AUDIO_PLAYING)
                r = asprintf(ret, "%s audio through PipeWire node %u since %s (uid %u's "
                             "PipeWire%s)",
                             f->kind == AUDIO_STREAM_INPUT ? "recording" : "playing",
                             (unsigned)f->node, when, (unsigned)f->uid,
                             f->n_running > 1 ? ", and more nodes" : "");
        else if (f->state == AUDIO_NO)
                r = asprintf(ret, "no audio stream running (uid %u's PipeWire is followed)",
                             (unsigned)f->uid);
        else
                r = asprintf(ret, "%s", "");
        if (r < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return 0;
}
