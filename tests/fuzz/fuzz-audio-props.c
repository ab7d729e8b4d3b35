/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the PipeWire properties latniced reads of a user's nodes and
 * clients (daemon/desktop/audio-props.h), which that user's PipeWire
 * clients choose. The input is lines "key=value".
 *
 * Oracles: each key is taken (1), ignored (0) or its value refused
 * (-EINVAL, with why and the key said, the field unchanged); a pid taken is
 * in 1..AUDIO_PID_MAX and, printed back, parses to the same.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/desktop/audio-props.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_pid(pid_t pid)
{
        char buf[16];
        uint32_t v;

        if (pid == 0)
                return;
        if (pid < 0 || pid > AUDIO_PID_MAX)
                abort();
        snprintf(buf, sizeof(buf), "%d", (int)pid);
        if (audio_parse_number(buf, AUDIO_PID_MAX, &v) != 0 || (pid_t)v != pid)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        AudioProps p = {};
        char *text, *line, *save = NULL;

        text = malloc(size + 1);
        if (!text)
                return 0;
        memcpy(text, data, size);
        text[size] = 0;
        for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *eq = strchr(line, '=');
                AudioProps before = p;
                int r;

                if (eq)
                        *eq = 0;
                p.why = NULL;
                r = audio_props_add(&p, line, eq ? eq + 1 : NULL);
                if (r == -EINVAL) {
                        if (!p.why || p.why_key != line || p.app_pid != before.app_pid ||
                            p.sec_pid != before.sec_pid || p.client_id != before.client_id)
                                abort();
                } else if (r != 0 && r != 1)
                        abort();
                if (r == 0 && (before.kind != p.kind || before.app_pid != p.app_pid ||
                               before.sec_pid != p.sec_pid || before.pulse != p.pulse ||
                               before.has_client_id != p.has_client_id ||
                               before.client_id != p.client_id))
                        abort();
                check_pid(p.app_pid);
                check_pid(p.sec_pid);
                if (p.has_client_id && p.client_id == UINT32_MAX)
                        abort();
        }
        free(text);
        return 0;
}
