/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PID namespace of a focus call's caller (see focus-ns.h).
 */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "daemon/desktop/focus-ns.h"
#include "lib/macro.h"

static int ns_of(const char *proc_root, const char *who, struct stat *ret)
{
        char path[128];

        snprintf(path, sizeof(path), "%s/%s/ns/pid", proc_root ?: "/proc", who);
        return stat(path, ret) < 0 ? -errno : 0;
}

int focus_caller_same_pidns(const char *proc_root, pid_t caller_pid, char **ret_error)
{
        struct stat caller, self;
        char who[32];
        int r;

        if (caller_pid <= 0)
                return -EINVAL;
        snprintf(who, sizeof(who), "%d", (int)caller_pid);
        r = ns_of(proc_root, who, &caller);
        if (r >= 0)
                r = ns_of(proc_root, "self", &self);
        if (r < 0)
                return r;
        if (caller.st_dev == self.st_dev && caller.st_ino == self.st_ino)
                return 1;
        if (ret_error)
                (void)asprintf(ret_error,
                               "the caller (pid %d) is in another PID namespace (pid:[%llu]) "
                               "than latniced (pid:[%llu]): a pid it names would be another "
                               "process here; call from the host's namespace, as a compositor "
                               "script does", (int)caller_pid,
                               (unsigned long long)caller.st_ino,
                               (unsigned long long)self.st_ino);
        return 0;
}
