/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/bus/bus-auth.h"
#include "lib/latency-slice.h"
#include "lib/macro.h"
#include "lib/sched.h"
#include "lib/task-attr.h"

int bus_caller_from_creds(const BusCreds *creds, uid_t our_uid, BusCaller *ret, char **ret_why)
{
        if (!creds->has_euid || creds->euid_augmented) {
                if (asprintf(ret_why, "The bus did not report the caller's user (%s); latniced "
                                      "does not take it from /proc",
                             creds->has_euid ? "only /proc did" : "none given") < 0) {
                        *ret_why = NULL;
                        return -ENOMEM;
                }
                return -EPERM;
        }
        *ret = (BusCaller){
                .uid = creds->euid,
                .privileged = creds->euid == 0 || creds->euid == our_uid ||
                              (creds->has_caps && !creds->caps_augmented && creds->cap_sys_nice),
        };
        return 0;
}

int bus_auth_privileged(const BusCaller *caller, const char *what, char **ret_why)
{
        if (caller->privileged)
                return 0;
        if (asprintf(ret_why, "%s needs root (the bus reports caller uid %u)", what,
                     (unsigned) caller->uid) < 0) {
                *ret_why = NULL;
                return -ENOMEM;
        }
        return -EACCES;
}

/*
 * May an unprivileged owner apply S to thread TID in state ST? Only changes
 * that make the task less latency-sensitive pass: no value any attribute
 * calls a boost over what the thread has now (the same definitions as the
 * rules' boosts, lib/task-attr.c). On refusal returns -EACCES and a message
 * in *ret_why.
 */
static int check_less_sensitive(uint64_t base, pid_t tid, const SchedState *st,
                                const Settings *s, char **ret_why)
{
        TASK_ATTR_FOREACH(a) {
                int r;

                if (!a->boost || !settings_has(s, a->id))
                        continue;
                r = a->boost(s, st, base, tid, ret_why);
                if (r < 0)
                        return r;
                if (r > 0)
                        return -EACCES;
        }
        return 0;
}

int bus_auth_set_task(const BusCaller *caller, const SetTaskTarget *target, const Settings *s,
                      uint64_t base_slice_ns, char **ret_why)
{
        _cleanup_free_ char *str = NULL, *why = NULL;
        uint64_t base = base_slice_ns ? base_slice_ns : base_slice_default(1);
        int r;

        if (caller->privileged)
                return 0;
        str = settings_to_string(s);
        if (!str)
                return -ENOMEM;
        if (target->uid != caller->uid) {
                r = asprintf(ret_why,
                             "Setting %s on pid %d refused: it belongs to uid %u, not to the "
                             "caller (uid %u); changing other users' processes needs root",
                             str, (int) target->pid, (unsigned) target->uid,
                             (unsigned) caller->uid);
                goto refused;
        }
        for (size_t i = 0; i < target->n_threads; i++) {
                r = check_less_sensitive(base, target->tids[i], &target->states[i], s, &why);
                if (r == -EACCES) {
                        r = asprintf(ret_why,
                                     "Setting %s on pid %d refused: %s; without root a user "
                                     "may only make their own processes less "
                                     "latency-sensitive",
                                     str, (int) target->pid, why);
                        goto refused;
                }
                if (r < 0)
                        return r;
        }
        return 0;

refused:
        if (r < 0) {
                *ret_why = NULL;
                return -ENOMEM;
        }
        return -EACCES;
}
