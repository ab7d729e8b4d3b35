/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Audio store: which processes have a PipeWire audio stream running, as
 * latniced's audio watch (daemon/desktop/audio-watch.h) saw it in each
 * user's PipeWire.
 *
 * Per user whose PipeWire latniced follows: the stream nodes
 * (Stream/Output/Audio, Stream/Input/Audio), each with the process it
 * belongs to (a process of that user, daemon/desktop/audio-pw.c checks) and
 * whether it is running. A process is "playing" while one of its nodes
 * runs, "no" while its user's PipeWire is followed and none does, unknown
 * otherwise.
 *
 * The user starts and stops their own streams and their PipeWire names the
 * process, so the match key that reads this ("audio", policy/keys.c) is
 * KEY_TRUST_USER: it grants no boost its user could not take anyway
 * (latnice.policy(5), BOOSTS AND TRUST).
 *
 * Bounded: AUDIO_USERS_MAX users, AUDIO_NODES_MAX nodes each; beyond that
 * nothing more is kept (-ENOSPC). Pure data; time is passed in.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/desktop/audio-props.h"

#define AUDIO_USERS_MAX 64
#define AUDIO_NODES_MAX 256

typedef enum AudioState {
        AUDIO_UNKNOWN = 0,
        AUDIO_NO,
        AUDIO_PLAYING,
} AudioState;

/* What the store knows of one process. */
typedef struct AudioFact {
        AudioState state;
        uid_t uid;             /* whose PipeWire */
        uint32_t node;         /* PLAYING: the running node (the first one) */
        AudioStreamKind kind;  /* its media class */
        uint64_t since_usec;   /* CLOCK_MONOTONIC µs it started running */
        unsigned n_running;    /* running nodes of the process */
} AudioFact;

typedef struct AudioStore AudioStore;

int audio_store_new(AudioStore **ret);
AudioStore *audio_store_free(AudioStore *s);
static inline void audio_store_freep(AudioStore **s)
{
        if (*s)
                audio_store_free(*s);
}

/* UID's PipeWire is followed from now on: 0, -ENOSPC (AUDIO_USERS_MAX),
 * -ENOMEM. Again for a user followed: 0. */
int audio_store_add_user(AudioStore *s, uid_t uid);
/* UID's PipeWire is not followed any more: its nodes are forgotten. The
 * pids of the processes that had a running node in *RET_PIDS (owned by the
 * caller, may be NULL when *RET_N is 0), for evaluating them again. -ENOMEM
 * (the user is dropped all the same, the list is lost). */
int audio_store_drop_user(AudioStore *s, uid_t uid, pid_t **ret_pids, size_t *ret_n);
bool audio_store_following(const AudioStore *s, uid_t uid);

/*
 * Node NODE of UID's PipeWire belongs to process PID (0: not known), is of
 * KIND, and is RUNNING, at NOW. The node's process before (0 if none or
 * the node is new) in *RET_OLD_PID. Returns 1 if whether PID or the old
 * process plays changed, 0 if not; -ENOENT if UID is not followed, -ENOSPC
 * (AUDIO_NODES_MAX), -ENOMEM.
 */
int audio_store_set_node(AudioStore *s, uid_t uid, uint32_t node, pid_t pid, AudioStreamKind kind,
                         bool running, uint64_t now, pid_t *ret_old_pid);
/* Node NODE of UID is gone: its process in *RET_PID (0 if none); 1 if the
 * store had it running, 0 if it had it not running or not at all. */
int audio_store_drop_node(AudioStore *s, uid_t uid, uint32_t node, pid_t *ret_pid);

/* What the store knows of process PID of UID. */
AudioFact audio_store_lookup(const AudioStore *s, uid_t uid, pid_t pid);

size_t audio_store_n_users(const AudioStore *s);
size_t audio_store_n_nodes(const AudioStore *s, uid_t uid);

const char *audio_state_to_string(AudioState st); /* "playing", "no", NULL */

/*
 * F as words for explain and the journal: "playing audio through PipeWire
 * node 57 since 12:03:11 (uid 1000's PipeWire)", "recording audio through
 * ...", "no audio stream running (uid 1000's PipeWire is followed)"; ""
 * when unknown. MONO_NOW and REAL_NOW (CLOCK_REALTIME µs) are one moment.
 * -ENOMEM.
 */
int audio_fact_format(const AudioFact *f, uint64_t mono_now, uint64_t real_now, char **ret);
