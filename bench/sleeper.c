/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sleeper: a periodic latency-sensitive task for bench/sched-effect.sh, shaped
 * like an audio server's data loop: one thread (named like PipeWire's,
 * "data-loop.0" by default) sleeps until an absolute deadline every INTERVAL
 * and records how late it woke up, in a histogram of 1 us buckets.
 *
 *   sleeper [--interval US] [--duration S] [--warmup S] [--max US]
 *           [--thread-name NAME] [--histfile FILE]
 *
 * --warmup S: run the loop for S seconds first and record nothing of it, so
 * that what the harness does right after the start (bench/sched-effect.sh
 * reads the groups and attributes of both sides, a few dozen forks) is not
 * part of the measurement.
 *
 * It runs with whatever attributes it was started with (nice, policy, slice,
 * timer slack are all inherited by its thread), and changes none itself.
 * That is the difference from cyclictest, which switches its main thread to
 * SCHED_FIFO and back on start-up and so resets the timer slack to the
 * default. The histogram file has cyclictest's layout ("%06d %06d" per
 * non-empty bucket, then "# Max Latencies:" and friends), so the same
 * scripts read both. Two lines of its own follow: how many wake-ups came on
 * another CPU than the one the thread went to sleep on, and of those later
 * than 250 us, how many did (a remote wake-up costs an IPI, through the
 * host on a virtual machine) and how many did not.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct Sleeper {
        uint64_t interval_ns;
        uint64_t duration_ns;
        uint64_t warmup_ns;
        uint64_t max_us;
        uint64_t *hist; /* max_us + 1 buckets */
        uint64_t overflows, total, sum_us, min_us, worst_us;
        /* Wake-ups on another CPU than the one that went to sleep, and
         * of the late ones (over LATE_US), how many of each kind. */
        uint64_t moved, late_moved, late_stayed;
        const char *thread_name;
} Sleeper;

static uint64_t ts_ns(const struct timespec *ts)
{
        return (uint64_t) ts->tv_sec * 1000000000ULL + (uint64_t) ts->tv_nsec;
}

static struct timespec ns_ts(uint64_t ns)
{
        return (struct timespec) { .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };
}

#define LATE_US 250

/* One wake-up LAT_US late, on another CPU than it slept on if MOVED. */
static void record(Sleeper *s, uint64_t lat_us, bool moved)
{
        s->moved += moved;
        if (lat_us > LATE_US) {
                s->late_moved += moved;
                s->late_stayed += !moved;
        }
        if (lat_us > s->max_us)
                s->overflows++;
        else
                s->hist[lat_us]++;
        s->total++;
        s->sum_us += lat_us;
        if (lat_us < s->min_us)
                s->min_us = lat_us;
        if (lat_us > s->worst_us)
                s->worst_us = lat_us;
}

static void *sleeper_loop(void *userdata)
{
        Sleeper *s = userdata;
        struct timespec now;
        uint64_t start, next, end, record_from;

        /* Named before the first sample, as a data loop names itself. */
        (void) pthread_setname_np(pthread_self(), s->thread_name);
        clock_gettime(CLOCK_MONOTONIC, &now);
        start = ts_ns(&now);
        record_from = start + s->warmup_ns;
        end = record_from + s->duration_ns;
        next = start + s->interval_ns;

        while (next < end) {
                struct timespec deadline = ns_ts(next);
                uint64_t t;
                int r, cpu = sched_getcpu();

                r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, NULL);
                if (r == EINTR)
                        continue;
                if (r != 0) {
                        fprintf(stderr, "sleeper: clock_nanosleep: %s\n", strerror(r));
                        exit(1);
                }
                clock_gettime(CLOCK_MONOTONIC, &now);
                t = ts_ns(&now);
                if (next >= record_from)
                        record(s, t > next ? (t - next) / 1000 : 0, sched_getcpu() != cpu);

                /* Like cyclictest: periods missed during a stall are skipped,
                 * one sample per wake-up. */
                do
                        next += s->interval_ns;
                while (next <= t);
        }
        return NULL;
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
        char *end;
        unsigned long long v;

        if (*s == '-')
                return -EINVAL;
        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

