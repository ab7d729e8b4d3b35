/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wakeup-bench: a schbench-style wake-up latency benchmark for kernel/vm-bench
 * (written here, not schbench's code; schbench is not packaged in Debian 12).
 *
 * M message threads each own T worker threads. A message thread stamps the
 * time, wakes each of its workers through a futex, waits until all of them
 * have done W µs of CPU work, then sleeps S µs and starts over. A worker
 * records how long it took from the stamp to running again: the wake-up
 * latency, which is what a shorter slice (latency nice) should cut when
 * the CPU is busy with someone else. The first second is not recorded.
 *
 *   wakeup-bench [-m M] [-t T] [-w WORK_US] [-s SLEEP_US] [-r SECONDS]
 *
 * Prints one line (latencies in µs, nearest-rank percentiles over all
 * workers):
 *
 *   wakeup samples=N p50=X p90=X p99=X p99.9=X max=X
 *
 * Exit status 0, 1 on failure (with a message on stderr), 2 usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WARMUP_NS 1000000000ULL

struct msg;

struct worker {
        _Atomic uint32_t seq;   /* bumped by the message thread to wake us */
        uint64_t wake_ns;       /* stamp written before the bump */
        struct msg *msg;
        uint64_t *lat;          /* recorded latencies, ns */
        size_t n, cap;
        int err;
        pthread_t tid;
};

struct msg {
        _Atomic uint32_t pending; /* workers still working this round */
        struct worker *workers;
        unsigned n_workers;
        pthread_t tid;
};

static struct {
        unsigned m, t;
        uint64_t work_ns, sleep_ns, run_ns;
} opt = { 2, 2, 1000000, 5000000, 10000000000ULL };

static atomic_bool stop;
static atomic_bool recording;

static uint64_t now_ns(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

static void sleep_ns(uint64_t ns) {
        struct timespec ts = { .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };

        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
                ;
}

static void futex_wait(_Atomic uint32_t *addr, uint32_t val) {
        /* EAGAIN (value changed) and EINTR just mean: look again. */
        syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *addr) {
        syscall(SYS_futex, addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static int record(struct worker *w, uint64_t ns) {
        if (w->n == w->cap) {
                size_t cap = w->cap ? w->cap * 2 : 4096;
                uint64_t *p = realloc(w->lat, cap * sizeof(*p));

                if (!p)
                        return -ENOMEM;
                w->lat = p;
                w->cap = cap;
        }
        w->lat[w->n++] = ns;
        return 0;
}

static void *worker_main(void *arg) {
        struct worker *w = arg;
        uint32_t seen = 0;

        for (;;) {
                uint32_t s;

                while ((s = atomic_load_explicit(&w->seq, memory_order_acquire)) == seen)
                        futex_wait(&w->seq, seen);
                seen = s;

                bool last = atomic_load(&stop);
                uint64_t woke = now_ns();

                if (!last && atomic_load(&recording) && w->err == 0)
                        w->err = record(w, woke - w->wake_ns);
                /* The work is measured in time, so it is the same on any machine. */
                while (!last && now_ns() - woke < opt.work_ns)
                        ;
                /* Also when leaving: the message thread may be waiting for this round. */
                if (atomic_fetch_sub(&w->msg->pending, 1) == 1)
                        futex_wake(&w->msg->pending);
                if (last)
                        break;
        }
        return NULL;
}

static void wake(struct worker *w) {
        w->wake_ns = now_ns();
        atomic_fetch_add_explicit(&w->seq, 1, memory_order_release);
        futex_wake(&w->seq);
}

static void *msg_main(void *arg) {
        struct msg *m = arg;

        while (!atomic_load(&stop)) {
                uint32_t p;

                atomic_store(&m->pending, m->n_workers);
                for (unsigned i = 0; i < m->n_workers; i++)
                        wake(&m->workers[i]);
                while ((p = atomic_load(&m->pending)) != 0)
                        futex_wait(&m->pending, p);
                sleep_ns(opt.sleep_ns);
        }
        /* stop is set: the bump makes each worker see it and leave. */
        for (unsigned i = 0; i < m->n_workers; i++)
                wake(&m->workers[i]);
        return NULL;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

        return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest sample with at least pct % of samples <= it. */
static double pct_us(const uint64_t *v, size_t n, double pct) {
        size_t rank = (size_t) ((pct / 100.0) * (double) n + 0.999999);

        if (rank < 1)
                rank = 1;
        if (rank > n)
                rank = n;
        return (double) v[rank - 1] / 1000.0;
}

static int report(struct msg *msgs) {
        size_t n = 0, k = 0;
        uint64_t *all;

        for (unsigned i = 0; i < opt.m; i++)
                for (unsigned j = 0; j < opt.t; j++) {
                        if (msgs[i].workers[j].err) {
                                fprintf(stderr, "wakeup-bench: recording: %s\n",
                                        strerror(-msgs[i].workers[j].err));
                                return -1;
                        }
                        n += msgs[i].workers[j].n;
                }
        if (n == 0) {
                fprintf(stderr, "wakeup-bench: no wake-up recorded in %llu s\n",
                        (unsigned long long) (opt.run_ns / 1000000000ULL));
                return -1;
        }
        all = malloc(n * sizeof(*all));
        if (!all) {
                fprintf(stderr, "wakeup-bench: out of memory for %zu samples\n", n);
                return -1;
        }
        for (unsigned i = 0; i < opt.m; i++)
                for (unsigned j = 0; j < opt.t; j++) {
                        struct worker *w = &msgs[i].workers[j];

                        memcpy(all + k, w->lat, w->n * sizeof(*all));
                        k += w->n;
                }
        qsort(all, n, sizeof(*all), cmp_u64);
        printf("wakeup samples=%zu p50=%.1f p90=%.1f p99=%.1f p99.9=%.1f max=%.1f\n", n,
               pct_us(all, n, 50), pct_us(all, n, 90), pct_us(all, n, 99), pct_us(all, n, 99.9),
               (double) all[n - 1] / 1000.0);
        free(all);
        return 0;
}

static int parse_uint(const char *name, const char *s, unsigned long long max,
                      unsigned long long *ret) {
        char *end;
        unsigned long long v;

        errno = 0;
        v = strtoull(s, &end, 10);
        if (errno || end == s || *end || s[0] == '-' || v == 0 || v > max) {
                fprintf(stderr, "wakeup-bench: %s: '%s' is not a number in 1..%llu\n", name, s,
                        max);
                return -EINVAL;
        }
        *ret = v;
        return 0;
}

static int parse_args(int argc, char **argv) {
        unsigned long long v;
        int c;

        while ((c = getopt(argc, argv, "m:t:w:s:r:")) != -1) {
                const char *name = c == 'm' ? "-m" : c == 't' ? "-t" : c == 'w' ? "-w" :
                                   c == 's' ? "-s" : "-r";

                if (c == '?' || parse_uint(name, optarg, c == 'r' ? 3600 : c == 'm' || c == 't' ?
                                           256 : 10000000, &v) < 0)
                        return -EINVAL;
                switch (c) {
                case 'm': opt.m = (unsigned) v; break;
                case 't': opt.t = (unsigned) v; break;
                case 'w': opt.work_ns = v * 1000; break;
                case 's': opt.sleep_ns = v * 1000; break;
                case 'r': opt.run_ns = v * 1000000000ULL; break;
                }
        }
        if (optind != argc) {
                fprintf(stderr, "wakeup-bench: unexpected argument '%s'\n", argv[optind]);
                return -EINVAL;
        }
        if (opt.run_ns <= WARMUP_NS) {
                fprintf(stderr, "wakeup-bench: -r must be more than the 1 s warm-up\n");
                return -EINVAL;
        }
        return 0;
}

int main(int argc, char **argv) {
        struct msg *msgs;
        int r;

        if (parse_args(argc, argv) < 0) {
                fprintf(stderr, "usage: wakeup-bench [-m M] [-t T] [-w WORK_US] [-s SLEEP_US] "
                                "[-r SECONDS]\n");
                return 2;
        }
        msgs = calloc(opt.m, sizeof(*msgs));
        if (!msgs)
                return 1;
        for (unsigned i = 0; i < opt.m; i++) {
                msgs[i].n_workers = opt.t;
                msgs[i].workers = calloc(opt.t, sizeof(struct worker));
                if (!msgs[i].workers)
                        return 1;
                for (unsigned j = 0; j < opt.t; j++) {
                        msgs[i].workers[j].msg = &msgs[i];
                        r = pthread_create(&msgs[i].workers[j].tid, NULL, worker_main,
                                           &msgs[i].workers[j]);
                        if (r) {
                                fprintf(stderr, "wakeup-bench: worker thread: %s\n", strerror(r));
                                return 1;
                        }
                }
                r = pthread_create(&msgs[i].tid, NULL, msg_main, &msgs[i]);
                if (r) {
                        fprintf(stderr, "wakeup-bench: message thread: %s\n", strerror(r));
                        return 1;
                }
        }
        sleep_ns(WARMUP_NS);
        atomic_store(&recording, true);
        sleep_ns(opt.run_ns - WARMUP_NS);
        atomic_store(&stop, true);
        for (unsigned i = 0; i < opt.m; i++) {
                pthread_join(msgs[i].tid, NULL);
                for (unsigned j = 0; j < opt.t; j++)
                        pthread_join(msgs[i].workers[j].tid, NULL);
        }
        return report(msgs) < 0 ? 1 : 0;
}
