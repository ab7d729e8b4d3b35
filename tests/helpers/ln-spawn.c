/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-spawn: a test process with chosen names and threads, for the shell
 * integration tests (not installed).
 *
 *   ln-spawn [--argv0 NAME] [--comm NAME] [--threads N] [--thread-name NAME]...
 *            [--ready-fd FD] [--sleep SECONDS] [--rename-thread-after SECONDS NAME]
 *            [--exec PATH ARGS...]
 *
 *   --argv0 NAME   first re-exec itself (same pid, real path of the binary so
 *                  the comm stays "ln-spawn") with argv[0] = NAME; NAME may be
 *                  longer than 15 chars or contain '/'; /proc/PID/cmdline is
 *                  then 'NAME <the other options>'
 *   --comm NAME    prctl(PR_SET_NAME) on the main thread (kernel keeps 15 bytes)
 *   --threads N    start N extra threads (0..64); the i-th --thread-name names
 *                  the i-th thread (pthread_setname_np, truncated to 15 bytes)
 *   --ready-fd FD  when everything is set up write "ready\n" to FD and close it
 *   --sleep SEC    exit 0 after SEC seconds (fractions allowed); default: run
 *                  until killed (SIGTERM/SIGKILL)
 *   --rename-thread-after SEC NAME
 *                  SEC seconds after ready, rename the first extra thread (the
 *                  main thread when there is none) to NAME, then print
 *                  "renamed tid=TID\n" on stdout
 *   --exec PATH ARGS...
 *                  after ready (and after --sleep SEC, default 0), execv(PATH)
 *                  with argv PATH ARGS...; everything after PATH belongs to it
 *
 * When set up it always prints one line on stdout and flushes it:
 *   pid=PID tids=TID,TID,...   (the main thread first, then the extra threads in order)
 * Exit status: 0, 2 on usage errors, 1 on other failures.
 *
 * Example (shell):
 *   ln-spawn --argv0 a-very-long-process-name-xyz --threads 2 \
 *            --thread-name data-loop --thread-name io >out & ...
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

static pthread_barrier_t barrier;
static pid_t tids[MAX_THREADS + 1];

typedef struct Worker {
        int index;
        const char *name;
} Worker;

