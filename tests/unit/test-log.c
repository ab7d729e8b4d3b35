/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Tests for lib/log.c: what reaches stderr, one line per message whatever
 * the message holds. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/log.h"
#include "lib/macro.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

typedef struct Capture {
        int fd, saved;
} Capture;

/* Send stderr to a memfd until capture_end(), which returns what was written. */
static Capture capture_begin(LogTarget target)
{
        Capture c;

        c.fd = memfd_create("test-log", MFD_CLOEXEC);
        CHECK(c.fd >= 0);
        c.saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        CHECK(c.saved >= 0);
        fflush(stderr);
        CHECK(dup2(c.fd, STDERR_FILENO) == STDERR_FILENO);
        log_set_target(target);
        return c;
}

static char *capture_end(Capture c)
{
        char *out = NULL;

        fflush(stderr);
        CHECK(dup2(c.saved, STDERR_FILENO) == STDERR_FILENO);
        close(c.saved);
        CHECK(lseek(c.fd, 0, SEEK_SET) == 0);
        CHECK(read_full_fd(c.fd, 1u << 20, &out, NULL) == 0);
        close(c.fd);
        return out;
}

/* What one log call of MSG at LEVEL with TARGET writes to stderr. */
static char *capture(LogTarget target, int level, const char *fmt_prefix, const char *msg)
{
        Capture c = capture_begin(target);

        log_full(level, "%s%s", fmt_prefix, msg);
        return capture_end(c);
}

static size_t count_char(const char *s, char c)
{
        size_t n = 0;

        for (; *s; s++)
                n += *s == c;
        return n;
}

/* A process name with a newline and a priority prefix of its own stays on
 * the line of the message that quotes it. */
static void test_injection(void)
{
        static const char hostile[] = "evil\n<0>fake emergency\r\x1b[2J\tend\x7f\xc2\x9bX";
        char *out;

        log_set_max_level(LOG_DEBUG);
        out = capture(LOG_TARGET_KMSG_PREFIX, LOG_INFO, "Applied to ", hostile);
        check_streq(out, "<6>Applied to evil\\n<0>fake emergency\\r\\x1b[2J\\tend\\x7f\\xc2\\x9bX\n");
        check(count_char(out, '\n') == 1);
        free(out);

        out = capture(LOG_TARGET_CONSOLE, LOG_ERR, "", hostile);
        check(count_char(out, '\n') == 1);
        check(strncmp(out, "latnice: evil\\n<0>fake", 22) == 0);
        check(!strchr(out, '\x1b') && !strchr(out, '\r') && !strstr(out, "\xc2\x9b"));
        free(out);

        /* text that is not a control character is left as it is: UTF-8, a
         * backslash, a lone 0xc2 */
        out = capture(LOG_TARGET_KMSG_PREFIX, LOG_WARNING, "", "caf\xc3\xa9 a\\nb \xc2");
        check_streq(out, "<4>caf\xc3\xa9 a\\nb \xc2\n");
        free(out);
}

/* %m prints the error passed in; long messages are not cut. */
static void test_format(void)
{
        size_t n = 10000;
        char *big = malloc(n + 1), *out;
        Capture c;

        CHECK(big);
        memset(big, 'x', n);
        big[n] = 0;
        c = capture_begin(LOG_TARGET_KMSG_PREFIX);

        errno = EPERM;
        check(log_error_errno(-ENOENT, "Failed %s: %m", "here") == -ENOENT);
        out = capture_end(c);
        check_streq(out, "<3>Failed here: No such file or directory\n");
        free(out);
        out = capture(LOG_TARGET_CONSOLE, LOG_ERR, "", big);
        check(strlen(out) == strlen("latnice: ") + n + 1);
        free(out);
        free(big);

        /* above the maximum level: nothing */
        log_set_max_level(LOG_NOTICE);
        out = capture(LOG_TARGET_KMSG_PREFIX, LOG_INFO, "", "quiet");
        check_streq(out, "");
        free(out);
        check(log_full_errno(LOG_INFO, -EPERM, "%s", "x") == -EPERM);
}

static void test_levels(void)
{
        check(log_level_from_string("debug") == LOG_DEBUG);
        check(log_level_from_string("error") == LOG_ERR);
        check(log_level_from_string("3") == LOG_ERR);
        check(log_level_from_string("8") == -EINVAL);
        check(log_level_from_string("") == -EINVAL);
        check_streq(log_level_to_string(LOG_WARNING), "warning");
        check(!log_level_to_string(8));
}

int main(void)
{
        test_injection();
        test_format();
        test_levels();
        return test_result();
}
