/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * read-plan: what a policy's /proc reads cost per process, and what one key
 * adds. latniced reads, at every exec, the files its policy's keys need
 * (policy_read_plan()); this times proc_task_read() with that plan and with
 * the plan minus the reads of one key (env: by default, which the shipped
 * policy's Steam game rule makes latniced read at every exec), on a real
 * process, in interleaved blocks, and prints the medians.
 *
 *   read-plan POLICY_DIR [--without env|cmdline|exe|cgroup|ids|ancestors]
 *             [--blocks N] [--reads N] [--pid PID]
 *
 * Without --pid the target is a child this program starts: sleep(1) with
 * the environment of this program (a desktop session's is 2-4 KiB; the
 * script's own is what the caller gives it). Root is not needed to read
 * one's own child; the fresh-exec path (PROC_READ_FRESH) is not taken, so
 * the cmdline and environ are read as for a process that has run a while.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/macro.h"
#include "lib/proc.h"
#include "policy/policy.h"

static const struct {
        const char *name;
        ProcReadPlan reads;
} keys[] = {
        { "env", PROC_READ_ENVIRON },      { "cmdline", PROC_READ_CMDLINE },
        { "exe", PROC_READ_EXE },          { "cgroup", PROC_READ_CGROUP },
        { "ids", PROC_READ_IDS | PROC_READ_NAMES }, { "ancestors", PROC_READ_ANCESTORS },
};

static uint64_t now_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

        return x < y ? -1 : x > y;
}

/* Median ns per read of N reads of PID with PLAN; 0 on a failed read. */
static uint64_t time_block(pid_t pid, ProcReadPlan plan, unsigned n, uint64_t *scratch)
{
        for (unsigned i = 0; i < n; i++) {
                ProcTask *t = NULL;
                uint64_t t0 = now_ns();
                int r = proc_task_read("/proc", pid, 0, plan, &t);

                scratch[i] = now_ns() - t0;
                proc_task_free(t);
                if (r < 0) {
                        fprintf(stderr, "read-plan: reading %d: %s\n", (int)pid, strerror(-r));
                        return 0;
                }
        }
        qsort(scratch, n, sizeof(*scratch), cmp_u64);
        return scratch[n / 2];
}

static int load_plan(const char *dir, ProcReadPlan *ret)
{
        char *dirs[] = { (char *)dir, NULL };
        Diagnostics d = {};
        Policy *p = NULL;
        int r;

        r = policy_load(dirs, NULL, &p, &d);
        if (r >= 0 && diagnostics_count(&d, DIAG_ERROR) > 0)
                r = -EINVAL;
        diagnostics_done(&d);
        if (r < 0) {
                fprintf(stderr, "read-plan: %s: the policy does not load: %s\n", dir,
                        strerror(-r));
                policy_free(p);
                return r;
        }
        /* As latniced reads at an exec: the stat (start time, pid reuse) too. */
        *ret = policy_read_plan(p) | PROC_READ_STAT;
        policy_free(p);
        return 0;
}

static void usage(void)
{
        fprintf(stderr, "usage: read-plan POLICY_DIR [--without KEY] [--blocks N] [--reads N] "
                        "[--pid PID]\n");
        exit(2);
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "without", required_argument, NULL, 'w' },
                { "blocks", required_argument, NULL, 'b' },
                { "reads", required_argument, NULL, 'n' },
                { "pid", required_argument, NULL, 'p' },
                {},
        };
        const char *without = "env";
        unsigned blocks = 21, reads = 200;
        ProcReadPlan plan, less = 0;
        pid_t pid = 0, child = 0;
        uint64_t *scratch, *full, *part;
        int c;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) >= 0) {
                if (c == 'w')
                        without = optarg;
                else if (c == 'b')
                        blocks = (unsigned)strtoul(optarg, NULL, 10);
                else if (c == 'n')
                        reads = (unsigned)strtoul(optarg, NULL, 10);
                else if (c == 'p')
                        pid = (pid_t)strtol(optarg, NULL, 10);
                else
                        usage();
        }
        if (optind + 1 != argc || blocks == 0 || reads == 0)
                usage();
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                if (streq(keys[i].name, without))
                        less = keys[i].reads;
        if (!less) {
                fprintf(stderr, "read-plan: --without: unknown key \"%s\"\n", without);
                return 2;
        }
        if (load_plan(argv[optind], &plan) < 0)
                return 1;
        if (!(plan & less)) {
                fprintf(stderr, "read-plan: the policy in %s does not read what %s: needs\n",
                        argv[optind], without);
                return 1;
        }
        if (pid == 0) {
                child = fork();
                if (child < 0)
                        return 1;
                if (child == 0) {
                        execlp("sleep", "sleep", "600", (char *)NULL);
                        _exit(127);
                }
                pid = child;
                usleep(100000); /* the exec: reads then see sleep, not this program */
        }

        scratch = calloc(reads, sizeof(*scratch));
        full = calloc(blocks, sizeof(*full));
        part = calloc(blocks, sizeof(*part));
        if (!scratch || !full || !part)
                return 1;
        /* Interleaved: each block times both plans, in turn first. */
        for (unsigned b = 0; b < blocks; b++) {
                bool first_full = b % 2 == 0;

                (first_full ? full : part)[b] =
                        time_block(pid, first_full ? plan : plan & ~less, reads, scratch);
                (first_full ? part : full)[b] =
                        time_block(pid, first_full ? plan & ~less : plan, reads, scratch);
                if (!full[b] || !part[b])
                        return 1;
        }
        qsort(full, blocks, sizeof(*full), cmp_u64);
        qsort(part, blocks, sizeof(*part), cmp_u64);
        printf("read plan of %s: 0x%x; without %s: 0x%x\n", argv[optind], plan, without,
               plan & ~less);
        printf("median of %u blocks of %u reads: %.1f us with, %.1f us without %s: +%.1f us "
               "(%.0f%%) per process\n",
               blocks, reads, full[blocks / 2] / 1000.0, part[blocks / 2] / 1000.0, without,
               ((double)full[blocks / 2] - (double)part[blocks / 2]) / 1000.0,
               100.0 * ((double)full[blocks / 2] - (double)part[blocks / 2]) /
                       (double)part[blocks / 2]);
        if (child) {
                kill(child, SIGKILL);
                waitpid(child, NULL, 0);
        }
        free(scratch);
        free(full);
        free(part);
        return 0;
}
