/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The focus on the bus: latniced's SetFocus and GetFocus methods and its
 * FocusChanged signal (org.latnice.Daemon1), and system76-scheduler's
 * interface (com.system76.Scheduler at /com/system76/Scheduler, method
 * SetForegroundProcess(u pid)), so that the compositor scripts written for
 * it (KWin, niri, sway, pop-shell) tell latniced instead. latniced takes the
 * name com.system76.Scheduler at start-up only if nobody owns it: with
 * system76-scheduler running, it is left to it.
 *
 * A caller may name only a process of its own uid (root: any), and at most
 * FOCUS_CALL_BURST calls at once, then one per FOCUS_CALL_INTERVAL_USEC, per
 * caller uid (daemon/bus/caller-limit.h).
 */
#pragma once

#include <stdint.h>
#include <systemd/sd-bus.h>

#include "daemon/bus/bus-auth.h"
#include "daemon/desktop/focus.h"

#define S76_BUS_NAME "com.system76.Scheduler"
#define S76_BUS_PATH "/com/system76/Scheduler"
#define S76_BUS_INTERFACE "com.system76.Scheduler"

#define FOCUS_CALL_BURST 20u
#define FOCUS_CALL_INTERVAL_USEC 50000u /* 20 a second */

typedef struct Bus Bus;
typedef struct BusFocus BusFocus;

/* What daemon/bus/bus.c lends the focus methods. */
Manager *bus_manager(Bus *b);
int bus_caller_get(sd_bus_message *m, BusCaller *ret, sd_bus_error *error);
int bus_read_pid_arg(Bus *b, sd_bus_message *m, pid_t *ret, sd_bus_error *error);
BusFocus *bus_focus_of(Bus *b);

/* The answer of a getter of a fact about PID (GetFocus, GetAudio) to
 * caller C when reading it gave R (UID its owner, WHY the reader's
 * message): NoSuchProcess for another user's process, as for one that does
 * not exist; Refused for a thread id. 0: answer. */
int bus_getter_error(int r, const BusCaller *c, uid_t uid, pid_t pid, const char *method,
                     const char *why, sd_bus_error *error);

int bus_focus_new(BusFocus **ret);
BusFocus *bus_focus_free(BusFocus *f);

/* Serve com.system76.Scheduler on BUS if nobody owns the name. */
void bus_focus_setup(Bus *b, sd_bus *bus);

/* The methods of org.latnice.Daemon1 (in daemon/bus/bus.c's vtable). */
int bus_method_set_focus(sd_bus_message *m, void *userdata, sd_bus_error *error);
int bus_method_get_focus(sd_bus_message *m, void *userdata, sd_bus_error *error);
