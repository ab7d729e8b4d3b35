/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-threadstorm: a thread storm, for the hostile-load integration test (not
 * installed). Creates COUNT threads as fast as it can; each names itself
 * NAME with prctl(PR_SET_NAME) (a fork event and a rename event per thread),
 * renames itself RENAMES times more ("ln-ts-0" ... "ln-ts-9", then NAME
 * again) and then sleeps.
 *
 *   ln-threadstorm COUNT NAME [RENAMES]
 *
 * Prints "pid=PID" when it starts and "done COUNT MS" (elapsed milliseconds)
 * once every thread has its final name; then sleeps until killed. Needs no
 * privilege: run it as nobody to play the unprivileged attacker. Exit
 * status 1 on failure, 2 on usage errors.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static const char *name;
static long renames;
static atomic_long named;

static long long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void *thread_main(void *arg)
{
        char n[16];

        (void)arg;
        if (prctl(PR_SET_NAME, name) < 0)
                _exit(1);
        for (long i = 0; i < renames; i++) {
                snprintf(n, sizeof(n), "ln-ts-%ld", i % 10);
                if (prctl(PR_SET_NAME, n) < 0 || prctl(PR_SET_NAME, name) < 0)
                        _exit(1);
        }
        atomic_fetch_add(&named, 1);
        for (;;)
                pause();
        return NULL;
}

int main(int argc, char *argv[])
{
        pthread_attr_t attr;
        long count;
        long long t0;
        char *e = NULL;

        if (argc < 3 || argc > 4 || (count = strtol(argv[1], &e, 10)) <= 0 || *e ||
            strlen(argv[2]) == 0 || strlen(argv[2]) > 15 ||
            (argc == 4 && (renames = strtol(argv[3], NULL, 10)) < 0)) {
                fprintf(stderr, "usage: ln-threadstorm COUNT NAME [RENAMES]\n");
                return 2;
        }
        name = argv[2];
        printf("pid=%d\n", (int)getpid());
        fflush(stdout);

        t0 = now_ms();
        if (pthread_attr_init(&attr) != 0 ||
            pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN > 65536 ? PTHREAD_STACK_MIN
                                                                        : 65536) != 0)
                return 1;
        for (long i = 0; i < count; i++) {
                pthread_t t;

                if (pthread_create(&t, &attr, thread_main, NULL) != 0) {
                        fprintf(stderr, "ln-threadstorm: thread %ld: cannot create\n", i);
                        return 1;
                }
        }
        while (atomic_load(&named) < count)
                usleep(1000);
        printf("done %ld %lld\n", count, now_ms() - t0);
        fflush(stdout);
        for (;;)
                pause();
}
