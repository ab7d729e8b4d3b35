/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-storm: start COUNT short-lived processes as fast as JOBS parallel
 * loops can (posix_spawn of itself, the child exits at once), for the
 * exec storm integration test (not installed). With RATE, at most RATE
 * processes per second in all (each loop keeps its share on an absolute
 * schedule), for bench/exec-storm.sh.
 *
 *   ln-storm COUNT [JOBS [RATE]]
 *
 * Prints "half" when half of the processes have been started and
 * "done COUNT MS" (elapsed milliseconds) at the end. Exit status 0, 1 if a
 * process could not be started, 2 on usage errors.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int main(int argc, char *argv[])
{
        char *child_argv[] = { (char *)"ln-storm-child", (char *)"--child", NULL };
        char *env[] = { NULL };
        long count, jobs = 2, rate = 0;
        long *done;
        long long t0;
        int rc = 0;

        if (argc >= 2 && strcmp(argv[1], "--child") == 0)
                _exit(0);
        if (argc < 2 || argc > 4 || (count = strtol(argv[1], NULL, 10)) <= 0 ||
            (argc >= 3 && ((jobs = strtol(argv[2], NULL, 10)) <= 0 || jobs > 64)) ||
            (argc == 4 && ((rate = strtol(argv[3], NULL, 10)) <= 0 || rate > 1000000))) {
                fprintf(stderr, "usage: ln-storm COUNT [JOBS [RATE]]\n");
                return 2;
        }

        done = mmap(NULL, sizeof(long), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (done == MAP_FAILED)
                return 1;
        *done = 0;
        t0 = now_ms();

        for (long j = 0; j < jobs; j++) {
                pid_t w = fork();
                if (w < 0)
                        return 1;
                if (w > 0)
                        continue;
                /* A worker dies with the storm (pdeathsig is not inherited across fork). */
                if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
                        _exit(1);
                struct timespec next;
                clock_gettime(CLOCK_MONOTONIC, &next);
                for (long i = j; i < count; i += jobs) {
                        pid_t p;
                        if (rate > 0) {
                                /* This loop's share: one process per jobs/rate seconds. */
                                long long step = 1000000000LL * jobs / rate;
                                next.tv_nsec += step % 1000000000LL;
                                next.tv_sec += step / 1000000000LL + next.tv_nsec / 1000000000L;
                                next.tv_nsec %= 1000000000L;
                                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
                                        ;
                        }
                        if (posix_spawn(&p, "/proc/self/exe", NULL, NULL, child_argv, env) != 0)
                                _exit(1);
                        if (waitpid(p, NULL, 0) != p)
                                _exit(1);
                        if (__atomic_add_fetch(done, 1, __ATOMIC_RELAXED) == count / 2) {
                                printf("half\n");
                                fflush(stdout);
                        }
                }
                _exit(0);
        }
        for (long j = 0; j < jobs; j++) {
                int st;
                if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                        rc = 1;
        }
        printf("done %ld %lld\n", *done, now_ms() - t0);
        return rc;
}
