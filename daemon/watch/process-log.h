/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ProcessLog: a message said once per process and reason, not once per
 * thread.
 *
 * A user who names 10,000 threads after a boosted thread rule made latniced
 * write 10,000 lines ("boosts withheld", and again "thread rules applied").
 * Here a process's first message of a kind is said at once; further
 * threads of it with the same reason are counted and said together, at most
 * once per interval (at its next one after that, or at its exit). A new
 * reason is said at once; a process keeps a few reasons apart (a thread's
 * rule can change as it renames itself). latniced keeps one ProcessLog per kind of message.
 *
 * At most MAX processes are tracked; beyond that an old one is forgotten
 * (its count unsaid). Pure bookkeeping: time is passed in, nothing logs.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct ProcessLog ProcessLog;

/* -EINVAL for MAX or INTERVAL_USEC 0. */
int process_log_new(size_t max, uint64_t interval_usec, ProcessLog **ret);
ProcessLog *process_log_free(ProcessLog *l);
static inline void process_log_freep(ProcessLog **l)
{
        if (*l)
                process_log_free(*l);
}

/*
 * N threads of PID have something to say for REASON at NOW. Returns 1 if it is
 * to be said now, with *RET_N the threads to name (N and those counted since
 * the last line), 0 if it is counted for later, -ENOMEM (then say it).
 */
int process_log_note(ProcessLog *l, pid_t pid, const char *reason, uint64_t n, uint64_t now,
                      uint64_t *ret_n);

/* PID exited: forget it. Returns the threads counted and not said yet for
 * the reason with the most of them (0: nothing to say), and that reason in
 * *RET_REASON (owned by the caller). */
uint64_t process_log_forget(ProcessLog *l, pid_t pid, char **ret_reason);

size_t process_log_size(const ProcessLog *l);