static void usage_error(const char *msg, const char *arg)
{
        fprintf(stderr, "ln-spawn: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
        exit(2);
}

static void fail(const char *what)
{
        fprintf(stderr, "ln-spawn: %s: %s\n", what, strerror(errno));
        exit(1);
}

static double parse_seconds(const char *s)
{
        char *end;
        double v;

        errno = 0;
        v = strtod(s, &end);
        if (errno || end == s || *end || v < 0)
                usage_error("invalid number of seconds", s);
        return v;
}

static void sleep_seconds(double s)
{
        struct timespec ts = { .tv_sec = (time_t) s,
                               .tv_nsec = (long) ((s - (double) (time_t) s) * 1e9) };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void set_name(pthread_t t, const char *name)
{
        char buf[16];

        snprintf(buf, sizeof(buf), "%s", name);
        errno = pthread_setname_np(t, buf);
        if (errno)
                fail("pthread_setname_np");
}

static void *worker_main(void *p)
{
        Worker *w = p;

        if (w->name)
                set_name(pthread_self(), w->name);
        tids[w->index] = (pid_t) syscall(SYS_gettid);
        pthread_barrier_wait(&barrier);
        for (;;)
                pause();
        return NULL;
}

/* Re-exec with argv[0] = NAME and ARGV minus "--argv0 NAME". */
static void reexec(int argc, char **argv, int argv0_index)
{
        char **nargv = calloc((size_t) argc + 1, sizeof(char *));
        char *self = NULL;
        size_t size = 256;
        int n = 0;

        if (!nargv)
                fail("calloc");
        for (;;) {
                ssize_t l;

                self = realloc(self, size);
                if (!self)
                        fail("realloc");
                l = readlink("/proc/self/exe", self, size);
                if (l < 0)
                        fail("readlink /proc/self/exe");
                if ((size_t) l < size) {
                        self[l] = 0;
                        break;
                }
                size *= 2;
        }
        nargv[n++] = argv[argv0_index + 1];
        for (int i = 1; i < argc; i++) {
                if (i == argv0_index) {
                        i++;
                        continue;
                }
                nargv[n++] = argv[i];
        }
        nargv[n] = NULL;
        execv(self, nargv);
        fail("execv");
}

int main(int argc, char **argv)
{
        const char *comm = NULL, *rename_name = NULL, *names[MAX_THREADS] = {};
        double sleep_s = -1, rename_after = -1;
        int nthreads = 0, nnames = 0, ready_fd = -1, exec_index = -1;
        pthread_t threads[MAX_THREADS];
        Worker workers[MAX_THREADS];

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                bool has_arg = i + 1 < argc;

                if (strcmp(a, "--argv0") == 0) {
                        if (!has_arg)
                                usage_error("missing argument to", a);
                        reexec(argc, argv, i);
                } else if (strcmp(a, "--comm") == 0 && has_arg)
                        comm = argv[++i];
                else if (strcmp(a, "--threads") == 0 && has_arg) {
                        char *end;
                        long v = strtol(argv[++i], &end, 10);
                        if (*end || end == argv[i] || v < 0 || v > MAX_THREADS)
                                usage_error("invalid thread count", argv[i]);
                        nthreads = (int) v;
                } else if (strcmp(a, "--thread-name") == 0 && has_arg) {
                        if (nnames == MAX_THREADS)
                                usage_error("too many --thread-name", NULL);
                        names[nnames++] = argv[++i];
                } else if (strcmp(a, "--ready-fd") == 0 && has_arg) {
                        char *end;
                        long v = strtol(argv[++i], &end, 10);
                        if (*end || end == argv[i] || v < 0 || v > 1 << 20)
                                usage_error("invalid fd", argv[i]);
                        ready_fd = (int) v;
                } else if (strcmp(a, "--sleep") == 0 && has_arg)
                        sleep_s = parse_seconds(argv[++i]);
                else if (strcmp(a, "--rename-thread-after") == 0 && i + 2 < argc) {
                        rename_after = parse_seconds(argv[++i]);
                        rename_name = argv[++i];
                } else if (strcmp(a, "--exec") == 0 && has_arg) {
                        exec_index = i + 1;
                        break;
                } else
                        usage_error("unknown or incomplete option", a);
        }
        if (nnames > nthreads)
                usage_error("more --thread-name than --threads", NULL);

        if (comm && prctl(PR_SET_NAME, comm, 0, 0, 0) < 0)
                fail("prctl(PR_SET_NAME)");

        tids[0] = (pid_t) syscall(SYS_gettid);
        if (pthread_barrier_init(&barrier, NULL, (unsigned) nthreads + 1) != 0)
                fail("pthread_barrier_init");
        for (int i = 0; i < nthreads; i++) {
                workers[i] = (Worker) { .index = i + 1, .name = i < nnames ? names[i] : NULL };
                errno = pthread_create(&threads[i], NULL, worker_main, &workers[i]);
                if (errno)
                        fail("pthread_create");
        }
        pthread_barrier_wait(&barrier);

        printf("pid=%d tids=", (int) getpid());
        for (int i = 0; i <= nthreads; i++)
                printf("%s%d", i ? "," : "", (int) tids[i]);
        printf("\n");
        fflush(stdout);

        if (ready_fd >= 0) {
                if (write(ready_fd, "ready\n", 6) != 6)
                        fail("write to ready fd");
                close(ready_fd);
        }

        if (rename_after >= 0) {
                sleep_seconds(rename_after);
                set_name(nthreads > 0 ? threads[0] : pthread_self(), rename_name);
                printf("renamed tid=%d\n", (int) tids[nthreads > 0 ? 1 : 0]);
                fflush(stdout);
        }

        if (exec_index >= 0) {
                if (sleep_s > 0)
                        sleep_seconds(sleep_s);
                execv(argv[exec_index], argv + exec_index);
                fail(argv[exec_index]);
        }
        if (sleep_s >= 0) {
                sleep_seconds(sleep_s);
                return 0;
        }
        for (;;)
                pause();
}
