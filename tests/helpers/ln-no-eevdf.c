/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-no-eevdf CMD [ARG...]: run CMD where sched_setattr(2) fails with
 * EINVAL, as the kernel probe (lib/probe.c) then finds a kernel without
 * EEVDF slices and without the latency nice syscall, what it finds on
 * Debian 12's 6.1 (which has neither). A seccomp filter, inherited by
 * CMD's children; every other system call is allowed. A test fake for the
 * probe's findings, not a sandbox (it does not check the architecture).
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
        struct sock_filter filter[] = {
                BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sched_setattr, 0, 1),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EINVAL & SECCOMP_RET_DATA)),
                BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        };
        struct sock_fprog prog = {
                .len = sizeof(filter) / sizeof(filter[0]),
                .filter = filter,
        };

        if (argc < 2) {
                fprintf(stderr, "usage: ln-no-eevdf CMD [ARG...]\n");
                return 2;
        }
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
            prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
                fprintf(stderr, "ln-no-eevdf: seccomp: %s\n", strerror(errno));
                return 1;
        }
        execvp(argv[1], argv + 1);
        fprintf(stderr, "ln-no-eevdf: %s: %s\n", argv[1], strerror(errno));
        return 127;
}
