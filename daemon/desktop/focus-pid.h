/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process a focus call names (SetFocus, SetForegroundProcess), read
 * while it is held by a pidfd.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "lib/kernel-ops.h"
#include "lib/proc.h"

/*
 * Read process PID (stat, ids, cgroup) below PROC_ROOT (NULL: /proc) into
 * *RET. With PIDFDS (the applier's: PROC_ROOT is the kernel's of K), PID
 * is held by a pidfd (K->pidfd_open) opened before /proc is read and still
 * alive after (K->pidfd_alive), so that what was read is of that process,
 * not of one that took its pid in between (the applier's "Pid reuse").
 * -EINVAL: PID is a thread, not a process (the foreground is a process);
 * -ESRCH: no such process, a kernel thread, a zombie, or it exited while it
 * was read; both with a message in *RET_ERROR (RET_ERROR NULL: not
 * wanted). Other negative errnos: the
 * reads failed.
 */
int focus_pid_read(const char *proc_root, const KernelOps *k, bool pidfds, pid_t pid,
                   ProcTask **ret, char **ret_error);
