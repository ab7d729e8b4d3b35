/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A stand-in systemd user manager for the unit tests of what latniced asks
 * a user's manager (tests/unit/test-group-ledger.c, test-systemd-pause.c,
 * test-systemd-timeout.c): a child process serving D-Bus on
 * RUN/user/UID/systemd/private (the socket chowned to UID, as systemd's),
 * or standing for the system manager and its bus on a socket of its own
 * (StandInOptions.system), with GetUnit and LoadUnit (one
 * unit), the unit's ControlGroup and CPUWeight properties, and
 * SetUnitProperties (its CPUWeight=). It reports to the test, one line on a
 * pipe each, before it answers: "SetUnitProperties UNIT WEIGHT" for every
 * CPUWeight= set, and with report_calls "MEMBER # N" for every call (N
 * counts from 1). It dies with the test (PR_SET_PDEATHSIG).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct StandInOptions {
        const char *run;      /* the runtime directory standing for /run */
        unsigned uid;         /* whose manager it is */
        const char *cgroup;   /* the unit's ControlGroup (below the cgroup2 root) */
        uint64_t weight;      /* the unit's CPUWeight= at start (SYSTEMD_WEIGHT_UNSET: none) */
        unsigned slow_call;   /* this call (from 1) is answered SLOW_USEC late; 0: none */
        const char *slow_member; /* also the first call of this member ("Get PROP":
                                  * of that property; NULL: none) */
        unsigned slow_nth;    /* with slow_member: its Nth call instead (0, 1: the first) */
        uint64_t slow_usec;
        bool slow_lost;       /* a slow SetUnitProperties is not carried out: reported
                               * as "Lost UNIT WEIGHT" instead */
        bool report_calls;    /* also report every call */
        bool system;          /* the system manager instead: on RUN/system_bus_socket,
                               * which DBUS_SYSTEM_BUS_ADDRESS names from then on, as
                               * a bus would (Hello, AddMatch, RemoveMatch), with
                               * Subscribe; UID unused */
} StandInOptions;

/* Start it (aborts the test on failure); its reports come on *RET_REPORT
 * (non-blocking). Returns its pid: SIGKILL and waitpid() it. */
pid_t standin_start(const StandInOptions *o, int *ret_report);

/* Append what the stand-in reported so far on FD to BUF (SIZE, a string).
 * Its replies come after its reports: after a call returned, its report is
 * there. */
void standin_reports(int fd, char *buf, size_t size);

/* standin_reports() until BUF holds WANT, or GUARD_MSEC passed (only a
 * hang's bound). True if it does. */
bool standin_wait_report(int fd, char *buf, size_t size, const char *want, int guard_msec);

/* The start of a test with a stand-in user manager: root and a cgroup2
 * mount, else exits 77 (skipped); RUN (a mkdtemp() template) made, with
 * RUN/systemd/system, and no system bus (nothing is the system
 * manager's). Returns the cgroup2 mount. */
const char *standin_test_begin(char *run);
