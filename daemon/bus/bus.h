/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * D-Bus service org.latnice.Daemon1 (sd-bus, on the manager's sd-event loop).
 */
#pragma once

#include <sys/types.h>
#include <systemd/sd-event.h>

#include "daemon/control.h"
#include "daemon/desktop/focus.h"

typedef struct Bus Bus;

/* The manager's front end (daemon/control.h) that serves D-Bus: its start
 * takes an ADDRESS ("system", "session", or a D-Bus address such as
 * "unix:path=...") and the bus name, and fails with a negative errno if the
 * bus cannot be reached; task_applied signals TaskApplied(pid, tid, rule,
 * settings) to listeners. */
extern const ManagerFrontEnd bus_front_end;
