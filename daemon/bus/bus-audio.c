/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Audio streams on the bus (see bus-audio.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "daemon/bus/bus-audio.h"
#include "daemon/bus/bus-focus.h"
#include "daemon/bus/bus.h"
#include "lib/bus-names.h"
#include "lib/log.h"
#include "lib/macro.h"

int bus_method_get_audio(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_free_ char *fact = NULL, *why = NULL;
        Bus *b = userdata;
        const char *state = "";
        BusCaller c = {};
        uint32_t node = 0;
        pid_t pid;
        uid_t uid;
        int r;

        r = bus_read_pid_arg(b, m, &pid, error);
        if (r < 0)
                return r;
        r = bus_caller_get(m, &c, error);
        if (r < 0)
                return r;
        r = manager_get_audio(bus_manager(b), pid, &state, &fact, &node, &uid, &why);
        r = bus_getter_error(r, &c, uid, pid, "GetAudio", why, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, "ssu", state, fact, node);
}

void bus_emit_audio_stream(Bus *b, sd_bus *bus, pid_t pid)
{
        _cleanup_free_ char *fact = NULL;
        const char *state = "";
        uint32_t node = 0;
        uid_t uid;
        int r;

        /* a process gone already: it plays no more, and is nobody's to see */
        if (manager_get_audio(bus_manager(b), pid, &state, &fact, &node, &uid, NULL) < 0)
                return;
        r = sd_bus_emit_signal(bus, LATNICE_BUS_PATH, LATNICE_BUS_INTERFACE, "AudioStream",
                               "ussu", (uint32_t)pid, state, strempty(fact), node);
        if (r < 0)
                log_debug_errno(r, "Cannot emit AudioStream: %m");
}
