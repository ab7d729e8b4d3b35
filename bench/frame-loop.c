/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * frame-loop: a process shaped like a game's or a compositor's render loop,
 * for bench/frame-effect.sh. Every PERIOD (16.667 ms: 60 frames a second)
 * it wakes on an absolute CLOCK_MONOTONIC deadline (clock_nanosleep,
 * TIMER_ABSTIME), does WORK of computation (a busy loop of a fixed number
 * of iterations, calibrated at start-up against the thread's own CPU time,
 * so a loaded machine does not skew it) and counts the frames that finished
 * after their deadline, the start of the next period.
 *
 *   frame-loop [--period US] [--work US] [--duration S] [--wait-signal]
 *              [--max-wait S] [--json]
 *
 * A frame that finishes late makes the next one start at once if its
 * period has begun, and periods that passed entirely without a frame
 * starting are counted as skipped (a game drops them). --wait-signal: run
 * frames, recording nothing, until SIGUSR1 (at most --max-wait seconds,
 * default 300, then exit 1), then record for --duration seconds: the
 * harness checks the setup first, without that being measured.
 *
 * Output (one line of key=value pairs, or one JSON object with --json):
 * frames, missed (finished after the deadline), misses_per_1000, skipped,
 * the finish time of a frame after its period began (finish_p50_us,
 * finish_p99_us, finish_max_us; the deadline is PERIOD) and its lateness
 * past the deadline (late_p50_us, late_p99_us; 0 when on time).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NSEC_PER_SEC UINT64_C(1000000000)

typedef struct Options {
        uint64_t period_ns;
        uint64_t work_ns;
        uint64_t duration_ns;
        uint64_t max_wait_ns;
        bool wait_signal;
        bool json;
} Options;

typedef struct Result {
        uint64_t frames, missed, skipped;
        uint64_t *finish_ns; /* per frame: finish - period start */
        size_t allocated;
        uint64_t iterations; /* of the busy loop, per frame */
} Result;

static volatile sig_atomic_t started;

static void on_usr1(int sig)
{
        (void)sig;
        started = 1;
}

static uint64_t now_ns(clockid_t clock)
{
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* The work: N rounds of an integer hash the compiler cannot drop. */
static volatile uint64_t sink;

static void busy(uint64_t n)
{
        uint64_t x = sink | 1;

        for (uint64_t i = 0; i < n; i++) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
        }
        sink = x;
}

/* Iterations per WORK_NS of this thread's CPU time: the fastest of a few
 * tries (CPU time does not count preemption, but cache and frequency
 * effects of a busy machine would only slow a try down). */
static uint64_t calibrate(uint64_t work_ns)
{
        const uint64_t probe = 200000;
        uint64_t best = UINT64_MAX;

        busy(probe); /* warm up */
        for (int i = 0; i < 20; i++) {
                uint64_t t0 = now_ns(CLOCK_THREAD_CPUTIME_ID), t;

                busy(probe);
                t = now_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
                if (t > 0 && t < best)
                        best = t;
        }
        if (best == UINT64_MAX)
                best = 1;
        return (uint64_t)((double)probe * (double)work_ns / (double)best);
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

        return x < y ? -1 : x > y;
}

