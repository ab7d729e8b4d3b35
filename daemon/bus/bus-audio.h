/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Audio streams on the bus: latniced's GetAudio method and its AudioStream
 * signal (org.latnice.Daemon1), what the audio store (daemon/desktop/audio.h)
 * says of a process. A caller sees only its own processes (root: any); the
 * signal goes to root only, as TaskApplied (systemd/org.latnice.Daemon1.conf).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

typedef struct Bus Bus;

/* In daemon/bus/bus.c's vtable. */
int bus_method_get_audio(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* AudioStream(pid, state, fact, node) for PID on BUS. */
void bus_emit_audio_stream(Bus *b, sd_bus *bus, pid_t pid);
