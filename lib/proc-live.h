/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which path a process's identity is read from: the one place that decides
 * between PROC_ROOT/PID/FILE and a live thread's PROC_ROOT/PID/task/TID/FILE.
 *
 * A process whose main thread called pthread_exit() while its other threads
 * run is alive, but its leader has let go of the process's memory and
 * namespaces: PID/cmdline and PID/environ read empty, PID/exe, PID/ns/mnt,
 * PID/root and PID/cwd cannot be read, and PID/cgroup stays where the leader
 * was when the others moved. Every thread shares that memory, so a live
 * thread's files under task/ give the process's values. Reading the
 * leader's files alone let a user end its main thread to shed a cmdline:
 * or exe: rule at its next evaluation, or change what the trust model and
 * the tamper check see.
 *
 * Only the first PROC_LIVE_TRIES threads that /proc/PID/task lists after the
 * leader (the oldest) are tried, one after another when a thread exits
 * between the listing and its read: a process may have thousands of
 * threads, and the walk must not be the user's to lengthen.
 */
#pragma once

#include <sys/types.h>

#define PROC_LIVE_TRIES 4

/* What the caller knows of the main thread, from a stat it read (or not). */
typedef enum ProcLeader {
        /* Nothing, or that it was alive when its stat was read: PID/FILE is
         * read, and only an answer of nothing (0, -ENOENT, -ESRCH) costs
         * one stat read to see whether the main thread has exited since. */
        PROC_LEADER_UNKNOWN,
        /* Its stat showed Z or X with more than one thread: the threads are
         * read at once. */
        PROC_LEADER_EXITED,
        /* Its stat showed a kernel thread or a dead process (Z or X, one
         * thread): PID/FILE's answer is the answer. */
        PROC_LEADER_ONLY,
} ProcLeader;

/*
 * Reads FILE at PATH. Returns > 0 when it read something, 0 when the file
 * was there with nothing in it (a cmdline of no bytes), negative errno
 * otherwise (-ENOENT or -ESRCH: the task or the file is not there). It may
 * be called several times for one proc_read_live(): each call replaces what
 * an earlier one kept in USERDATA.
 */
typedef int (*ProcFileReader)(const char *path, void *userdata);

/*
 * FILE of process PID (a name under PID/: "cmdline", "exe", "ns/mnt") read
 * by READ, from the main thread or, when it has exited while the process's
 * other threads run, from one of them. *LEADER says what the caller knows;
 * where a stat read found out more, it is set to PROC_LEADER_EXITED or
 * PROC_LEADER_ONLY, so that the caller's next file of PID costs no stat read
 * again. Returns READ's answer; where the threads tried all gave nothing
 * (they exited, or gave up their memory, as they were read), -ESRCH when
 * the process is gone by then and -EAGAIN (try again later) when it is not.
 */
int proc_read_live(const char *proc_root, pid_t pid, ProcLeader *leader, const char *file,
                   ProcFileReader read, void *userdata);
