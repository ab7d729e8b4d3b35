/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Audio watch: finds each logged-in user's PipeWire and follows it
 * (daemon/desktop/audio-pw.h) into an AudioStore (daemon/desktop/audio.h).
 *
 * The users' runtime directories (/run/user/UID) are followed with
 * inotify: a directory that appears is watched for its socket pipewire-0
 * (IN_CREATE, IN_MOVED_TO), and its PipeWire connected to as soon as the
 * socket is there (daemon/desktop/audio-connect.h checks whose it is); a
 * directory that goes ends the connection. When a user's PipeWire goes
 * away, latniced connects again at once if a new one listens, else when
 * its socket is made again; a full backlog, or a socket that refuses (its
 * server has not called listen() yet), is tried again after a second (at
 * most 10 times after each new socket).
 * Without /run/user, its parent is watched until it appears. At most
 * AUDIO_USERS_MAX users; more are not followed, said once. Nothing waits:
 * every socket is non-blocking, one read of inotify events per wake-up.
 */
#pragma once

#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon/desktop/audio.h"

#define AUDIO_SOCKET "pipewire-0"

typedef struct AudioWatch AudioWatch;

/* Whether process PID (of UID) plays changed, through node NODE (0 when
 * its user's PipeWire went away). */
typedef void (*audio_watch_changed_t)(void *userdata, uid_t uid, pid_t pid, uint32_t node);

/*
 * Follow the PipeWire of every user below RUN_ROOT ("/run/user") on EVENT,
 * keeping STORE (borrowed) current and calling CHANGED. PROC_ROOT
 * (borrowed) is where a process's owner is looked up. Connects to every
 * PipeWire already there before it returns. -EOPNOTSUPP when latniced was
 * built without libpipewire; -EIO when libpipewire fails.
 */
int audio_watch_new(sd_event *event, const char *run_root, const char *proc_root,
                    AudioStore *store, audio_watch_changed_t changed, void *userdata,
                    AudioWatch **ret);
AudioWatch *audio_watch_free(AudioWatch *w);
static inline void audio_watch_freep(AudioWatch **w)
{
        if (*w)
                audio_watch_free(*w);
}
