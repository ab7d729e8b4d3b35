/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latniced's PipeWire state made and freed many times in a row: each
 * audio_pw_new() starts libpipewire's data-loop thread and stops it at
 * once. A stop that races the thread's start hangs for ever (the test then
 * ends in meson's timeout); see the comment in audio_pw_new().
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/desktop/audio-pw.h"

#define ROUNDS 400

static void changed(void *userdata, uid_t uid, pid_t pid, uint32_t node)
{
        (void)userdata, (void)uid, (void)pid, (void)node;
}

static void lost(void *userdata, uid_t uid)
{
        (void)userdata, (void)uid;
}

int main(void)
{
        sd_event *event = NULL;
        AudioStore *store = NULL;
        int r, made = 0, nopkg = 0;

        if (sd_event_new(&event) < 0 || audio_store_new(&store) < 0) {
                fprintf(stderr, "cannot make the event loop or the store\n");
                return 1;
        }
        for (int i = 0; i < ROUNDS; i++) {
                AudioPw *pw = NULL;

                r = audio_pw_new(event, store, "/proc", changed, lost, NULL, &pw);
                if (r == -ENOPKG) {
                        /* the module is missing: the context was still made
                         * and destroyed, data loop and all */
                        nopkg++;
                        continue;
                }
                if (r < 0) {
                        fprintf(stderr, "round %d: audio_pw_new: %s\n", i, strerror(-r));
                        return 1;
                }
                audio_pw_free(pw);
                made++;
        }
        printf("%d made and freed, %d without the protocol module\n", made, nopkg);
        audio_store_free(store);
        sd_event_unref(event);
        return 0;
}