static void sleep_until(uint64_t t)
{
        struct timespec ts = { .tv_sec = (time_t)(t / NSEC_PER_SEC),
                               .tv_nsec = (long)(t % NSEC_PER_SEC) };

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

/* Frames until the SIGUSR1 (recording nothing), then DURATION of recorded
 * ones. Returns 0, or -1 if the signal did not come within MAX_WAIT. */
static int run(const Options *o, Result *r)
{
        uint64_t start = now_ns(CLOCK_MONOTONIC), k = 1, rec_from = 0, rec_end = 0;
        bool recording = !o->wait_signal;

        if (recording)
                rec_end = start + o->duration_ns;
        for (;;) {
                uint64_t begin = start + k * o->period_ns, finish, now;

                sleep_until(begin);
                if (!recording && started) {
                        recording = true;
                        rec_from = begin;
                        rec_end = begin + o->duration_ns;
                } else if (!recording && begin - start > o->max_wait_ns) {
                        fprintf(stderr, "frame-loop: no SIGUSR1 within %" PRIu64 " s\n",
                                o->max_wait_ns / NSEC_PER_SEC);
                        return -1;
                }
                if (recording && begin >= rec_end)
                        return 0;
                busy(r->iterations);
                finish = now_ns(CLOCK_MONOTONIC);
                if (recording && begin >= rec_from) {
                        if (r->frames == r->allocated) {
                                size_t m = r->allocated ? 2 * r->allocated : 4096;
                                uint64_t *p = realloc(r->finish_ns, m * sizeof(*p));

                                if (!p) {
                                        perror("frame-loop");
                                        exit(1);
                                }
                                r->finish_ns = p;
                                r->allocated = m;
                        }
                        r->finish_ns[r->frames++] = finish - begin;
                        r->missed += finish > begin + o->period_ns;
                }
                /* The next frame: the next period that has not begun yet,
                 * or the one that has, at once; whole periods that passed
                 * meanwhile are skipped. */
                k++;
                now = now_ns(CLOCK_MONOTONIC);
                if (now > start + k * o->period_ns) {
                        uint64_t behind = (now - start) / o->period_ns; /* periods begun */

                        if (behind > k) {
                                if (recording)
                                        r->skipped += behind - k;
                                k = behind;
                        }
                }
        }
}

static uint64_t pct(const uint64_t *v, uint64_t n, double q)
{
        uint64_t i;

        if (n == 0)
                return 0;
        i = (uint64_t)(q * (double)n);
        if (i >= n)
                i = n - 1;
        return v[i];
}

static void report(const Options *o, Result *r)
{
        uint64_t p = o->period_ns, f50, f99, fmax;
        double per1000 = r->frames ? 1000.0 * (double)r->missed / (double)r->frames : 0;

        qsort(r->finish_ns, r->frames, sizeof(uint64_t), cmp_u64);
        f50 = pct(r->finish_ns, r->frames, 0.50);
        f99 = pct(r->finish_ns, r->frames, 0.99);
        fmax = r->frames ? r->finish_ns[r->frames - 1] : 0;
#define LATE(x) ((x) > p ? ((x) - p) / 1000 : 0)
        if (o->json)
                printf("{\"frames\": %" PRIu64 ", \"missed\": %" PRIu64
                       ", \"misses_per_1000\": %.1f, \"skipped\": %" PRIu64
                       ", \"period_us\": %" PRIu64 ", \"work_us\": %" PRIu64
                       ", \"iterations\": %" PRIu64 ", \"finish_p50_us\": %" PRIu64
                       ", \"finish_p99_us\": %" PRIu64 ", \"finish_max_us\": %" PRIu64
                       ", \"late_p50_us\": %" PRIu64 ", \"late_p99_us\": %" PRIu64 "}\n",
                       r->frames, r->missed, per1000, r->skipped, p / 1000, o->work_ns / 1000,
                       r->iterations, f50 / 1000, f99 / 1000, fmax / 1000, LATE(f50), LATE(f99));
        else
                printf("frames=%" PRIu64 " missed=%" PRIu64 " misses_per_1000=%.1f skipped=%" PRIu64
                       " period_us=%" PRIu64 " work_us=%" PRIu64 " iterations=%" PRIu64
                       " finish_p50_us=%" PRIu64 " finish_p99_us=%" PRIu64 " finish_max_us=%" PRIu64
                       " late_p50_us=%" PRIu64 " late_p99_us=%" PRIu64 "\n",
                       r->frames, r->missed, per1000, r->skipped, p / 1000, o->work_ns / 1000,
                       r->iterations, f50 / 1000, f99 / 1000, fmax / 1000, LATE(f50), LATE(f99));
#undef LATE
}

static int parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || end == s || *end || s[0] == '-' || v < min || v > max) {
                fprintf(stderr, "frame-loop: %s: expected a number %" PRIu64 "..%" PRIu64
                        ", got \"%s\"\n", opt, min, max, s);
                return -1;
        }
        *ret = v;
        return 0;
}

static void usage(FILE *f)
{
        fputs("usage: frame-loop [--period US] [--work US] [--duration S] [--wait-signal]\n"
              "                  [--max-wait S] [--json]\n"
              "  --period US   frame period (default 16667: 60 frames a second)\n"
              "  --work US     CPU work per frame (default 4000)\n"
              "  --duration S  seconds recorded (default 10)\n"
              "  --wait-signal record from SIGUSR1 on (frames run meanwhile)\n"
              "  --max-wait S  give up waiting for SIGUSR1 after S seconds (default 300)\n"
              "  --json        one JSON object instead of key=value pairs\n",
              f);
}

static int parse_args(int argc, char **argv, Options *o)
{
        static const struct option opts[] = {
                { "period", required_argument, NULL, 'p' },
                { "work", required_argument, NULL, 'w' },
                { "duration", required_argument, NULL, 'd' },
                { "wait-signal", no_argument, NULL, 's' },
                { "max-wait", required_argument, NULL, 'm' },
                { "json", no_argument, NULL, 'j' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        uint64_t v;
        int c;

        while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
                switch (c) {
                case 'p':
                        if (parse_u64("--period", optarg, 100, 10000000, &v) < 0)
                                return -1;
                        o->period_ns = v * 1000;
                        break;
                case 'w':
                        if (parse_u64("--work", optarg, 0, 10000000, &v) < 0)
                                return -1;
                        o->work_ns = v * 1000;
                        break;
                case 'd':
                        if (parse_u64("--duration", optarg, 1, 86400, &v) < 0)
                                return -1;
                        o->duration_ns = v * NSEC_PER_SEC;
                        break;
                case 'm':
                        if (parse_u64("--max-wait", optarg, 1, 86400, &v) < 0)
                                return -1;
                        o->max_wait_ns = v * NSEC_PER_SEC;
                        break;
                case 's':
                        o->wait_signal = true;
                        break;
                case 'j':
                        o->json = true;
                        break;
                case 'h':
                        usage(stdout);
                        exit(0);
                default:
                        usage(stderr);
                        return -1;
                }
        }
        if (optind < argc) {
                fprintf(stderr, "frame-loop: unexpected argument \"%s\"\n", argv[optind]);
                return -1;
        }
        return 0;
}

int main(int argc, char **argv)
{
        Options o = { .period_ns = 16667000, .work_ns = 4000000,
                      .duration_ns = 10 * NSEC_PER_SEC, .max_wait_ns = 300 * NSEC_PER_SEC };
        Result r = {};
        struct sigaction sa = { .sa_handler = on_usr1 };

        if (parse_args(argc, argv, &o) < 0)
                return 2;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SIGUSR1, &sa, NULL) < 0) {
                perror("frame-loop: sigaction");
                return 1;
        }
        r.iterations = o.work_ns ? calibrate(o.work_ns) : 0;
        if (run(&o, &r) < 0)
                return 1;
        report(&o, &r);
        free(r.finish_ns);
        return 0;
}
