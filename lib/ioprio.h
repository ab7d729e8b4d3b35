/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * I/O priority: a task attribute that is not a scheduler attribute but that
 * background work needs as much as a nice.
 *
 * An I/O priority is one kernel value, class << 13 | level (ioprio_set(2)),
 * per thread. Class "none" (0) is a thread that never had one: its I/O then
 * runs best-effort at the level its nice gives it, (nice + 20) / 5.
 */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#define LN_IOPRIO_CLASS_NONE 0
#define LN_IOPRIO_CLASS_RT 1
#define LN_IOPRIO_CLASS_BE 2
#define LN_IOPRIO_CLASS_IDLE 3
#define LN_IOPRIO_CLASS_SHIFT 13
#define LN_IOPRIO_LEVEL_MASK 0x7
#define LN_IOPRIO_VALUE(class, level) (((class) << LN_IOPRIO_CLASS_SHIFT) | ((level) & LN_IOPRIO_LEVEL_MASK))
#define LN_IOPRIO_CLASS(v) (((v) >> LN_IOPRIO_CLASS_SHIFT) & 0x7)
#define LN_IOPRIO_LEVEL(v) ((v) & LN_IOPRIO_LEVEL_MASK)

/* "realtime", "best-effort", "idle", "none"; NULL for anything else. */
const char *ioprio_class_to_string(int class);
/* realtime|best-effort|idle (also rt, be); -EINVAL otherwise ("none" is not
 * something to ask for). */
int ioprio_class_from_string(const char *s);

/* The raw ioprio of thread TID (0: the caller). 0 or -errno (-ESRCH gone). */
int ioprio_read(pid_t tid, int *ret);
/* Set thread TID's raw ioprio. 0 or -errno. */
int ioprio_write(pid_t tid, int ioprio);

/*
 * The ioprio that gives a thread now at CUR (raw) with nice NICE the class
 * CLASS (-1: keep) and the level LEVEL (-1: keep). A kept level of a thread
 * without a class is the level its nice gives it; a kept class of such a
 * thread is best-effort. Idle has no levels: its level is 0.
 */
int ioprio_compose(int cur, int nice, int class, int level);