static int write_histogram(const Sleeper *s, FILE *f)
{
        for (uint64_t i = 0; i <= s->max_us; i++)
                if (s->hist[i] > 0)
                        fprintf(f, "%06llu %06llu\n", (unsigned long long) i,
                                (unsigned long long) s->hist[i]);
        fprintf(f, "# Total: %09llu\n", (unsigned long long) s->total);
        fprintf(f, "# Min Latencies: %05llu\n",
                (unsigned long long) (s->total > 0 ? s->min_us : 0));
        fprintf(f, "# Avg Latencies: %05llu\n",
                (unsigned long long) (s->total > 0 ? s->sum_us / s->total : 0));
        fprintf(f, "# Max Latencies: %05llu\n", (unsigned long long) s->worst_us);
        fprintf(f, "# Histogram Overflows: %05llu\n", (unsigned long long) s->overflows);
        fprintf(f, "# Woke on another CPU: %llu\n", (unsigned long long) s->moved);
        fprintf(f, "# Later than %d us, on another CPU / the same: %llu / %llu\n", LATE_US,
                (unsigned long long) s->late_moved, (unsigned long long) s->late_stayed);
        return fflush(f) == 0 && !ferror(f) ? 0 : -EIO;
}

int main(int argc, char *argv[])
{
        static const struct option options[] = {
                { "interval", required_argument, NULL, 'i' },
                { "duration", required_argument, NULL, 'D' },
                { "warmup", required_argument, NULL, 'w' },
                { "max", required_argument, NULL, 'm' },
                { "thread-name", required_argument, NULL, 'n' },
                { "histfile", required_argument, NULL, 'f' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        Sleeper s = { .min_us = UINT64_MAX, .thread_name = "data-loop.0" };
        uint64_t interval_us = 1000, duration_s = 10, warmup_s = 0;
        const char *histfile = NULL;
        pthread_t thread;
        FILE *f = stdout;
        int c, r;

        s.max_us = 200000;
        while ((c = getopt_long(argc, argv, "i:D:w:m:n:f:h", options, NULL)) >= 0) {
                switch (c) {
                case 'i':
                        if (parse_u64(optarg, 10, 10000000, &interval_us) < 0)
                                goto bad;
                        break;
                case 'D':
                        if (parse_u64(optarg, 1, 86400, &duration_s) < 0)
                                goto bad;
                        break;
                case 'w':
                        if (parse_u64(optarg, 0, 3600, &warmup_s) < 0)
                                goto bad;
                        break;
                case 'm':
                        if (parse_u64(optarg, 1, 10000000, &s.max_us) < 0)
                                goto bad;
                        break;
                case 'n':
                        if (strlen(optarg) > 15) {
                                fprintf(stderr, "sleeper: thread name longer than 15 bytes\n");
                                return 2;
                        }
                        s.thread_name = optarg;
                        break;
                case 'f':
                        histfile = optarg;
                        break;
                case 'h':
                        printf("usage: sleeper [--interval US] [--duration S] [--warmup S] "
                               "[--max US] [--thread-name NAME] [--histfile FILE]\n");
                        return 0;
                default:
                        return 2;
                }
        }

        s.interval_ns = interval_us * 1000;
        s.duration_ns = duration_s * 1000000000ULL;
        s.warmup_ns = warmup_s * 1000000000ULL;
        s.hist = calloc(s.max_us + 1, sizeof(uint64_t));
        if (!s.hist) {
                fprintf(stderr, "sleeper: out of memory\n");
                return 1;
        }

        r = pthread_create(&thread, NULL, sleeper_loop, &s);
        if (r != 0) {
                fprintf(stderr, "sleeper: pthread_create: %s\n", strerror(r));
                return 1;
        }
        pthread_join(thread, NULL);

        if (histfile) {
                f = fopen(histfile, "we");
                if (!f) {
                        fprintf(stderr, "sleeper: %s: %m\n", histfile);
                        return 1;
                }
        }
        r = write_histogram(&s, f);
        if (f != stdout)
                r = fclose(f) == 0 ? r : -EIO;
        free(s.hist);
        if (r < 0) {
                fprintf(stderr, "sleeper: writing the histogram failed\n");
                return 1;
        }
        return 0;

bad:
        fprintf(stderr, "sleeper: invalid value \"%s\"\n", optarg);
        return 2;
}
