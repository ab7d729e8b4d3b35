/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for lib/bounded-read.c on real blocking reads: a FIFO nobody
 * writes to keeps a worker in open() the way a process's busy mmap_lock
 * keeps it in read(). Reads come back whole or cut at the bound; a stuck
 * one is abandoned at the timeout, its key is held off (doubling), other
 * keys go on while workers are free, and a released worker serves again. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/bounded-read.h"
#include "lib/time-util.h"
#include "test-util.h"

/* Long enough that a worker reading a plain file is never cut short on a
 * busy machine (20 ms was: a sanitizer build beside a kernel build), and
 * that "at once" (a refusal) is told from a timeout; under the penalty. */
#define TIMEOUT_USEC (300u * 1000u)
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

/* Let the worker blocked in open() on FIFO NAME go: open it for writing
 * (meets the worker's open), write a byte, close. */
static void release_fifo(const char *name)
{
        char p[256];
        int fd;

        path_of(p, name);
        fd = open(p, O_WRONLY | O_CLOEXEC);
        CHECK(fd >= 0);
        CHECK(write(fd, "x", 1) == 1);
        close(fd);
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

        /* Its key is held off at once; another key is read. */
        t0 = now_usec(CLOCK_MONOTONIC);
        check(read_key(b, 1, "short", &s, NULL, NULL) == -EBUSY && !s);
        check(now_usec(CLOCK_MONOTONIC) - t0 < TIMEOUT_USEC);
        check(read_key(b, 2, "short", &s, NULL, NULL) == 0);
        free(s);
        s = NULL;

        /* Every worker stuck: everybody is refused, at once. */
        check(read_key(b, 2, "b", &s, NULL, NULL) == -ETIMEDOUT);
        check(read_key(b, 3, "c", &s, NULL, NULL) == -ETIMEDOUT);
        check(read_key(b, 4, "d", &s, NULL, NULL) == -ETIMEDOUT);
        t0 = now_usec(CLOCK_MONOTONIC);
        check(read_key(b, 9, "short", &s, NULL, NULL) == -EBUSY && !s);
        check(now_usec(CLOCK_MONOTONIC) - t0 < TIMEOUT_USEC);
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

int main(void)
{
        BoundedReader *b = NULL;
        char p[256];

        CHECK(mkdtemp(dir));
        check(bounded_reader_new(0, TIMEOUT_USEC, &b) == -EINVAL && !b);
        check(bounded_reader_new(READ_MAX, 0, &b) == -EINVAL && !b);
        CHECK(bounded_reader_new(READ_MAX, TIMEOUT_USEC, &b) == 0 && b);

        test_reads(b);
        test_stuck(b);
        bounded_reader_free(b);

        for (const char *const *n = (const char *const[]){ "short", "long", "exact", "a", "b", "c",
                                                           "d", "e", NULL };
             *n; n++) {
                path_of(p, *n);
                unlink(p);
        }
        rmdir(dir);
        return test_result();
}
