/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-forkexit: fork at once and exit; the child prints "child=PID
 * parent=PID" and
 * stays until it is killed, without calling exec, so it keeps its parent's
 * names. For test-daemon-forkexit.sh (not installed), which runs it under
 * a name a rule matches.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
        pid_t parent = getpid(), c = fork();

        if (c < 0)
                return 1;
        if (c > 0)
                return 0;
        printf("child=%d parent=%d\n", (int)getpid(), (int)parent);
        fflush(stdout);
        for (;;)
                pause();
}
