/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process of the test's own in a cgroup of the test's own (v1 or v2),
 * for the unit tests of what latniced does to groups (test-group-combine.c,
 * test-systemd-pause.c). It sleeps until killed, and dies with the test
 * (PR_SET_PDEATHSIG), or its cgroup could not be removed.
 */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

/* Fork it and write it into DIR/cgroup.procs (aborts the test on failure);
 * with NEW_SESSION it is a session of its own (its own autogroup). SIGKILL
 * and waitpid() it. */
pid_t cgroup_member_start(const char *dir, bool new_session);
