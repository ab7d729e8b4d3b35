/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-rename: a rename storm, for the hostile-load integration test (not
 * installed). Renames its main thread with prctl(PR_SET_NAME) in a tight
 * loop (names "ln-rn-0" ... "ln-rn-9", cycling), then sets FINAL and stays.
 *
 *   ln-rename SECONDS FINAL
 *
 * Prints "pid=PID" when it starts, and "final COUNT" (renames done) once
 * the name is FINAL; then sleeps until killed. Needs no privilege: run it
 * as nobody to play the unprivileged attacker. Exit status 1 on failure, 2
 * on usage errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char *argv[])
{
        char name[16];
        double seconds, end;
        char *e = NULL;
        long n = 0;

        if (argc != 3 || (seconds = strtod(argv[1], &e)) < 0 || !e || *e || !*argv[2]) {
                fprintf(stderr, "usage: ln-rename SECONDS FINAL\n");
                return 2;
        }
        printf("pid=%d\n", (int)getpid());
        fflush(stdout);

        end = now_s() + seconds;
        do {
                /* Check the clock every 1024 renames only: the loop is the storm. */
                for (int i = 0; i < 1024; i++, n++) {
                        snprintf(name, sizeof(name), "ln-rn-%ld", n % 10);
                        if (prctl(PR_SET_NAME, name) < 0)
                                return 1;
                }
        } while (now_s() < end);

        if (prctl(PR_SET_NAME, argv[2]) < 0)
                return 1;
        printf("final %ld\n", n);
        fflush(stdout);
        for (;;)
                pause();
}
