/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The focus on the bus (see bus-focus.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/bus/bus-focus.h"
#include "daemon/bus/caller-limit.h"
#include "daemon/bus/bus.h"
#include "lib/bus-names.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/time-util.h"

struct BusFocus {
        CallerLimit limit;
        sd_bus_slot *s76_slot;
        bool s76_owned;
};

int bus_focus_new(BusFocus **ret)
{
        BusFocus *f = calloc(1, sizeof(*f));

        if (!f)
                return -ENOMEM;
        f->limit.burst = FOCUS_CALL_BURST;
        f->limit.interval_usec = FOCUS_CALL_INTERVAL_USEC;
        *ret = f;
        return 0;
}

BusFocus *bus_focus_free(BusFocus *f)
{
        if (!f)
                return NULL;
        sd_bus_slot_unref(f->s76_slot);
        free(f);
        return NULL;
}

static pid_t caller_pid(sd_bus_message *m)
{
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
        pid_t pid = 0;

        if (sd_bus_query_sender_creds(m, SD_BUS_CREDS_PID, &creds) >= 0)
                (void)sd_bus_creds_get_pid(creds, &pid);
        return pid;
}

static int set_focus(sd_bus_message *m, Bus *b, const char *method, sd_bus_error *error)
{
        _cleanup_free_ char *why = NULL;
        BusCaller c = {};
        pid_t pid;
        int r;

        r = bus_read_pid_arg(b, m, &pid, error);
        if (r < 0)
                return r;
        r = bus_caller_get(m, &c, error);
        if (r < 0)
                return r;
        if (!caller_limit_take(&bus_focus_of(b)->limit, c.uid, now_usec(CLOCK_MONOTONIC)))
                return sd_bus_error_setf(error, SD_BUS_ERROR_LIMITS_EXCEEDED,
                                         "%s: more than %u calls at once from uid %u, or more "
                                         "than one per %u ms after them: try again later",
                                         method, FOCUS_CALL_BURST, (unsigned)c.uid,
                                         FOCUS_CALL_INTERVAL_USEC / 1000);
        r = manager_set_focus(bus_manager(b), pid, c.uid, c.privileged, caller_pid(m), method,
                              &why);
        if (r == -EACCES)
                return sd_bus_error_set(error, LATNICE_BUS_ERROR_ACCESS_DENIED, why);
        if (r == -ESRCH)
                return sd_bus_error_setf(error, LATNICE_BUS_ERROR_NO_SUCH_PROCESS,
                                         "No process %d", (int)pid);
        if (r == -EINVAL)
                return sd_bus_error_setf(error, LATNICE_BUS_ERROR_REFUSED, "%s: %s", method,
                                         why ?: "not a process");
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, NULL);
}

int bus_method_set_focus(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return set_focus(m, userdata, "SetFocus", error);
}

static int method_s76_set_foreground(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return set_focus(m, userdata, "SetForegroundProcess", error);
}

int bus_getter_error(int r, const BusCaller *c, uid_t uid, pid_t pid, const char *method,
                     const char *why, sd_bus_error *error)
{
        if (r == -ESRCH || (r >= 0 && !c->privileged && uid != c->uid))
                /* another user's process: as if there were none */
                return sd_bus_error_setf(error, LATNICE_BUS_ERROR_NO_SUCH_PROCESS,
                                         "No process %d of yours", (int)pid);
        if (r == -EINVAL)
                return sd_bus_error_setf(error, LATNICE_BUS_ERROR_REFUSED, "%s: %s", method,
                                         why ?: "not a process");
        return r < 0 ? r : 0;
}

int bus_method_get_focus(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        _cleanup_free_ char *fact = NULL, *why = NULL;
        Bus *b = userdata;
        const char *state = "";
        uint64_t unfocused = 0;
        BusCaller c = {};
        pid_t pid;
        uid_t uid;
        int r;

        r = bus_read_pid_arg(b, m, &pid, error);
        if (r < 0)
                return r;
        r = bus_caller_get(m, &c, error);
        if (r < 0)
                return r;
        r = manager_get_focus(bus_manager(b), pid, &state, &fact, &unfocused, &uid, &why);
        r = bus_getter_error(r, &c, uid, pid, "GetFocus", why, error);
        if (r < 0)
                return r;
        return sd_bus_reply_method_return(m, "sst", state, fact, unfocused);
}

static const sd_bus_vtable s76_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("SetForegroundProcess", SD_BUS_ARGS("u", pid), SD_BUS_NO_RESULT,
                                method_s76_set_foreground, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

void bus_focus_setup(Bus *b, sd_bus *bus)
{
        BusFocus *f = bus_focus_of(b);
        int r;

        r = sd_bus_add_object_vtable(bus, &f->s76_slot, S76_BUS_PATH, S76_BUS_INTERFACE,
                                     s76_vtable, b);
        if (r < 0)
                return (void)log_warning_errno(r, "Cannot serve " S76_BUS_INTERFACE ": %m");
        /* no queueing, no replacing: system76-scheduler keeps its name */
        r = sd_bus_request_name(bus, S76_BUS_NAME, 0);
        if (r == -EEXIST || r == -EALREADY)
                log_info(S76_BUS_NAME " is owned by another service (system76-scheduler): its "
                         "SetForegroundProcess calls go there; latniced's SetFocus still works.");
        else if (r < 0)
                log_notice_errno(r, "Cannot take the bus name " S76_BUS_NAME
                                 " (the bus policy must allow it): %m");
        else {
                f->s76_owned = true;
                log_debug("Serving " S76_BUS_NAME " for compositor focus scripts.");
        }
}
