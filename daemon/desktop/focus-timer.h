/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Focus timer: the focus history against the clock. A match on the
 * "unfocused" key (unfocused:>5min, unfocused:<10s; policy/keys.c) changes
 * by itself when a span of the policy has passed since a process lost the
 * focus; this one sd-event timer (CLOCK_MONOTONIC) is set for the next such
 * moment in the focus store (focus_store_next_crossing()), and when it
 * fires, what crossed is evaluated again (focus_store_crossed()). No
 * polling: without spans, or with nothing unfocused, the timer is off.
 */
#pragma once

#include <stdint.h>
#include <systemd/sd-event.h>

#include "daemon/desktop/focus.h"

typedef struct FocusTimer FocusTimer;

/* STORE is borrowed. CROSSED gets what to evaluate again (focus.h,
 * focus_store_crossed()). */
int focus_timer_new(sd_event *event, FocusStore *store, focus_crossed_t crossed,
                    void *userdata, FocusTimer **ret);
FocusTimer *focus_timer_free(FocusTimer *t);

/* The policy's spans (policy_durations(); copied) from now on. -ENOMEM. */
int focus_timer_set_spans(FocusTimer *t, const uint64_t *spans, size_t n);
/* The store changed: set the timer for its next crossing. */
void focus_timer_update(FocusTimer *t);
/* The moment the timer is set for, UINT64_MAX if it is off (for tests and
 * the debug log). */
uint64_t focus_timer_next(const FocusTimer *t);
