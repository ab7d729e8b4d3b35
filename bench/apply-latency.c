/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * apply-latency: time from exec to the attributes latniced applies being
 * visible to the process itself (bench/apply-latency.sh runs it against a
 * latniced whose policy gives "lt-bench-target" Nice=NICE).
 *
 *   apply-latency COUNT NICE [GAP_US]   measure COUNT processes, print statistics
 *
 * GAP_US: a pause between one process's end and the next one's start (0:
 * none), so that each one comes alone, e.g. into a storm of processes the
 * policy does not touch, which latniced reads in batches.
 *
 * For each process: fork; the child takes CLOCK_MONOTONIC and execs this
 * program as "lt-bench-target T0 NICE"; the new image polls getpriority()
 * (yielding between polls) until it reads NICE, and reports now - T0 in ns
 * through a pipe, together with the time its main() started (the cost of
 * exec and the dynamic loader, which is in every figure: the kernel sends
 * the exec event only once the new image is in place). A process that does
 * not see NICE within 1 s is counted as missed. Prints p50, p90, p99, max
 * in microseconds, the same for exec-to-main, how many processes saw their
 * settings already on their first look, and the number missed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

/* The exec'ed image: poll until the nice value shows up. */
static int target(const char *t0s, const char *nices)
{
        uint64_t t0 = strtoull(t0s, NULL, 10), end = t0 + 1000000000u, t;
        uint64_t out[3] = { UINT64_MAX, now_ns() - t0, 0 };
        int want = atoi(nices);
        bool first = true;

        for (;;) {
                errno = 0;
                int n = getpriority(PRIO_PROCESS, 0);
                t = now_ns();
                if (errno == 0 && n == want) {
                        out[0] = t - t0;
                        out[2] = first;
                        break;
                }
                if (t > end)
                        break;
                first = false;
                sched_yield();
        }
        return write(STDOUT_FILENO, out, sizeof(out)) == sizeof(out) ? 0 : 1;
}

int main(int argc, char *argv[])
{
        long count, gap_us = 0;
        uint64_t *lat, *mainlat;
        size_t n = 0, missed = 0, at_first_look = 0;

        if (argc == 3 && strcmp(argv[0], "lt-bench-target") == 0)
                return target(argv[1], argv[2]);
        if (argc < 3 || argc > 4 || (count = strtol(argv[1], NULL, 10)) <= 0 ||
            (argc == 4 && ((gap_us = strtol(argv[3], NULL, 10)) < 0 || gap_us > 10000000))) {
                fprintf(stderr, "usage: apply-latency COUNT NICE [GAP_US]\n");
                return 2;
        }
        lat = calloc((size_t)count, sizeof(uint64_t));
        mainlat = calloc((size_t)count, sizeof(uint64_t));
        if (!lat || !mainlat)
                return 1;

        for (long i = 0; i < count; i++) {
                int fd[2];
                uint64_t d[3] = { UINT64_MAX, 0, 0 };
                pid_t p;

                if (i > 0 && gap_us > 0)
                        usleep((useconds_t)gap_us);
                if (pipe2(fd, O_CLOEXEC) < 0)
                        return 1;
                p = fork();
                if (p < 0)
                        return 1;
                if (p == 0) {
                        char t0[32];
                        char *args[] = { (char *)"lt-bench-target", t0, argv[2], NULL };
                        dup2(fd[1], STDOUT_FILENO);
                        snprintf(t0, sizeof(t0), "%" PRIu64, now_ns());
                        execv("/proc/self/exe", args);
                        _exit(127);
                }
                close(fd[1]);
                if (read(fd[0], d, sizeof(d)) != sizeof(d))
                        d[0] = UINT64_MAX;
                close(fd[0]);
                waitpid(p, NULL, 0);
                if (d[0] == UINT64_MAX)
                        missed++;
                else {
                        mainlat[n] = d[1];
                        at_first_look += d[2];
                        lat[n++] = d[0];
                }
        }

        qsort(lat, n, sizeof(uint64_t), cmp_u64);
        qsort(mainlat, n, sizeof(uint64_t), cmp_u64);
        if (n == 0) {
                printf("processes %ld missed %zu\n", count, missed);
                return 1;
        }
        printf("processes %ld applied %zu missed %zu  p50 %.1f us  p90 %.1f us  p99 %.1f us  "
               "max %.1f us\n",
               count, n, missed, lat[n / 2] / 1e3, lat[n * 90 / 100] / 1e3,
               lat[n * 99 / 100] / 1e3, lat[n - 1] / 1e3);
        printf("  exec to main() (no daemon work in it): p50 %.1f us  p99 %.1f us;  settings "
               "already there on the first look: %zu of %zu\n",
               mainlat[n / 2] / 1e3, mainlat[n * 99 / 100] / 1e3, at_first_look, n);
        free(lat);
        free(mainlat);
        return missed ? 1 : 0;
}
