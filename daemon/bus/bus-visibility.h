/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which processes a D-Bus caller is told about. Where /proc is mounted with
 * hidepid= (noaccess, invisible or ptraceable), a user cannot see other
 * users' processes there, and latniced's ListTasks and Explain must not
 * tell them either: an unprivileged caller then hears only about processes
 * that are its own (real, effective and saved uid all the caller's uid, as
 * the bus reports it), and of any other pid exactly what it would hear of a
 * pid that does not exist. Without hidepid everyone is told about every
 * process, as ps(1) shows them.
 *
 * The mount that counts is latniced's own /proc (its --proc-root), read from
 * /proc/self/mountinfo at every call, so a remount takes effect at once.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* The hidepid= level of the proc mount at MOUNT_POINT in the mount table BUF
 * (a mountinfo file; the last mount there is the one on top): 0 if there is
 * none, it is not proc, or hidepid is 0 or off; 1 noaccess, 2 invisible, 4
 * ptraceable; 2 for a value this code does not know (hide rather than tell). */
int mountinfo_proc_hidepid(const char *buf, const char *mount_point);

/* The hidepid= level of the proc mount at PROC_ROOT in latniced's mount
 * namespace; negative errno if the mount table cannot be read. */
int proc_root_hidepid(const char *proc_root);

/* The real, effective, saved and filesystem uids of the "Uid:" line of a
 * status file BUF (NUL-terminated); -EIO without one. */
int proc_status_uids_parse(const char *buf, uid_t ret[4]);

/* 1 if process (or thread) PID is UID's own (real, effective and saved uid
 * all UID), 0 if not, -ESRCH if there is no such process. */
int proc_owned_by(const char *proc_root, pid_t pid, uid_t uid);

/* Is a caller told about every process? Root is; anyone else unless HIDEPID
 * (as from proc_root_hidepid(); an error counts as hidden). */
static inline bool bus_visibility_all(bool privileged, int hidepid)
{
        return privileged || hidepid == 0;
}
