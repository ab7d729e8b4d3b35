/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * D-Bus service org.latnice.Daemon1 (sd-bus, on the manager's sd-event loop).
 */
#pragma once

#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon/control.h"

typedef struct Bus Bus;

/* ADDRESS: "system", "session", or a D-Bus address ("unix:path=..."). Takes
 * the bus name. Returns negative errno if the bus cannot be reached; the
 * caller then runs without D-Bus and says so. */
int bus_setup(Manager *m, sd_event *event, const char *address, Bus **ret);
Bus *bus_free(Bus *b);

/* Signal TaskApplied(pid, tid, rule, settings) to listeners. No-op on NULL. */
void bus_emit_task_applied(Bus *b, pid_t pid, pid_t tid, const char *rule, const Settings *s);
