/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A process of the test's own in a cgroup (cgroup-member.h). */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cgroup-member.h"
#include "test-util.h"

pid_t cgroup_member_start(const char *dir, bool new_session)
{
        char path[PATH_MAX], buf[32];
        int fd, n;
        pid_t pid = fork();

        CHECK(pid >= 0);
        if (pid == 0) {
                (void)prctl(PR_SET_PDEATHSIG, SIGKILL); /* or its cgroup stays */
                if (new_session)
                        (void)setsid();
                pause();
                _exit(0);
        }
        snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
        fd = open(path, O_WRONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        n = snprintf(buf, sizeof(buf), "%d", (int)pid);
        CHECK(write(fd, buf, (size_t)n) == n);
        close(fd);
        return pid;
}
