/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for lib/bounded-read.c on real blocking reads: a FIFO nobody
 * writes to keeps a worker in open() the way a process's busy mmap_lock
 * keeps it in read(). Reads come back whole or cut at the bound; a stuck
 * one is abandoned at the timeout, its key is held off (doubling), other
 * keys go on while workers are free, and a released worker serves again. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/bounded-read.h"
#include "lib/time-util.h"
#include "test-util.h"

/* Under the penalty. A worker reading a plain file on a busy machine may be
 * starved of a CPU for longer (20 ms was too short beside a kernel build,
 * 300 ms under ASan beside stress-ng --cpu 8): the reader of test_reads()
 * and test_stuck() has WAIT_BUDGET on top, refilled within a second. */
#define TIMEOUT_USEC (300u * 1000u)
static const BoundedReadBudget WAIT_BUDGET = {
        .max_usec = 2000u * 1000u,
        .burst_usec = 2000u * 1000u,
        .per_second_usec = 2000u * 1000u,
};
#define READ_MAX 16u

static char dir[] = "/tmp/test-bounded-read.XXXXXX";

static void path_of(char *buf, const char *name)
{
        snprintf(buf, 256, "%s/%s", dir, name);
}

static void make_file(const char *name, const char *content)
{
        char p[256];
        FILE *f;

        path_of(p, name);
        f = fopen(p, "we");
        CHECK(f);
        fputs(content, f);
        CHECK(fclose(f) == 0);
}

static void make_fifo(const char *name)
{
        char p[256];

        path_of(p, name);
        CHECK(mkfifo(p, 0600) == 0);
}

/* Call FN(TID, USERDATA) for every thread of this process but the caller,
 * until one call returns true. True if one did. */
static bool other_threads_any(bool (*fn)(pid_t tid, void *userdata), void *userdata)
{
        struct dirent *de;
        DIR *d = opendir("/proc/self/task");
        bool found = false;

        CHECK(d);
        while (!found && (de = readdir(d))) {
                pid_t tid = (pid_t) atoi(de->d_name);

                if (tid > 0 && tid != gettid())
                        found = fn(tid, userdata);
        }
        closedir(d);
        return found;
}

/* Is thread TID in read() (/proc/self/task/TID/syscall names the call a
 * blocked thread is in)? */
