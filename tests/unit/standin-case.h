/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One case of a unit test with a stand-in systemd manager
 * (standin-manager.h): the unit's cgroup, a real cgroup2 cgroup named like
 * one, made with the directories above it; the stand-in started for it; what
 * it reports gathered, also from the test's event loop; all taken down at
 * the end. Shared by test-systemd-timeout.c, test-systemd-pause.c and
 * test-group-ledger.c. Failures here abort the test (CHECK): a check()
 * would count in this file's tally, not the test's.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "standin-manager.h"

typedef struct StandInCase {
        char rel[256];   /* the unit's cgroup, below the cgroup2 root */
        char dir[600];   /* the same, its path */
        int levels;      /* the test's own directories above DIR */
        pid_t standin;   /* the running stand-in, or 0 */
        int report;      /* its reports (standin_start()), or -1 */
        char seen[8192]; /* what it reported, since it started */
        /* standin_case_wait()'s */
        const char *want;
        unsigned times;
        bool done;
} StandInCase;

/* A uid of no one, for a user's manager. */
unsigned standin_case_uid(void);

/* Make the cgroup CGROUP2/REL, REL from FMT (starting with '/'), and the
 * directories above it; they are the test's own: standin_case_end()
 * removes them all. */
void standin_case_begin(StandInCase *c, const char *cgroup2, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* Start the stand-in O (its unit's cgroup is C's); SEEN is emptied. */
void standin_case_start(StandInCase *c, StandInOptions o);

/* Append what the stand-in reported so far to SEEN (standin_reports()). */
void standin_case_reports(StandInCase *c);

/* Run E until SEEN holds WANT TIMES times in all, the stand-in's reports
 * end or GUARD_USEC passed (only a hang's bound). True if it holds. */
bool standin_case_wait(StandInCase *c, sd_event *e, const char *want, unsigned times,
                       uint64_t guard_usec);

/* Kill and reap the stand-in, close its reports (SEEN stays). */
void standin_case_stop(StandInCase *c);

/* standin_case_stop(), then remove the cgroup and the directories above it
 * (failures ignored: gone already). */
void standin_case_end(StandInCase *c);

/* How often NEEDLE stands in HAY. */
unsigned standin_count(const char *hay, const char *needle);
