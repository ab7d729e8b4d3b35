/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The process a focus call names, held by a pidfd (see focus-pid.h).
 */
#include <errno.h>
#include <stdio.h>

#include "daemon/desktop/focus-pid.h"
#include "lib/macro.h"
#include "lib/util.h"

/* Open a pidfd of PID: the descriptor, -EBADF where the kernel gives none
 * (-ENOSYS, a seccomp -EPERM: then /proc alone is read), or -EINVAL or
 * -ESRCH with *RET_ERROR. */
static int hold(const char *proc_root, const KernelOps *k, pid_t pid, char **ret_error)
{
        int fd = k->pidfd_open(pid);
        pid_t tgid;

        if (fd == -EINVAL || fd == -ENOENT) {
                /* not a thread group leader (EINVAL before 6.9, ENOENT since) */
                if (proc_tgid(proc_root, pid, &tgid) >= 0 && tgid != pid) {
                        (void)asprintf(ret_error, "pid %d is a thread, not a process: name its "
                                       "thread group id %d", (int)pid, (int)tgid);
                        return -EINVAL;
                }
                fd = -ESRCH;
        }
        if (fd == -ESRCH) {
                (void)asprintf(ret_error, "No process %d", (int)pid);
                return -ESRCH;
        }
        return fd >= 0 ? fd : -EBADF;
}

int focus_pid_read(const char *proc_root, const KernelOps *k, bool pidfds, pid_t pid,
                   ProcTask **ret, char **ret_error)
{
        _cleanup_(proc_task_freep) ProcTask *p = NULL;
        _cleanup_close_ int pidfd = -EBADF;
        _cleanup_free_ char *unasked = NULL;
        int r;

        if (!ret_error)
                ret_error = &unasked;
        k = kernel_ops(k);
        if (pidfds) {
                pidfd = hold(proc_root, k, pid, ret_error);
                if (pidfd == -EINVAL || pidfd == -ESRCH)
                        return pidfd;
        }
        r = proc_task_read(proc_root, pid, 0, PROC_READ_STAT | PROC_READ_IDS | PROC_READ_CGROUP,
                           &p);
        if (r >= 0 && pidfd >= 0 && k->pidfd_alive(pidfd) == 0)
                r = -ESRCH; /* what was read may be of whoever took the pid since */
        if (r < 0 || p->kernel_thread || p->zombie) {
                (void)asprintf(ret_error, "No process %d", (int)pid);
                return r < 0 && !errno_is_gone(r) ? r : -ESRCH;
        }
        *ret = TAKE_PTR(p);
        return 0;
}
