/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PID namespace of a focus call's caller. A pid is a number in one PID
 * namespace: a caller in another one (an app in a Flatpak or bwrap
 * sandbox, a container) that names "its" pid would name another process
 * in latniced's. So SetFocus and SetForegroundProcess are refused from a
 * caller whose PID namespace is not latniced's (latniced(8), FOCUS); a
 * compositor script runs in the host's, where the compositor sees every
 * client's pid as the host has it (even a Flatpak app's).
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/*
 * Is process CALLER_PID (a pid in latniced's namespace, as the bus gives
 * it) in the PID namespace of latniced itself? Reads PROC_ROOT/PID/ns/pid
 * and PROC_ROOT/self/ns/pid (PROC_ROOT NULL: /proc). 1: the same; 0:
 * another, with its and latniced's namespace ("pid:[4026531836]") in
 * *RET_ERROR (NULL: not wanted); a negative errno when it cannot be told
 * (CALLER_PID 0, the caller gone, no ns files): the caller decides.
 */
int focus_caller_same_pidns(const char *proc_root, pid_t caller_pid, char **ret_error);
