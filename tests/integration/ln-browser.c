/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-browser: a stand-in for a browser's child process, for the default
 * policy's integration test (not installed). Takes any command line (the
 * real browser's: "-contentproc ... tab", "--type=renderer ..."), so a copy
 * named like the browser (firefox-esr, chromium) has the exe, argv and
 * cmdline the shipped rules look at, and then names itself the way the real
 * one does:
 *
 *   LN_COMM=NAME          prctl(PR_SET_NAME) on the main thread (unset or
 *                         empty: the comm stays the executable's), as Firefox
 *                         names its content processes ("Isolated Web Co")
 *   LN_THREADS=A,B,...    one thread per name, each named with
 *                         pthread_setname_np() cut to the kernel's 15 bytes,
 *                         as Rust's std and Chromium's PlatformThread do
 *                         ("AudioIPC Client Callback" is "AudioIPC Client")
 *
 *   ln-browser ARGS...
 *
 * When everything is named it prints "pid=PID tids=MAIN,T1,T2,..." (the
 * threads in the order of LN_THREADS) and sleeps until killed. Needs no
 * privilege. Exit status 1 on failure.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_THREADS 16

static pthread_barrier_t barrier;
static pid_t tids[MAX_THREADS + 1];

static void die(const char *what, int err)
{
        fprintf(stderr, "ln-browser: %s: %s\n", what, strerror(err));
        exit(1);
}

static void *worker(void *arg)
{
        tids[(size_t) arg] = (pid_t) syscall(SYS_gettid);
        pthread_barrier_wait(&barrier);
        for (;;)
                pause();
        return NULL;
}

/* Name thread T as the real programs do: the first 15 bytes. */
static void name_thread(pthread_t t, const char *name, size_t len)
{
        char buf[16];
        int r;

        if (len > 15)
                len = 15;
        memcpy(buf, name, len);
        buf[len] = '\0';
        r = pthread_setname_np(t, buf);
        if (r != 0)
                die("pthread_setname_np", r);
}

int main(void)
{
        const char *comm = getenv("LN_COMM"), *list = getenv("LN_THREADS");
        size_t n = 0;
        int r;

        if (comm && *comm && prctl(PR_SET_NAME, comm, 0, 0, 0) < 0)
                die("prctl(PR_SET_NAME)", errno);
        tids[0] = (pid_t) syscall(SYS_gettid);

        /* Count the names first: the barrier waits for every thread. */
        if (list && *list) {
                n = 1;
                for (const char *c = list; *c; c++)
                        n += *c == ',';
        }
        if (n > MAX_THREADS)
                die("LN_THREADS", E2BIG);
        pthread_barrier_init(&barrier, NULL, (unsigned) n + 1);

        const char *p = list;
        for (size_t i = 1; i <= n; i++) {
                const char *end = strchrnul(p, ',');
                pthread_t t;

                r = pthread_create(&t, NULL, worker, (void *) i);
                if (r != 0)
                        die("pthread_create", r);
                name_thread(t, p, (size_t) (end - p));
                p = *end ? end + 1 : end;
        }
        pthread_barrier_wait(&barrier);

        printf("pid=%d tids=%d", (int) getpid(), (int) tids[0]);
        for (size_t i = 1; i <= n; i++)
                printf(",%d", (int) tids[i]);
        printf("\n");
        fflush(stdout);
        for (;;)
                pause();
}
