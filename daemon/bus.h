/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * D-Bus service org.latnice.Daemon1 (sd-bus, on the manager's sd-event loop).
 */
#pragma once

#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon/control.h"
#include "daemon/focus.h"

typedef struct Bus Bus;

/* ADDRESS: "system", "session", or a D-Bus address ("unix:path=..."). Takes
 * the bus name. Returns negative errno if the bus cannot be reached; the
 * caller then runs without D-Bus and says so. */
int bus_setup(Manager *m, sd_event *event, const char *address, Bus **ret);
Bus *bus_free(Bus *b);

/* Signal TaskApplied(pid, tid, rule, settings) to listeners. No-op on NULL. */
void bus_emit_task_applied(Bus *b, pid_t pid, pid_t tid, const char *rule, const Settings *s);

/* Signal FocusChanged(cgroup, pid, state, fact): the attribute of app cgroup
 * CGROUP changed (PID 0), or PID was named the foreground process (CGROUP
 * its app cgroup, or NULL). Root only receives it (the bus policy), as
 * TaskApplied. No-op on NULL. */
void bus_emit_focus_changed(Bus *b, FocusStore *store, const char *cgroup, pid_t pid);
