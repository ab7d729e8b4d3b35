/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One case of a unit test with a stand-in systemd manager (standin-case.h). */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "standin-case.h"
#include "test-util.h"

unsigned standin_case_uid(void)
{
        return 64000 + (unsigned)getpid() % 1000;
}

void standin_case_begin(StandInCase *c, const char *cgroup2, const char *fmt, ...)
{
        char cmd[sizeof(c->dir) + 16];
        va_list ap;
        int n;

        *c = (StandInCase){ .report = -1 };
        va_start(ap, fmt);
        n = vsnprintf(c->rel, sizeof(c->rel), fmt, ap);
        va_end(ap);
        CHECK(n > 0 && (size_t)n < sizeof(c->rel) && c->rel[0] == '/');
        n = snprintf(c->dir, sizeof(c->dir), "%s%s", cgroup2, c->rel);
        CHECK(n > 0 && (size_t)n < sizeof(c->dir));
        c->levels = (int)standin_count(c->rel, "/") - 1;
        snprintf(cmd, sizeof(cmd), "mkdir -p %s", c->dir);
        CHECK(system(cmd) == 0);
}

void standin_case_start(StandInCase *c, StandInOptions o)
{
        CHECK(c->standin == 0);
        o.cgroup = c->rel;
        c->seen[0] = 0;
        c->standin = standin_start(&o, &c->report);
}

void standin_case_reports(StandInCase *c)
{
        standin_reports(c->report, c->seen, sizeof(c->seen));
}

static int on_report(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        StandInCase *c = userdata;
        size_t n = strlen(c->seen);
        ssize_t k = read(fd, c->seen + n, sizeof(c->seen) - 1 - n);

        if (k > 0) {
                n += (size_t)k;
                c->seen[n] = 0;
        }
        if (standin_count(c->seen, c->want) >= c->times || k == 0 || n == sizeof(c->seen) - 1)
                c->done = true;
        return 0;
}

bool standin_case_wait(StandInCase *c, sd_event *e, const char *want, unsigned times,
                       uint64_t guard_usec)
{
        sd_event_source *io = NULL;
        uint64_t now, end;

        c->want = want;
        c->times = times;
        c->done = standin_count(c->seen, want) >= times;
        CHECK(sd_event_add_io(e, &io, c->report, EPOLLIN, on_report, c) >= 0);
        CHECK(sd_event_now(e, CLOCK_MONOTONIC, &now) >= 0);
        for (end = now + guard_usec; !c->done && now < end;) {
                CHECK(sd_event_run(e, end - now) >= 0);
                CHECK(sd_event_now(e, CLOCK_MONOTONIC, &now) >= 0);
        }
        sd_event_source_disable_unref(io);
        return standin_count(c->seen, want) >= times;
}

void standin_case_stop(StandInCase *c)
{
        if (c->standin > 0) {
                kill(c->standin, SIGKILL);
                (void)waitpid(c->standin, NULL, 0);
        }
        if (c->report >= 0)
                close(c->report);
        c->standin = 0;
        c->report = -1;
}

void standin_case_end(StandInCase *c)
{
        standin_case_stop(c);
        (void)rmdir(c->dir);
        for (int i = 0; i < c->levels; i++) {
                *strrchr(c->dir, '/') = 0;
                (void)rmdir(c->dir);
        }
}

unsigned standin_count(const char *hay, const char *needle)
{
        unsigned n = 0;

        for (const char *h = strstr(hay, needle); h; h = strstr(h + 1, needle))
                n++;
        return n;
}
