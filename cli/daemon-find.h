/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finding latniced without the bus: its processes in /proc (comm
 * "latniced", real uid 0: no other user can start a root process of that
 * name), with the bus each was started on (--bus, from its command line).
 * So that latnicectl tells the truth when latniced runs but cannot be asked
 * (latniced --bus none), instead of saying it is not running.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct DaemonProcess {
        pid_t pid;
        char *bus;            /* "system" (the default), "session", "none" or an address */
        uint64_t start_usec;  /* CLOCK_REALTIME, 0 if unknown */
} DaemonProcess;

/* The latniced processes under PROC_ROOT, by pid. 0 or -ENOMEM. */
int daemon_find(const char *proc_root, DaemonProcess **ret, size_t *ret_n);
void daemon_processes_free(DaemonProcess *d, size_t n);

/* The --bus (-b) value of latniced's command line ARGV (N NUL-separated
 * bytes, /proc/PID/cmdline), as its getopt_long() reads it: "--bus=X",
 * "--bus X", "-b X", "-bX", "-fnbX"; the last one wins; "system" without
 * one. Borrowed from ARGV (or the literal "system"). */
const char *daemon_bus_of_cmdline(const char *argv, size_t n);
