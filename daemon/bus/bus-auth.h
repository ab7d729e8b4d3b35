/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Authorization of D-Bus calls: who may change what. Read methods are open
 * to everyone; changes need root, except that any user may make their own
 * processes less latency-sensitive.
 *
 * Only what the bus itself vouches for counts: the uid it took from the
 * socket when the caller connected. Fields sd-bus "augments" from
 * /proc/PID of the caller's pid (capabilities on dbus-daemon and
 * dbus-broker) are never used: that pid may belong to another process by
 * the time it is read (the caller exited, its connection lives on in a
 * child, its pid was reused by a setuid-root program).
 *
 * Plain data in, a verdict out: the caller's credentials as daemon/bus/bus.c
 * read them from the message, the process and its threads as the manager
 * read them (daemon/control.h, through lib/proc and lib/sched). No sd-bus,
 * no /proc here, so every case is unit-tested without a bus.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/control.h"
#include "lib/settings.h"

typedef struct BusCaller {
        uid_t uid;       /* effective uid, as the bus reports it */
        bool privileged; /* root, as the bus reports it (see bus_caller_from_creds()) */
} BusCaller;

/* What sd-bus returned for the sender of a call: each field, whether it is
 * there at all, and whether sd-bus read it from /proc ("augmented") rather
 * than from the bus. */
typedef struct BusCreds {
        bool has_euid, euid_augmented;
        uid_t euid;
        bool has_caps, caps_augmented;
        bool cap_sys_nice; /* meaningful with has_caps */
} BusCreds;

/*
 * The caller, from CREDS, as sd_bus_query_sender_privilege() judges it:
 * privileged if the bus reports CAP_SYS_NICE itself (no bus in use does),
 * or uid 0, or OUR_UID (latniced's own). An augmented field is never used:
 * without a uid from the bus the call is refused (-EPERM, a message in
 * *RET_WHY), and augmented capabilities count as none. -ENOMEM.
 */
int bus_caller_from_creds(const BusCreds *creds, uid_t our_uid, BusCaller *ret, char **ret_why);

/* May CALLER call WHAT ("Reload", "SetUnit"), which needs privileges?
 * 0, or -EACCES and a message in *RET_WHY; -ENOMEM. */
int bus_auth_privileged(const BusCaller *caller, const char *what, char **ret_why);

/*
 * May CALLER apply S to TARGET (SetTask)? A privileged caller may. Anyone
 * else only to a process of their own (its real uid is the caller's
 * effective uid), and only if, on every thread, S makes it less
 * latency-sensitive: no value that a task attribute's descriptor calls a
 * boost over what the thread has now (lib/task-attr.c: the same definition
 * as the rules' boosts; a lower Nice, a shorter Slice, a LatencyNice that
 * would shorten a custom slice, a higher UtilMin, ...).
 * BASE_SLICE_NS is the kernel's base slice (0: the default for one CPU).
 * 0, or -EACCES and a message naming the pid, the setting and why in
 * *RET_WHY; -ENOMEM.
 */
int bus_auth_set_task(const BusCaller *caller, const SetTaskTarget *target, const Settings *s,
                      uint64_t base_slice_ns, char **ret_why);
