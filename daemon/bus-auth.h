/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Authorization of D-Bus calls: who may change what. Read methods are open
 * to everyone; changes need root or CAP_SYS_NICE, except that any user may
 * make their own processes less latency-sensitive.
 *
 * Plain data in, a verdict out: the caller's credentials as daemon/bus.c
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
        uid_t uid;       /* effective uid */
        bool privileged; /* root or CAP_SYS_NICE */
} BusCaller;

/* May CALLER call WHAT ("Reload", "SetUnit"), which needs privileges?
 * 0, or -EACCES and a message in *RET_WHY; -ENOMEM. */
int bus_auth_privileged(const BusCaller *caller, const char *what, char **ret_why);

/*
 * May CALLER apply S to TARGET (SetTask)? A privileged caller may. Anyone
 * else only to a process of their own (its real uid is the caller's
 * effective uid), and only if, on every thread, S makes it less
 * latency-sensitive: no lower LatencyNice or Nice, no shorter Slice (a
 * LatencyNice that would shorten a custom slice counts), no policy further
 * from SCHED_IDLE, no lower TimerSlack, no higher UtilMin or UtilMax.
 * BASE_SLICE_NS is the kernel's base slice (0: the default for one CPU).
 * 0, or -EACCES and a message naming the pid, the setting and why in
 * *RET_WHY; -ENOMEM.
 */
int bus_auth_set_task(const BusCaller *caller, const SetTaskTarget *target, const Settings *s,
                      uint64_t base_slice_ns, char **ret_why);
