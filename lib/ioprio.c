/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * I/O priority (ioprio_get/ioprio_set).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/ioprio.h"
#include "lib/macro.h"
#include "lib/util.h"

/* ioprio_get/set "which": one thread (the kernel calls it a process). */
#define IOPRIO_WHO_PROCESS 1

const char *ioprio_class_to_string(int class)
{
        switch (class) {
        case LN_IOPRIO_CLASS_NONE:
                return "none";
        case LN_IOPRIO_CLASS_RT:
                return "realtime";
        case LN_IOPRIO_CLASS_BE:
                return "best-effort";
        case LN_IOPRIO_CLASS_IDLE:
                return "idle";
        default:
                return NULL;
        }
}

int ioprio_class_from_string(const char *s)
{
        if (!s)
                return -EINVAL;
        if (streq(s, "realtime") || streq(s, "rt"))
                return LN_IOPRIO_CLASS_RT;
        if (streq(s, "best-effort") || streq(s, "be"))
                return LN_IOPRIO_CLASS_BE;
        if (streq(s, "idle"))
                return LN_IOPRIO_CLASS_IDLE;
        return -EINVAL;
}

int ioprio_read(pid_t tid, int *ret)
{
        long r = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, (int)tid);

        if (r < 0)
                return -errno;
        *ret = (int)r;
        return 0;
}

int ioprio_write(pid_t tid, int ioprio)
{
        if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, (int)tid, ioprio) < 0)
                return -errno;
        return 0;
}

int ioprio_compose(int cur, int nice, int class, int level)
{
        int cur_class = LN_IOPRIO_CLASS(cur);

        if (level < 0)
                level = cur_class == LN_IOPRIO_CLASS_NONE || cur_class == LN_IOPRIO_CLASS_IDLE
                                ? (nice + 20) / 5
                                : LN_IOPRIO_LEVEL(cur);
        if (class < 0)
                class = cur_class == LN_IOPRIO_CLASS_NONE ? LN_IOPRIO_CLASS_BE : cur_class;
        if (class == LN_IOPRIO_CLASS_IDLE)
                level = 0;
        return LN_IOPRIO_VALUE(class, level);
}
