/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PipeWire properties of nodes and clients (see audio-props.h).
 */
#include <errno.h>
#include <string.h>

#include "daemon/desktop/audio-props.h"

int audio_parse_number(const char *s, uint32_t max, uint32_t *ret)
{
        uint64_t v = 0;
        size_t n = 0;

        if (!s)
                return -EINVAL;
        for (; s[n]; n++) {
                if (s[n] < '0' || s[n] > '9' || n >= AUDIO_NUMBER_MAX)
                        return -EINVAL;
                v = v * 10 + (uint64_t)(s[n] - '0');
        }
        if (n == 0 || v > max)
                return -EINVAL;
        *ret = (uint32_t)v;
        return 0;
}

static int take_pid(AudioProps *p, const char *key, const char *value, pid_t *field)
{
        uint32_t v;

        if (audio_parse_number(value, AUDIO_PID_MAX, &v) < 0 || v == 0) {
                p->why = "expected a pid (1 to 4194304 in decimal digits)";
                p->why_key = key;
                return -EINVAL;
        }
        *field = (pid_t)v;
        return 1;
}

int audio_props_add(AudioProps *p, const char *key, const char *value)
{
        uint32_t v;

        if (!key || !value)
                return 0;
        if (strcmp(key, "media.class") == 0) {
                if (strcmp(value, "Stream/Output/Audio") == 0)
                        p->kind = AUDIO_STREAM_OUTPUT;
                else if (strcmp(value, "Stream/Input/Audio") == 0)
                        p->kind = AUDIO_STREAM_INPUT;
                else
                        p->kind = AUDIO_STREAM_NONE;
                return 1;
        }
        if (strcmp(key, "client.id") == 0) {
                if (audio_parse_number(value, UINT32_MAX - 1, &v) < 0) {
                        p->why = "expected an object id (decimal digits)";
                        p->why_key = key;
                        return -EINVAL;
                }
                p->client_id = v;
                p->has_client_id = true;
                return 1;
        }
        if (strcmp(key, "application.process.id") == 0)
                return take_pid(p, key, value, &p->app_pid);
        if (strcmp(key, "pipewire.sec.pid") == 0)
                return take_pid(p, key, value, &p->sec_pid);
        if (strcmp(key, "client.api") == 0) {
                p->pulse = strcmp(value, "pipewire-pulse") == 0;
                return 1;
        }
        return 0;
}

const char *audio_stream_kind_to_string(AudioStreamKind k)
{
        switch (k) {
        case AUDIO_STREAM_OUTPUT:
                return "output";
        case AUDIO_STREAM_INPUT:
                return "input";
        default:
                return NULL;
        }
}
