/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-race: programs that change their own scheduling first thing after exec,
 * racing latniced's apply step, for bench/self-change-race.sh (not
 * installed).
 *
 *   ln-race --mode fifo|nice --runs N --argv0 NAME [--settle-ms MS] [--spread-us US]
 *
 * Runs N children one after another. Each re-executes this binary with
 * argv[0] = NAME (so a rule "name:NAME" matches it at exec) and, first thing
 * in main(), makes itself SCHED_FIFO priority 1 (--mode fifo) or calls
 * setpriority(PRIO_PROCESS, 0, 15) (--mode nice); with --spread-us US, run
 * i first spins for (i * 37) % (US + 1) microseconds, so that over the runs
 * the change lands everywhere in latniced's reaction to the exec event (how
 * long that takes depends on the machine). It then sleeps MS
 * milliseconds (default 20: latniced acts on the exec event long before
 * that; a later action finds the change already made) and reads its own
 * attributes back with sched_getattr(): the kernel's view, not latniced's.
 * A run where the change did not survive (policy no longer FIFO, nice no
 * longer 15) is "lost".
 *
 * Prints "runs=N lost=K" and, for each lost run, "lost pid=PID policy=P
 * nice=N" before it. Exit status: 0 if no run was lost, 1 if some were, 2 on
 * usage errors, 3 if a child could not make the change at all (no
 * CAP_SYS_NICE or RLIMIT_RTPRIO for FIFO).
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct attr {
        uint32_t size, policy;
        uint64_t flags;
        int32_t nice;
        uint32_t priority;
        uint64_t runtime, deadline, period;
} __attribute__((packed));

enum { CHILD_OK = 0, CHILD_LOST = 1, CHILD_CANNOT = 3 };

static uint64_t now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static int child(const char *mode, long settle_ms, long spin_us)
{
        struct timespec ts = { settle_ms / 1000, (settle_ms % 1000) * 1000000L };
        uint64_t end = now_us() + (uint64_t)spin_us;
        struct attr a;
        int r;

        /* First thing (after the spin): the window the race is about. */
        while (now_us() < end)
                ;
        if (strcmp(mode, "fifo") == 0) {
                struct sched_param p = { .sched_priority = 1 };
                r = sched_setscheduler(0, SCHED_FIFO, &p);
        } else
                r = setpriority(PRIO_PROCESS, 0, 15);
        if (r < 0)
                return CHILD_CANNOT;

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;

        memset(&a, 0, sizeof(a));
        if (syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0) < 0)
                return CHILD_CANNOT;
        if (strcmp(mode, "fifo") == 0 ? a.policy == SCHED_FIFO : a.nice == 15)
                return CHILD_OK;
        printf("lost pid=%d policy=%u nice=%d\n", (int)getpid(), a.policy, a.nice);
        fflush(stdout);
        return CHILD_LOST;
}

static void usage(void)
{
        fprintf(stderr, "usage: ln-race --mode fifo|nice --runs N --argv0 NAME [--settle-ms MS] "
                        "[--spread-us US]\n");
        exit(2);
}

int main(int argc, char **argv)
{
        const char *mode = NULL, *argv0 = NULL;
        long runs = 0, settle_ms = 20, spread_us = 0, lost = 0;
        char settle[32], spin[32];

        if (argc == 5 && strcmp(argv[1], "--child") == 0)
                return child(argv[2], strtol(argv[3], NULL, 10), strtol(argv[4], NULL, 10));

        for (int i = 1; i < argc; i++) {
                if (i + 1 >= argc)
                        usage();
                if (strcmp(argv[i], "--mode") == 0)
                        mode = argv[++i];
                else if (strcmp(argv[i], "--runs") == 0)
                        runs = strtol(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--argv0") == 0)
                        argv0 = argv[++i];
                else if (strcmp(argv[i], "--settle-ms") == 0)
                        settle_ms = strtol(argv[++i], NULL, 10);
                else if (strcmp(argv[i], "--spread-us") == 0)
                        spread_us = strtol(argv[++i], NULL, 10);
                else
                        usage();
        }
        if (!mode || (strcmp(mode, "fifo") != 0 && strcmp(mode, "nice") != 0) || !argv0 ||
            runs <= 0 || settle_ms < 0 || settle_ms > 10000 || spread_us < 0 || spread_us > 100000)
                usage();
        snprintf(settle, sizeof(settle), "%ld", settle_ms);

        for (long i = 0; i < runs; i++) {
                int status;
                pid_t pid;

                snprintf(spin, sizeof(spin), "%ld", (i * 37) % (spread_us + 1));
                pid = fork();

                if (pid < 0) {
                        perror("fork");
                        return 2;
                }
                if (pid == 0) {
                        char *args[] = { (char *)argv0, "--child", (char *)mode, settle, spin,
                                         NULL };
                        execv("/proc/self/exe", args);
                        _exit(CHILD_CANNOT);
                }
                if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
                        fprintf(stderr, "child %d did not exit normally\n", (int)pid);
                        return 2;
                }
                if (WEXITSTATUS(status) == CHILD_CANNOT) {
                        fprintf(stderr, "child could not make itself %s (privilege?)\n", mode);
                        return 3;
                }
                if (WEXITSTATUS(status) == CHILD_LOST)
                        lost++;
        }
        printf("runs=%ld lost=%ld\n", runs, lost);
        return lost > 0 ? 1 : 0;
}
