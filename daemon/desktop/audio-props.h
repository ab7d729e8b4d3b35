/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PipeWire properties latniced reads of a user's nodes and clients,
 * one key and value at a time as libpipewire hands them over (a spa_dict):
 *
 *   media.class             "Stream/Output/Audio" or "Stream/Input/Audio": a
 *                           stream node (an app playing or recording)
 *   client.id               the node's client (a PipeWire object id)
 *   application.process.id  the pid the client says it has (on nodes and
 *                           clients; pipewire-pulse sets it from the peer
 *                           credentials of the PulseAudio client it serves)
 *   pipewire.sec.pid        the client's pid, set by the PipeWire server from
 *                           the socket's peer credentials (the client cannot
 *                           choose it)
 *   client.api              "pipewire-pulse": the client is pipewire-pulse
 *                           serving an app, whose pid is application.process.id
 *
 * Pure: strings in, numbers out; the daemon talks to PipeWire
 * (daemon/desktop/audio-pw.c). Every value is checked: a pid or id that is
 * not plain decimal in range is not taken, and why is said.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The largest pid Linux gives (PID_MAX_LIMIT). */
#define AUDIO_PID_MAX 4194304
/* The longest id or pid value read (digits). */
#define AUDIO_NUMBER_MAX 10

typedef enum AudioStreamKind {
        AUDIO_STREAM_NONE = 0,
        AUDIO_STREAM_OUTPUT, /* Stream/Output/Audio: playing */
        AUDIO_STREAM_INPUT,  /* Stream/Input/Audio: recording */
} AudioStreamKind;

typedef struct AudioProps {
        AudioStreamKind kind;
        bool has_client_id;
        uint32_t client_id;
        pid_t app_pid; /* application.process.id, 0: none */
        pid_t sec_pid; /* pipewire.sec.pid, 0: none */
        bool pulse;    /* client.api = pipewire-pulse */
        /* the first value that was not taken, with its key: static text and
         * the key as given (borrowed), NULL if none */
        const char *why;
        const char *why_key;
} AudioProps;

/* Decimal digits only (1 to AUDIO_NUMBER_MAX of them, no sign, no space), at
 * most MAX: 0 and *RET, or -EINVAL (*RET untouched). */
int audio_parse_number(const char *s, uint32_t max, uint32_t *ret);

/* Take KEY = VALUE (either may be NULL: ignored) into P; keys not listed
 * above are ignored. Returns 1 if the key was one of them and its value was
 * taken, 0 if ignored, -EINVAL if its value was not taken (P->why says
 * why; the field keeps what it had). */
int audio_props_add(AudioProps *p, const char *key, const char *value);

const char *audio_stream_kind_to_string(AudioStreamKind k); /* "output", "input", NULL */
