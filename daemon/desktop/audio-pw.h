/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Audio streams through libpipewire-0.3: one connection per user whose
 * PipeWire latniced follows, on latniced's own sd-event loop.
 *
 * One pw_loop for all users, run from the sd-event loop (its fd is an
 * sd-event io source; pw_loop_iterate() with timeout 0, once per wake-up,
 * so one user's PipeWire cannot keep latniced reading): no PipeWire thread.
 * The context loads no configuration, only the native protocol. Per user,
 * the registry is followed: every client (for its pipewire.sec.pid) and
 * every Stream/Output/Audio and Stream/Input/Audio node (its state and
 * properties; running is playing). At most AUDIO_NODES_MAX nodes and as
 * many clients are followed per user; more are left alone, said once.
 *
 * A node's process is, for a node of pipewire-pulse (client.api), the
 * application.process.id it set from its PulseAudio client's credentials;
 * for any other, its client's pipewire.sec.pid, which the PipeWire server
 * sets from the socket's peer credentials; failing those, the
 * application.process.id the client gave. Whichever it is, it is taken
 * only when the process is owned by the user (/proc/PID), so a user's
 * PipeWire can name only that user's processes.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon/desktop/audio.h"

typedef struct AudioPw AudioPw;

/* Whether process PID of UID plays changed (node NODE). */
typedef void (*audio_pw_changed_t)(void *userdata, uid_t uid, pid_t pid, uint32_t node);
/* UID's connection ended (its PipeWire stopped): it is no longer followed,
 * the store has forgotten its nodes (CHANGED was called for each process
 * that played). */
typedef void (*audio_pw_lost_t)(void *userdata, uid_t uid);

/* On EVENT, keeping STORE (borrowed) current; PROC_ROOT (borrowed) is where
 * the owner of a pid is looked up. -ENOMEM, -EIO (libpipewire failed). */
int audio_pw_new(sd_event *event, AudioStore *store, const char *proc_root,
                 audio_pw_changed_t changed, audio_pw_lost_t lost, void *userdata,
                 AudioPw **ret);
AudioPw *audio_pw_free(AudioPw *pw);
static inline void audio_pw_freep(AudioPw **pw)
{
        if (*pw)
                audio_pw_free(*pw);
}

/* Follow UID's PipeWire on socket FD (connected and checked: audio-connect.h;
 * taken in every case). -EEXIST if UID is followed, -ENOSPC
 * (AUDIO_USERS_MAX), -EIO, -ENOMEM. */
int audio_pw_connect(AudioPw *pw, uid_t uid, int fd);
/* Stop following UID (CHANGED for each process that played). */
void audio_pw_disconnect(AudioPw *pw, uid_t uid);
bool audio_pw_connected(const AudioPw *pw, uid_t uid);
