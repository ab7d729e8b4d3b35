/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit test for daemon/conf.c: the [Daemon] section of latniced.conf. */
#include <assert.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "daemon/conf.h"
#include "lib/macro.h"

static int parse(const char *text, DaemonConfig *c, char ***msgs)
{
        return daemon_config_parse("test.conf", text, strlen(text), c, msgs);
}

static size_t strv_length(char **l)
{
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

static void test_defaults(void)
{
        DaemonConfig c;
        char **msgs = (char **)1;

        assert(parse("", &c, &msgs) == 0);
        assert(msgs == NULL);
        assert(c.log_level == -1);
        assert(c.restore_on_exit && c.respect_manual_changes);
        assert(c.backend == _LATENCY_BACKEND_AUTO);

        /* comments only, [Daemon] empty */
        assert(parse("# hello\n; more\n[Daemon]\n", &c, NULL) == 0);
        assert(c.restore_on_exit);
}

static void test_values(void)
{
        DaemonConfig c;
        _cleanup_strv_free_ char **msgs = NULL;

        assert(parse("[Daemon]\n"
                     "LogLevel = debug\n"
                     "RestoreOnExit=no\n"
                     "RespectManualChanges = false\n"
                     "LatencyNiceBackend = slice\n",
                     &c, &msgs) == 0);
        assert(msgs == NULL);
        assert(c.log_level == LOG_DEBUG);
        assert(!c.restore_on_exit && !c.respect_manual_changes);
        assert(c.backend == LATENCY_BACKEND_SLICE);

        assert(parse("[Daemon]\nLatencyNiceBackend=latency-nice\nLogLevel=3\n", &c, NULL) == 0);
        assert(c.backend == LATENCY_BACKEND_LATENCY_NICE && c.log_level == LOG_ERR);
        assert(parse("[Daemon]\nLatencyNiceBackend=none\n", &c, NULL) == 0);
        assert(c.backend == LATENCY_BACKEND_NONE);
        assert(parse("[Daemon]\nLatencyNiceBackend=auto\nRestoreOnExit=no\nRestoreOnExit=\n", &c,
                     NULL) == 0);
        assert(c.backend == _LATENCY_BACKEND_AUTO && c.restore_on_exit);

        /* no trailing newline, CRLF line ends */
        assert(parse("[Daemon]\r\nRestoreOnExit=no", &c, NULL) == 0);
        assert(!c.restore_on_exit);
}

static void test_warnings(void)
{
        DaemonConfig c;
        _cleanup_strv_free_ char **msgs = NULL;

        assert(parse("[Daemon]\n"
                     "Bogus = 1\n"
                     "RestoreOnExit = no\n"
                     "[Other]\n"
                     "X = y\n",
                     &c, &msgs) == 0);
        assert(strv_length(msgs) == 2);
        assert(streq(msgs[0], "test.conf:2: warning: unknown key \"Bogus\" in [Daemon], ignoring"));
        assert(strncmp(msgs[1], "test.conf:5: warning: unknown section [Other]", 45) == 0);
        assert(!c.restore_on_exit);
}

static void test_errors(void)
{
        DaemonConfig c, orig;
        char **msgs = NULL;

        daemon_config_init(&c);
        c.restore_on_exit = false;
        orig = c;

        /* bad value: error with its line, *ret untouched */
        assert(parse("[Daemon]\n\nRestoreOnExit = maybe\nLogLevel = debug\n", &c, &msgs) ==
               -EINVAL);
        assert(memcmp(&c, &orig, sizeof(c)) == 0);
        assert(strv_length(msgs) == 1);
        assert(streq(msgs[0], "test.conf:3: error: RestoreOnExit: expected yes or no, found \"maybe\""));
        msgs = strv_free(msgs);

        assert(parse("[Daemon]\nLogLevel = loud\n", &c, &msgs) == -EINVAL);
        assert(strncmp(msgs[0], "test.conf:2: error: LogLevel:", 29) == 0);
        msgs = strv_free(msgs);

        assert(parse("[Daemon]\nLatencyNiceBackend = fast\n", &c, &msgs) == -EINVAL);
        assert(strstr(msgs[0], "found \"fast\""));
        msgs = strv_free(msgs);

        /* syntax error reported by inih */
        assert(parse("[Daemon]\nRestoreOnExit no\n", &c, &msgs) == -EINVAL);
        assert(streq(msgs[0], "test.conf:2: error: expected \"[Section]\" or \"Key = value\""));
        msgs = strv_free(msgs);
        assert(parse("[Daemon\n", &c, &msgs) == -EINVAL);
        assert(strncmp(msgs[0], "test.conf:1: error:", 19) == 0);
        msgs = strv_free(msgs);

        /* an over-long line is rejected with its number, the next line still counts */
        {
                char text[4096];
                int n = snprintf(text, sizeof(text), "[Daemon]\n# %0900d\nBogus=1\n", 7);
                assert(n > 0 && (size_t)n < sizeof(text));
                assert(parse(text, &c, &msgs) == -EINVAL);
                assert(strv_length(msgs) == 2);
                assert(strncmp(msgs[0], "test.conf:2: error: line is longer than", 39) == 0);
                assert(strncmp(msgs[1], "test.conf:3: warning: unknown key", 33) == 0);
                msgs = strv_free(msgs);
        }

        /* NUL byte inside a line */
        {
                static const char text[] = "[Daemon]\nRestoreOnExit=n\0o\n";
                assert(daemon_config_parse("test.conf", text, sizeof(text) - 1, &c, &msgs) ==
                       -EINVAL);
                assert(strncmp(msgs[0], "test.conf:2: error: line contains a NUL byte", 44) == 0);
                msgs = strv_free(msgs);
        }
        assert(memcmp(&c, &orig, sizeof(c)) == 0);
}

static void test_load(void)
{
        char path[] = "/tmp/test-conf-XXXXXX";
        DaemonConfig c;
        int fd;

        /* missing file: defaults */
        c.restore_on_exit = false;
        assert(daemon_config_load("/nonexistent/latniced.conf", &c, NULL) == 0);
        assert(c.restore_on_exit);

        fd = mkstemp(path);
        assert(fd >= 0);
        assert(write(fd, "[Daemon]\nRespectManualChanges=no\n", 33) == 33);
        close(fd);
        assert(daemon_config_load(path, &c, NULL) == 0);
        assert(!c.respect_manual_changes);
        unlink(path);
}

static void test_budget(void)
{
        _cleanup_strv_free_ char **msgs = NULL;
        DaemonConfig c;

        assert(parse("", &c, NULL) == 0);
        assert(c.budget.share_permille == BUDGET_SHARE_DEFAULT);
        assert(c.budget.window_usec == BUDGET_WINDOW_DEFAULT_USEC);
        assert(parse("[Daemon]\nBoostBudgetShare = 12.5%\nBoostBudgetWindow = 500ms\n", &c,
                     NULL) == 0);
        assert(c.budget.share_permille == 125 && c.budget.window_usec == 500000);
        assert(parse("[Daemon]\nBoostBudgetShare = 150%\nBoostBudgetWindow = 2min\n", &c,
                     NULL) == 0);
        assert(c.budget.share_permille == 1500 && c.budget.window_usec == 120000000);
        assert(parse("[Daemon]\nBoostBudgetShare = off\n", &c, NULL) == 0);
        assert(c.budget.share_permille == 0);
        assert(c.rt_max_priority == RT_MAX_PRIORITY_DEFAULT && RT_MAX_PRIORITY_DEFAULT == 20);
        assert(parse("[Daemon]\nMaxRealtimePriority = 0\n", &c, NULL) == 0 &&
               c.rt_max_priority == 0);
        assert(parse("[Daemon]\nMaxRealtimePriority = 99\nMaxRealtimePriority =\n", &c,
                     NULL) == 0 && c.rt_max_priority == 20);
        assert(c.rt_max_per_user == RT_MAX_PER_USER_DEFAULT && RT_MAX_PER_USER_DEFAULT == 25);
        assert(parse("[Daemon]\nMaxRealtimeThreadsPerUser = 0\n", &c, NULL) == 0 &&
               c.rt_max_per_user == 0);
        assert(parse("[Daemon]\nMaxRealtimeThreadsPerUser = 100000\n", &c, NULL) == 0 &&
               c.rt_max_per_user == 100000);
        assert(parse("[Daemon]\nMaxRealtimeThreadsPerUser = 7\nMaxRealtimeThreadsPerUser =\n",
                     &c, NULL) == 0 && c.rt_max_per_user == 25);
        assert(parse("[Daemon]\nBoostBudgetShare = off\nBoostBudgetShare =\n", &c, NULL) == 0);
        assert(c.budget.share_permille == BUDGET_SHARE_DEFAULT);

        const char *bad[] = { "BoostBudgetShare = 50", "BoostBudgetShare = 0%",
                              "BoostBudgetShare = 10001%", "BoostBudgetShare = 1.25%",
                              "BoostBudgetShare = -5%", "BoostBudgetWindow = 10",
                              "BoostBudgetWindow = 50ms", "BoostBudgetWindow = 61min",
                              "BoostBudgetWindow = 1h", "BoostBudgetWindow = 1.5s" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char text[128], want[128];
                const char *key = strchr(bad[i], '=');

                snprintf(text, sizeof(text), "[Daemon]\n%s\n", bad[i]);
                assert(parse(text, &c, &msgs) == -EINVAL);
                snprintf(want, sizeof(want), "test.conf:2: error: %.*s:", (int)(key - bad[i] - 1),
                         bad[i]);
                assert(strncmp(msgs[0], want, strlen(want)) == 0);
                snprintf(want, sizeof(want), "found \"%s\"", key + 2);
                assert(strstr(msgs[0], want));
                msgs = strv_free(msgs);
        }
}

/* Every key: an empty value gives back the default after another value, and
 * a bad value gets "KEY: expected ..., found ..." (the texts are the ones
 * latniced.conf(5) users have seen; one table in conf.c makes them). */
static void test_every_key(void)
{
        static const struct {
                const char *line, *message;
        } bad[] = {
                { "LogLevel = loud", "LogLevel: expected debug, info, notice, warning, err, crit, "
                                     "alert or emerg, found \"loud\"" },
                { "RestoreOnExit = 2", "RestoreOnExit: expected yes or no, found \"2\"" },
                { "RespectManualChanges = x",
                  "RespectManualChanges: expected yes or no, found \"x\"" },
                { "LatencyNiceBackend = eevdf", "LatencyNiceBackend: expected auto, latency-nice, "
                                                "slice or none, found \"eevdf\"" },
                { "BoostBudgetShare = 5", "BoostBudgetShare: expected a share of one CPU from 0.1% "
                                          "to 10000% (\"50%\") or \"off\", found \"5\"" },
                { "BoostBudgetWindow = 5", "BoostBudgetWindow: expected a duration from 100ms to "
                                           "60min with a unit (ms, s, min), found \"5\"" },
                { "MaxRealtimePriority = 100", "MaxRealtimePriority: expected a real-time "
                                               "priority from 0 (none) to 99, found \"100\"" },
                { "MaxRealtimePriority = -1", "MaxRealtimePriority: expected a real-time "
                                              "priority from 0 (none) to 99, found \"-1\"" },
                { "MaxRealtimeThreadsPerUser = 100001",
                  "MaxRealtimeThreadsPerUser: expected a number of threads from 0 to 100000, "
                  "found \"100001\"" },
                { "MaxRealtimeThreadsPerUser = x",
                  "MaxRealtimeThreadsPerUser: expected a number of threads from 0 to 100000, "
                  "found \"x\"" },
        };
        DaemonConfig c, def;

        daemon_config_init(&def);
        assert(parse("[Daemon]\nLogLevel = debug\nRestoreOnExit = no\n"
                     "RespectManualChanges = no\nLatencyNiceBackend = none\n"
                     "BoostBudgetShare = 20%\nBoostBudgetWindow = 1s\n"
                     "LogLevel =\nRestoreOnExit =\nRespectManualChanges =\n"
                     "LatencyNiceBackend =\nBoostBudgetShare =\nBoostBudgetWindow =\n",
                     &c, NULL) == 0);
        assert(c.log_level == def.log_level && c.restore_on_exit == def.restore_on_exit &&
               c.respect_manual_changes == def.respect_manual_changes &&
               c.backend == def.backend && c.budget.share_permille == def.budget.share_permille &&
               c.budget.window_usec == def.budget.window_usec);

        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_strv_free_ char **msgs = NULL;
                char text[128], want[256];

                snprintf(text, sizeof(text), "[Daemon]\n\n%s\n", bad[i].line);
                assert(parse(text, &c, &msgs) == -EINVAL);
                snprintf(want, sizeof(want), "test.conf:3: error: %s", bad[i].message);
                assert(msgs && streq(msgs[0], want) && !msgs[1]);
        }
}

int main(void)
{
        test_defaults();
        test_every_key();
        test_budget();
        test_values();
        test_warnings();
        test_errors();
        test_load();
        return 0;
}
