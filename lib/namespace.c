/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <sys/stat.h>

#include "lib/namespace.h"

/* The inode numbers the kernel gives its initial namespaces (fixed since
 * Linux 3.8, include/linux/proc_ns.h). */
#define PROC_USER_INIT_INO 0xEFFFFFFDu
#define PROC_PID_INIT_INO 0xEFFFFFFCu

/* The inode of a namespace file; INIT_INO when the kernel has no such
 * namespaces (built without CONFIG_PID_NS/CONFIG_USER_NS, or without
 * CONFIG_NAMESPACES: no /proc/self/ns at all), where every task is in the
 * initial one. */
static int ns_inode(const char *path, uint64_t init_ino, uint64_t *ret)
{
        struct stat st;

        if (stat(path, &st) < 0) {
                if (errno == ENOENT && stat("/proc/self/stat", &st) >= 0) {
                        *ret = init_ino;
                        return 0;
                }
                return -errno;
        }
        *ret = st.st_ino;
        return 0;
}

int namespace_check(NamespaceCheck *ret)
{
        uint64_t pid_ino, user_ino;
        int r;

        r = ns_inode("/proc/self/ns/pid", PROC_PID_INIT_INO, &pid_ino);
        if (r >= 0)
                r = ns_inode("/proc/self/ns/user", PROC_USER_INIT_INO, &user_ino);
        if (r < 0)
                return r;

        if (pid_ino != PROC_PID_INIT_INO)
                *ret = (NamespaceCheck){
                        .which = "PID",
                        .inode = pid_ino,
                        .fix = "the kernel sends process events only to the initial PID "
                               "namespace. Run latniced on the host, or give its container the "
                               "host's PID namespace (docker/podman run --pid=host, Kubernetes "
                               "hostPID: true); systemd-nspawn and unshare --pid cannot",
                };
        else if (user_ino != PROC_USER_INIT_INO)
                *ret = (NamespaceCheck){
                        .which = "user",
                        .inode = user_ino,
                        .fix = "capabilities in a user namespace do not reach the host's tasks. "
                               "Run latniced on the host, or without a user namespace (docker/"
                               "podman run --userns=host, Kubernetes hostUsers: true)",
                };
        else {
                *ret = (NamespaceCheck){};
                return 1;
        }
        return 0;
}
