/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_ext watch: whether a BPF scheduler is loaded, and which, followed
 * while latniced runs (lib/sched-info.h reads it).
 *
 * The state file is polled every SCX_WATCH_INTERVAL_USEC: a sysfs attribute
 * gives no inotify event when its value changes, and the kernel does not
 * call sysfs_notify() on /sys/kernel/sched_ext/state (it sends a uevent
 * only as the root kobject of a scheduler comes and goes, which would need a
 * netlink socket of its own for an event that comes a few times a day). A
 * kernel without sched_ext (no /sys/kernel/sched_ext) is not polled: the
 * class is built in or not at all.
 *
 * The root below which sys/kernel/sched_ext is read is "/"; tests point it
 * at a fake tree with the environment variable LATNICED_SCHED_EXT_ROOT
 * (test-only, latniced(8)).
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "lib/sched-info.h"

#define SCX_WATCH_INTERVAL_USEC (2 * 1000000ULL)

typedef struct ScxWatch ScxWatch;

/* Called when the state or the scheduler's name changed (OPS NULL: none). */
typedef void (*scx_watch_changed_t)(void *userdata, ScxState state, const char *ops);

/* Read the state below ROOT (NULL: "/") once, and poll it on EVENT unless the
 * kernel has no sched_ext. The first reading calls no CHANGED. 0 or negative
 * errno (-ENOMEM, or the timer could not be made). */
int scx_watch_new(sd_event *event, const char *root, scx_watch_changed_t changed, void *userdata,
                  ScxWatch **ret);
ScxWatch *scx_watch_free(ScxWatch *w);

ScxState scx_watch_state(const ScxWatch *w); /* SCX_STATE_ABSENT for NULL */
const char *scx_watch_ops(const ScxWatch *w); /* NULL if none */
