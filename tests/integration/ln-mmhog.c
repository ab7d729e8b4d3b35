/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ln-mmhog: a process that keeps its own mmap_lock busy, for the hostile-load
 * integration test (not installed). It maps and touches MIB MiB of memory in
 * small pages, and THREADS threads call mprotect() over all of it in a loop
 * (each call holds the mmap_lock for writing while it walks the pages), so
 * that anyone reading its /proc/PID/cmdline waits; meanwhile the main thread
 * renames itself ("ln-hog-0" ... "ln-hog-9") every millisecond, so that
 * latniced looks at it again and again. After SECONDS, or at SIGUSR1 if that
 * comes first (so that a test ends the load when it has seen enough, not
 * after a wall-clock window), it stops the threads, takes the name FINAL and
 * stays.
 *
 *   ln-mmhog MIB THREADS SECONDS FINAL
 *
 * Prints "pid=PID" once the memory is touched and the threads run, and
 * "final" once the name is FINAL; then sleeps until killed (also when its
 * parent dies). Needs no privilege: run it as nobody. Exit status 1 on
 * failure, 2 on usage errors.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64

static char *mem;
static size_t mem_size;
static atomic_bool stop;
static volatile sig_atomic_t enough;

static void on_usr1(int sig)
{
        (void) sig;
        enough = 1;
}

static void *hog(void *arg)
{
        (void) arg;
        while (!atomic_load(&stop)) {
                (void) mprotect(mem, mem_size, PROT_READ);
                (void) mprotect(mem, mem_size, PROT_READ | PROT_WRITE);
        }
        return NULL;
}

static double now_s(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int main(int argc, char *argv[])
{
        pthread_t threads[MAX_THREADS];
        long mib, n;
        double seconds, end;

        if (argc != 5 || (mib = strtol(argv[1], NULL, 10)) <= 0 || mib > 65536 ||
            (n = strtol(argv[2], NULL, 10)) <= 0 || n > MAX_THREADS ||
            (seconds = strtod(argv[3], NULL)) <= 0 || strlen(argv[4]) > 15) {
                fprintf(stderr, "usage: ln-mmhog MIB THREADS SECONDS FINAL\n");
                return 2;
        }
        (void) prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (signal(SIGUSR1, on_usr1) == SIG_ERR)
                return 1;
        mem_size = (size_t) mib << 20;
        mem = mmap(NULL, mem_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED)
                return 1;
        (void) madvise(mem, mem_size, MADV_NOHUGEPAGE); /* one entry per 4 KiB to walk */
        memset(mem, 1, mem_size);
        for (long i = 0; i < n; i++)
                if (pthread_create(&threads[i], NULL, hog, NULL) != 0)
                        return 1;
        printf("pid=%d\n", (int) getpid());
        fflush(stdout);

        end = now_s() + seconds;
        for (unsigned i = 0; !enough && now_s() < end; i++) {
                char name[16];

                snprintf(name, sizeof(name), "ln-hog-%u", i % 10);
                (void) prctl(PR_SET_NAME, name);
                usleep(1000);
        }
        atomic_store(&stop, true);
        for (long i = 0; i < n; i++)
                pthread_join(threads[i], NULL);
        (void) prctl(PR_SET_NAME, argv[4]);
        printf("final\n");
        fflush(stdout);
        for (;;)
                pause();
}