static bool thread_in_read(pid_t tid, void *userdata)
{
        char p[64], buf[64] = "";
        ssize_t n;
        int fd;

        snprintf(p, sizeof(p), "/proc/self/task/%d/syscall", tid);
        fd = open(p, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        return n > 0 && strtol(buf, NULL, 10) == SYS_read && buf[0] != 'r';
}

/* True when a thread of this process other than the caller is in read(). */
static bool other_thread_in_read(void)
{
        return other_threads_any(thread_in_read, NULL);
}

/* Let the worker blocked in open() on FIFO NAME go: open it for writing
 * (meets the worker's open), and DELAY usec after the worker is blocked in
 * read() write a byte, close. Waits up to 60 s for the
 * worker to get there (a busy machine), and fails rather than hangs when
 * no read of NAME was started. */
static void release_fifo_after(const char *name, uint64_t delay)
{
        char p[256];

        path_of(p, name);
        for (int i = 0; i < 6000; i++) {
                int fd = open(p, O_WRONLY | O_NONBLOCK | O_CLOEXEC);

                if (fd >= 0) {
                        /* Its open() is done: the delay counts from when
                         * it is blocked in read(), not waiting for a CPU. */
                        for (int j = 0; delay > 0 && j < 60000 && !other_thread_in_read(); j++)
                                usleep(1000);
                        if (delay > 0)
                                usleep(delay);
                        CHECK(write(fd, "x", 1) == 1);
                        close(fd);
                        return;
                }
                CHECK(errno == ENXIO); /* no reader yet */
                usleep(10 * 1000);
        }
        test_fail("nothing read FIFO %s in 60 s", name);
}

static void release_fifo(const char *name)
{
        release_fifo_after(name, 0);
}

static int read_key(BoundedReader *b, uint32_t key, const char *name, char **ret,
                    size_t *ret_size, bool *ret_truncated)
{
        char p[256];

        path_of(p, name);
        return bounded_reader_read(b, key, p, ret, ret_size, ret_truncated);
}

static void test_reads(BoundedReader *b)
{
        char *s = NULL;
        size_t n = 0;
        bool cut = true;

        make_file("short", "hello");
        check(read_key(b, 0, "short", &s, &n, &cut) == 0);
        check_streq(s, "hello");
        check(n == 5 && !cut);
        free(s);

        make_file("long", "0123456789abcdefXYZ");
        check(read_key(b, 0, "long", &s, &n, &cut) == 0);
        check_streq(s, "0123456789abcdef");
        check(n == READ_MAX && cut);
        free(s);

        make_file("exact", "0123456789abcdef");
        check(read_key(b, 0, "exact", &s, &n, &cut) == 0);
        check(n == READ_MAX && !cut);
        free(s);

        s = NULL;
        check(read_key(b, 0, "missing", &s, &n, NULL) == -ENOENT && !s);
        {
                char long_path[BOUNDED_READ_PATH_MAX + 10];

                memset(long_path, 'a', sizeof(long_path) - 1);
                long_path[0] = '/';
                long_path[sizeof(long_path) - 1] = 0;
                check(bounded_reader_read(b, 0, long_path, &s, NULL, NULL) == -ENAMETOOLONG && !s);
        }
        check(bounded_reader_take_retry_at(b) == 0);
}

/* Wait (up to 2 s) until KEY's read of "short" gets a worker again. */
static bool read_when_free(BoundedReader *b, uint32_t key)
{
        for (int i = 0; i < 200; i++) {
                char *s = NULL;
                int r = read_key(b, key, "short", &s, NULL, NULL);

                free(s);
                if (r == 0)
                        return true;
                usleep(10 * 1000);
        }
        return false;
}

static void test_stuck(BoundedReader *b)
{
        uint64_t t0, t, at;
        char *s = NULL;

        make_fifo("a");
        make_fifo("b");
        make_fifo("c");
        make_fifo("d");
        make_fifo("e");

        /* A stuck read is abandoned after the timeout, not before. */
        t0 = now_usec(CLOCK_MONOTONIC);
        check(read_key(b, 1, "a", &s, NULL, NULL) == -ETIMEDOUT && !s);
        t = now_usec(CLOCK_MONOTONIC);
        check(t - t0 >= TIMEOUT_USEC);
        at = bounded_reader_take_retry_at(b);
        check(at >= t0 + BOUNDED_READ_PENALTY_MIN_USEC && at <= t + BOUNDED_READ_PENALTY_MIN_USEC);
        check(bounded_reader_take_retry_at(b) == 0);

        /* Its key is held off (-EBUSY: refused without waiting; how fast is
         * not asserted, a busy machine may take its time); another key is
         * read. */
        check(read_key(b, 1, "short", &s, NULL, NULL) == -EBUSY && !s);
        check(read_key(b, 2, "short", &s, NULL, NULL) == 0);
        free(s);
        s = NULL;

        /* Every worker stuck: everybody is refused, at once. */
        check(read_key(b, 2, "b", &s, NULL, NULL) == -ETIMEDOUT);
        check(read_key(b, 3, "c", &s, NULL, NULL) == -ETIMEDOUT);
        check(read_key(b, 4, "d", &s, NULL, NULL) == -ETIMEDOUT);
        check(read_key(b, 9, "short", &s, NULL, NULL) == -EBUSY && !s);
        check(bounded_reader_n_timeouts(b) == 4);
        check(bounded_reader_n_refused(b) == 2);

        /* Key 1's penalty is over, but its first read still holds a worker. */
        usleep(BOUNDED_READ_PENALTY_MIN_USEC + 50 * 1000);
        check(read_key(b, 1, "short", &s, NULL, NULL) == -EBUSY);

        /* Released, that worker serves again (another key first: key 1 must
         * not depend on its own worker). */
        release_fifo("a");
        check(read_when_free(b, 9));
        check(read_key(b, 1, "short", &s, NULL, NULL) == 0);
        free(s);
        s = NULL;

        /* A second timeout of the same key: twice the penalty. */
        (void) bounded_reader_take_retry_at(b); /* the refusals above */
        t0 = now_usec(CLOCK_MONOTONIC);
        check(read_key(b, 1, "e", &s, NULL, NULL) == -ETIMEDOUT);
        t = now_usec(CLOCK_MONOTONIC);
        at = bounded_reader_take_retry_at(b);
        check(at >= t0 + 2 * BOUNDED_READ_PENALTY_MIN_USEC &&
              at <= t + 2 * BOUNDED_READ_PENALTY_MIN_USEC);

        release_fifo("b");
        release_fifo("c");
        release_fifo("d");
        release_fifo("e");
        check(read_when_free(b, 9));
}

/* ---- the wait budget ---------------------------------------------- */

#define LATE_TIMEOUT_USEC (20u * 1000u)
#define LATE_AFTER_USEC (200u * 1000u)
#define SEC ((uint64_t) 1000 * 1000)

struct Releaser {
        pthread_t thread;
        const char *name;
};

static void *releaser_main(void *userdata)
{
        struct Releaser *rl = userdata;

        /* From when the worker is blocked: from before, a busy machine's
         * late start of the read would come off the delay. */
        release_fifo_after(rl->name, LATE_AFTER_USEC);
        return NULL;
}

/* Read FIFO NAME for KEY while a thread lets it go LATE_AFTER_USEC after
 * the worker got to it; the read's result, and in *RET_USEC how long it
 * took. */
static int read_late(BoundedReader *b, uint32_t key, const char *name, uint64_t *ret_usec)
{
        struct Releaser rl = { .name = name };
        uint64_t t0 = now_usec(CLOCK_MONOTONIC);
        char *s = NULL;
        int r;

        make_fifo(name);
        CHECK(pthread_create(&rl.thread, NULL, releaser_main, &rl) == 0);
        r = read_key(b, key, name, &s, NULL, NULL);
        *ret_usec = now_usec(CLOCK_MONOTONIC) - t0;
        if (r == 0)
                check_streq(s, "x");
        free(s);
        CHECK(pthread_join(rl.thread, NULL) == 0);
        return r;
}

/* A read past the timeout is done on its key's budget, and what it waited
 * past the timeout comes off that budget (no more than it took, no less
 * than the releaser's delay); without a budget it was cut short. */
static void test_budget_late(BoundedReader *b)
{
        uint64_t took, left;

        bounded_reader_set_budget(b, &(BoundedReadBudget){ .max_usec = 10 * SEC,
                                                           .burst_usec = 10 * SEC });
        check(bounded_reader_wait_left(b, 300) == 10 * SEC);
        check(read_late(b, 300, "late1", &took) == 0);
        left = bounded_reader_wait_left(b, 300);
        printf("# budget: a read let go after %u ms took %" PRIu64 " ms, %" PRIu64
               " ms of budget left\n", LATE_AFTER_USEC / 1000, took / 1000, left / 1000);
        check(left <= 10 * SEC - (LATE_AFTER_USEC - LATE_TIMEOUT_USEC));
        check(left >= 10 * SEC - (took - LATE_TIMEOUT_USEC));
        check(bounded_reader_n_late(b) == 1 && bounded_reader_n_timeouts(b) == 0);
        check(bounded_reader_wait_left(b, 301) == 10 * SEC); /* another key's is its own */
}

/* A stuck read is cut once its key's budget is spent (a max per read
 * caps it), the key is held off as before, and its budget fills up again
 * at its rate. */
static void test_budget_spent(BoundedReader *b)
{
        uint64_t t0, took;
        char *s = NULL;

        bounded_reader_set_budget(b, &(BoundedReadBudget){ .max_usec = 10 * SEC,
                                                           .burst_usec = 300 * 1000 });
        make_fifo("stuck1");
        t0 = now_usec(CLOCK_MONOTONIC);
        check(read_key(b, 302, "stuck1", &s, NULL, NULL) == -ETIMEDOUT && !s);
        took = now_usec(CLOCK_MONOTONIC) - t0;
        check(took >= LATE_TIMEOUT_USEC + 300 * 1000);
        check(bounded_reader_wait_left(b, 302) == 0);
        check(bounded_reader_n_timeouts(b) == 1);
        check(read_key(b, 302, "short", &s, NULL, NULL) == -EBUSY); /* held off */
        release_fifo("stuck1");

        /* Spent: after the penalty, a late read is cut at the timeout. */
        usleep(BOUNDED_READ_PENALTY_MIN_USEC + 50 * 1000);
        check(read_when_free(b, 302));
        check(read_late(b, 302, "late2", &took) == -ETIMEDOUT);
        check(bounded_reader_n_timeouts(b) == 2);
        check(bounded_reader_wait_left(b, 302) == 0);

        /* It fills up at its rate, up to the burst. */
        bounded_reader_set_budget(b, &(BoundedReadBudget){ .max_usec = 10 * SEC,
                                                           .burst_usec = 300 * 1000,
                                                           .per_second_usec = 100 * 1000 });
        (void) bounded_reader_wait_left(b, 302); /* from now on */
        usleep(500 * 1000);
        check(bounded_reader_wait_left(b, 302) >= 50 * 1000);
        usleep(3 * 1000 * 1000);
        check(bounded_reader_wait_left(b, 302) == 300 * 1000);
}

static void test_budget(void)
{
        BoundedReader *b = NULL;

        CHECK(bounded_reader_new(READ_MAX, LATE_TIMEOUT_USEC, &b) == 0);
        check(bounded_reader_wait_left(b, 300) == 0); /* no budget by default */
        make_file("short", "hello");
        test_budget_late(b);
        test_budget_spent(b);
        bounded_reader_free(b);
}

/* Thread TID to nice 10 on the CPUs of USERDATA (a cpu_set_t). */
static bool thread_to_cpus(pid_t tid, void *userdata)
{
        const cpu_set_t *cpus = userdata;

        CHECK(sched_setaffinity(tid, sizeof(*cpus), cpus) == 0);
        CHECK(setpriority(PRIO_PROCESS, (id_t) tid, 10) == 0);
        return false; /* on to the next */
}

/* Every thread of this process but the main one, the caller (the workers
 * started so far), to nice 10 on CPU 0. */
static void workers_to_cpu0(void)
{
        cpu_set_t cpu0;

        CPU_ZERO(&cpu0);
        CPU_SET(0, &cpu0);
        CHECK(gettid() == getpid());
        (void) other_threads_any(thread_to_cpus, &cpu0);
}

/* A worker only starved of a CPU, no lock held against it, as on a busy
 * machine: a worker at nice 10 beside a CPU hog at nice 0 on its CPU
 * mostly waits several of the hog's slices (EEVDF: its virtual slice is 9.3
 * times as long), longer than a 1 ms timeout; a worker that slept with
 * positive lag may still get the CPU at once, so reads go on (each one
 * checked) until one was late, at most 200. (At nice 19, with the machine's
 * load on the same CPU, it waited past the 2 s a starved read is given.) Its reads are done all the same,
 * and cost its key nothing: only time the worker is blocked (not running,
 * not waiting for a CPU) counts against the timeout and the budget (with
 * BUDGET, or none). Before, a starved read was cut short without a budget,
 * and with one, what it waited came off it. */
static void test_starved(bool budget)
{
        BoundedReader *b = NULL;
        cpu_set_t cpu0, cpu1;
        char *s = NULL, c;
        int go[2], r;
        pid_t hog;

        if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
                printf("# starved: skipped, needs 2 CPUs\n");
                return;
        }
        CPU_ZERO(&cpu0);
        CPU_SET(0, &cpu0);
        CPU_ZERO(&cpu1);
        CPU_SET(1, &cpu1);
        if (sched_setaffinity(0, sizeof(cpu1), &cpu1) < 0) {
                printf("# starved: skipped, CPU 1 not allowed (%m)\n");
                return;
        }
        CHECK(bounded_reader_new(READ_MAX, 1000, &b) == 0);
        if (budget)
                bounded_reader_set_budget(b, &(BoundedReadBudget){ .max_usec = 10 * SEC,
                                                                   .burst_usec = 60 * SEC });
        /* The first read starts worker 0 (on CPU 1, not yet starved). */
        while (read_key(b, 200, "short", &s, NULL, NULL) != 0)
                ;
        s = mfree(s);
        workers_to_cpu0();
        CHECK(pipe(go) == 0);
        hog = fork();
        CHECK(hog >= 0);
        if (hog == 0) {
                (void) sched_setaffinity(0, sizeof(cpu0), &cpu0);
                (void) !write(go[1], "x", 1); /* runs on CPU 0 now */
                for (;;)
                        ;
        }
        CHECK(read(go[0], &c, 1) == 1);
        close(go[0]);
        close(go[1]);
        /* At least five reads, and on until one was late. */
        for (uint32_t key = 201; key <= 400 && (key <= 205 || bounded_reader_n_late(b) == 0);
             key++) {
                workers_to_cpu0(); /* and a worker started since */
                r = read_key(b, key, "short", &s, NULL, NULL);
                printf("# starved (%s budget): key %u read %d\n", budget ? "a" : "no", key, r);
                check(r == 0 && s && streq(s, "hello"));
                if (budget)
                        check(bounded_reader_wait_left(b, key) == 60 * SEC);
                s = mfree(s);
        }
        kill(hog, SIGKILL);
        waitpid(hog, NULL, 0);
        check(bounded_reader_n_late(b) > 0);
        check(bounded_reader_n_timeouts(b) == 0);
        bounded_reader_free(b);
}

int main(void)
{
        BoundedReader *b = NULL;
        char p[256];

        CHECK(mkdtemp(dir));
        check(bounded_reader_new(0, TIMEOUT_USEC, &b) == -EINVAL && !b);
        check(bounded_reader_new(READ_MAX, 0, &b) == -EINVAL && !b);
        CHECK(bounded_reader_new(READ_MAX, TIMEOUT_USEC, &b) == 0 && b);
        bounded_reader_set_budget(b, &WAIT_BUDGET);

        test_reads(b);
        test_stuck(b);
        bounded_reader_free(b);
        test_budget();
        test_starved(true);
        test_starved(false);

        for (const char *const *n = (const char *const[]){ "short", "long", "exact", "a", "b", "c",
                                                           "d", "e", "late1", "late2", "stuck1",
                                                           NULL };
             *n; n++) {
                path_of(p, *n);
                unlink(p);
        }
        rmdir(dir);
        return test_result();
}
