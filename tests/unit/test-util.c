/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/util.c (the file helpers), lib/strv.c and lib/time-util.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/macro.h"
#include "lib/strv.h"
#include "lib/time-util.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

static void test_write_string_file(void)
{
        char path[] = "/tmp/test-util-XXXXXX";
        _cleanup_free_ char *s = NULL;
        int fd;

        fd = mkostemp(path, O_CLOEXEC);
        CHECK(fd >= 0);
        close(fd);

        check(write_string_file(path, "-15") == 0);
        check(read_one_line_file(path, &s) == 0);
        check_streq(s, "-15");
        s = mfree(s);
        /* A shorter value replaces the longer one whole. */
        check(write_string_file(path, "0") == 0);
        check(read_one_line_file(path, &s) == 0);
        check_streq(s, "0");
        CHECK(unlink(path) == 0);
        /* Never creates a file. */
        check(write_string_file(path, "1") == -ENOENT);
        check(access(path, F_OK) < 0);
}

static void test_strv(void)
{
        _cleanup_strv_free_ char **l = NULL, **c = NULL, **e = NULL;
        size_t n = 0;

        check(strv_length(NULL) == 0);
        check(!strv_contains(NULL, "a"));
        CHECK(strv_consume(&l, &n, strdup("a")) == 0);
        CHECK(strv_consume(&l, &n, NULL) == 0);
        CHECK(strv_consume(&l, &n, strdup("b")) == 0);
        check(n == 2 && strv_length(l) == 2 && l[2] == NULL);
        check_streq(l[0], "a");
        check_streq(l[1], "b");
        check(strv_contains(l, "b") && !strv_contains(l, "c"));

        CHECK(strv_copy(l, &c) == 0);
        check(c != l && c[0] != l[0] && strv_length(c) == 2);
        check_streq(c[1], "b");
        CHECK(strv_copy(NULL, &e) == 0);
        check(e && e[0] == NULL);
}

static void test_now_usec(void)
{
        uint64_t a, b, rt, t0, t1;

        a = now_usec(CLOCK_MONOTONIC);
        b = now_usec(CLOCK_MONOTONIC);
        check(a > 0 && b >= a);
        /* time() reads the coarse clock, which can be a tick behind:
         * just after a second begins it still says the one before. */
        t0 = (uint64_t)time(NULL);
        rt = now_usec(CLOCK_REALTIME);
        t1 = (uint64_t)time(NULL);
        check(rt / USEC_PER_SEC + 1 >= t0 && rt / USEC_PER_SEC <= t1 + 1);
}

int main(void)
{
        test_write_string_file();
        test_strv();
        test_now_usec();
        return test_result();
}
