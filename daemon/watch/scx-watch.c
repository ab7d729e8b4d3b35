/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sched_ext watch (daemon/watch/scx-watch.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/watch/scx-watch.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"
#include "lib/util.h"

struct ScxWatch {
        char *root;
        ScxState state;
        char *ops;
        sd_event_source *timer;
        scx_watch_changed_t changed;
        void *userdata;
};

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        ScxWatch *w = userdata;
        _cleanup_free_ char *ops = NULL;
        ScxState state;

        if (scx_state_read(w->root, &state, &ops) < 0)
                log_oom();
        else if (state != w->state || !streq_ptr(ops, w->ops)) {
                w->state = state;
                free(w->ops);
                w->ops = TAKE_PTR(ops);
                if (w->changed)
                        w->changed(w->userdata, w->state, w->ops);
        }
        (void)sd_event_source_set_time(s, usec + SCX_WATCH_INTERVAL_USEC);
        return 0;
}

int scx_watch_new(sd_event *event, const char *root, scx_watch_changed_t changed, void *userdata,
                  ScxWatch **ret)
{
        ScxWatch *w = calloc(1, sizeof(ScxWatch));
        int r;

        if (!w)
                return -ENOMEM;
        *w = (ScxWatch){ .changed = changed, .userdata = userdata };
        if (root && !(w->root = strdup(root))) {
                free(w);
                return -ENOMEM;
        }
        r = scx_state_read(w->root, &w->state, &w->ops);
        if (r >= 0 && w->state != SCX_STATE_ABSENT) {
                r = sd_event_add_time_relative(event, &w->timer, CLOCK_MONOTONIC,
                                               SCX_WATCH_INTERVAL_USEC, 0, on_timer, w);
                if (r >= 0) {
                        (void)sd_event_source_set_description(w->timer, "sched_ext");
                        r = sd_event_source_set_enabled(w->timer, SD_EVENT_ON);
                }
        }
        if (r < 0) {
                scx_watch_free(w);
                return r;
        }
        *ret = w;
        return 0;
}

ScxWatch *scx_watch_free(ScxWatch *w)
{
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->timer);
        free(w->ops);
        free(w->root);
        free(w);
        return NULL;
}

ScxState scx_watch_state(const ScxWatch *w)
{
        return w ? w->state : SCX_STATE_ABSENT;
}

const char *scx_watch_ops(const ScxWatch *w)
{
        return w ? w->ops : NULL;
}
