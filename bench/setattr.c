/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * setattr: run a command with scheduler attributes set on itself first
 * (like nice(1) or chrt(1)), for bench/sched-effect.sh. It exists so the
 * benchmark can measure each mechanism alone, without latniced.
 *
 *   setattr [--nice N] [--policy other|batch|idle|fifo] [--slice NS]
 *           [--slack NS] [--setsid] [--argv0 NAME] -- CMD [ARG...]
 *
 * Everything set here is inherited across exec and by the threads and
 * children CMD creates: nice, policy and the EEVDF slice (sched_runtime)
 * through sched_setattr(), the timer slack through PR_SET_TIMERSLACK.
 * --setsid starts a new session, and so a new autogroup.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SCHED_BATCH
#define SCHED_BATCH 3
#endif
#ifndef SCHED_IDLE
#define SCHED_IDLE 5
#endif

struct bench_sched_attr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime;
        uint64_t sched_deadline;
        uint64_t sched_period;
};

static int parse_long(const char *s, long min, long max, long *ret)
{
        char *end;
        long v;

        errno = 0;
        v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int parse_policy(const char *s)
{
        if (strcmp(s, "other") == 0)
                return SCHED_OTHER;
        if (strcmp(s, "batch") == 0)
                return SCHED_BATCH;
        if (strcmp(s, "idle") == 0)
                return SCHED_IDLE;
        if (strcmp(s, "fifo") == 0) /* the benchmark's floor: priority 50 */
                return SCHED_FIFO;
        return -EINVAL;
}

static void usage(FILE *f)
{
        fprintf(f, "usage: setattr [--nice N] [--policy other|batch|idle|fifo] [--slice NS] [--slack NS]\n"
                   "               [--setsid] [--argv0 NAME] -- CMD [ARG...]\n");
}

int main(int argc, char *argv[])
{
        static const struct option options[] = {
                { "nice", required_argument, NULL, 'n' },
                { "policy", required_argument, NULL, 'p' },
                { "slice", required_argument, NULL, 's' },
                { "slack", required_argument, NULL, 'k' },
                { "setsid", no_argument, NULL, 'S' },
                { "argv0", required_argument, NULL, 'a' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        long nice = LONG_MIN, slice = 0, slack = 0;
        int policy = -1, c;
        const char *argv0 = NULL;
        int new_session = 0;

        while ((c = getopt_long(argc, argv, "+h", options, NULL)) >= 0) {
                switch (c) {
                case 'n':
                        if (parse_long(optarg, -20, 19, &nice) < 0)
                                goto bad;
                        break;
                case 'p':
                        policy = parse_policy(optarg);
                        if (policy < 0)
                                goto bad;
                        break;
                case 's': /* the kernel clamps to 0.1..100 ms */
                        if (parse_long(optarg, 100000, 100000000, &slice) < 0)
                                goto bad;
                        break;
                case 'k':
                        if (parse_long(optarg, 1, 100000000, &slack) < 0)
                                goto bad;
                        break;
                case 'S':
                        new_session = 1;
                        break;
                case 'a':
                        argv0 = optarg;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (optind >= argc) {
                usage(stderr);
                return 2;
        }

        if (new_session && setsid() < 0) {
                fprintf(stderr, "setattr: setsid: %m\n");
                return 1;
        }

        if (nice != LONG_MIN || policy >= 0 || slice > 0) {
                struct bench_sched_attr attr;

                memset(&attr, 0, sizeof(attr));
                if (syscall(SYS_sched_getattr, 0, &attr, sizeof(attr), 0) < 0) {
                        fprintf(stderr, "setattr: sched_getattr: %m\n");
                        return 1;
                }
                attr.size = sizeof(attr);
                attr.sched_flags = 0;
                if (policy >= 0)
                        attr.sched_policy = policy;
                if (nice != LONG_MIN)
                        attr.sched_nice = nice;
                /* 0 asks for the default slice; getattr reports the
                 * effective one, which must not become a custom slice. */
                attr.sched_runtime = slice;
                attr.sched_deadline = attr.sched_period = 0;
                attr.sched_priority = attr.sched_policy == SCHED_FIFO ? 50 : 0;
                if (syscall(SYS_sched_setattr, 0, &attr, 0) < 0) {
                        fprintf(stderr, "setattr: sched_setattr: %m\n");
                        return 1;
                }
        }

        if (slack > 0 && prctl(PR_SET_TIMERSLACK, (unsigned long) slack, 0, 0, 0) < 0) {
                fprintf(stderr, "setattr: PR_SET_TIMERSLACK: %m\n");
                return 1;
        }

        const char *path = argv[optind];
        if (argv0)
                argv[optind] = (char *) argv0;
        execvp(path, argv + optind);
        fprintf(stderr, "setattr: %s: %m\n", path);
        return 127;

bad:
        fprintf(stderr, "setattr: invalid value \"%s\"\n", optarg);
        usage(stderr);
        return 2;
}
