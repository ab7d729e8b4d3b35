/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The value of the extended attribute "user.xdg.inactive-since" that GNOME's
 * compositor (Mutter) writes on the cgroup of every app (app-*.scope below
 * the user's app.slice), and that uresourced reads: "-1" while the app has
 * the focus, otherwise the time it lost the focus, in microseconds of
 * CLOCK_MONOTONIC (GLib's g_get_monotonic_time()), as decimal text.
 *
 * Pure: bytes in, a value out; the daemon reads the attribute
 * (daemon/desktop/focus-watch.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest value accepted: "-1", or up to 20 digits, and white space. */
#define INACTIVE_SINCE_MAX 64

typedef struct InactiveSince {
        bool focused;        /* "-1" */
        uint64_t since_usec; /* CLOCK_MONOTONIC µs it lost the focus; 0 when focused */
} InactiveSince;

/*
 * Parse the N bytes at S (not NUL-terminated; NUL bytes are errors): "-1",
 * or a decimal number of microseconds that fits 63 bits, each with white
 * space (' ', '\t', '\n') before and after allowed, as uresourced strips
 * it. Nothing else: no sign but that of "-1", no other negative number, no
 * hex, no empty value. 0 and *RET, or -EINVAL with *RET untouched (and, if
 * RET_WHY is not NULL, a static description of what was wrong in it).
 */
int inactive_since_parse(const char *s, size_t n, InactiveSince *ret, const char **ret_why);
