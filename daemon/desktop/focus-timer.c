/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Focus timer (see focus-timer.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/desktop/focus-timer.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"

struct FocusTimer {
        sd_event *event;
        sd_event_source *source;
        FocusStore *store;
        focus_crossed_t crossed;
        void *userdata;
        uint64_t *spans;
        size_t n_spans;
        /* every crossing up to here has been evaluated */
        uint64_t checked;
        uint64_t next;
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata);

static int arm(FocusTimer *t, uint64_t when)
{
        int r;

        t->next = when;
        if (when == UINT64_MAX)
                return t->source ? sd_event_source_set_enabled(t->source, SD_EVENT_OFF) : 0;
        if (!t->source) {
                /* accuracy 1 ms: the crossing is the moment a match changes */
                r = sd_event_add_time(t->event, &t->source, CLOCK_MONOTONIC, when, 1000,
                                      on_timer, t);
                if (r >= 0)
                        (void)sd_event_source_set_description(t->source, "focus-time");
                return r;
        }
        r = sd_event_source_set_time(t->source, when);
        if (r >= 0)
                r = sd_event_source_set_enabled(t->source, SD_EVENT_ONESHOT);
        return r;
}

void focus_timer_update(FocusTimer *t)
{
        int r;

        if (!t)
                return;
        r = arm(t, t->n_spans > 0 ? focus_store_next_crossing(t->store, t->spans, t->n_spans,
                                                              t->checked)
                                  : UINT64_MAX);
        if (r < 0)
                log_warning_errno(r, "Cannot set the focus timer, unfocused:<N and >N do not "
                                     "change with time until the next focus change: %m");
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        FocusTimer *t = userdata;
        uint64_t now = now_usec(CLOCK_MONOTONIC), from = t->checked;

        (void)s;
        (void)usec;
        /* what crosses while FN evaluates is the next round's */
        t->checked = now;
        focus_store_crossed(t->store, t->spans, t->n_spans, from, now, t->crossed, t->userdata);
        focus_timer_update(t);
        return 0;
}

int focus_timer_new(sd_event *event, FocusStore *store, focus_crossed_t crossed,
                    void *userdata, FocusTimer **ret)
{
        FocusTimer *t = calloc(1, sizeof(*t));

        if (!t)
                return -ENOMEM;
        *t = (FocusTimer){ .event = sd_event_ref(event), .store = store, .crossed = crossed,
                           .userdata = userdata, .checked = now_usec(CLOCK_MONOTONIC),
                           .next = UINT64_MAX };
        *ret = t;
        return 0;
}

FocusTimer *focus_timer_free(FocusTimer *t)
{
        if (!t)
                return NULL;
        sd_event_source_disable_unref(t->source);
        sd_event_unref(t->event);
        free(t->spans);
        free(t);
        return NULL;
}

int focus_timer_set_spans(FocusTimer *t, const uint64_t *spans, size_t n)
{
        uint64_t *copy = NULL;

        if (n > 0) {
                copy = malloc(n * sizeof(*copy));
                if (!copy)
                        return -ENOMEM;
                memcpy(copy, spans, n * sizeof(*copy));
        }
        free(t->spans);
        t->spans = copy;
        t->n_spans = n;
        focus_timer_update(t);
        return 0;
}

uint64_t focus_timer_next(const FocusTimer *t)
{
        return t ? t->next : UINT64_MAX;
}
