/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/bus-auth.h"
#include "lib/ioprio.h"
#include "lib/latency-slice.h"
#include "lib/macro.h"
#include "lib/sched.h"

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

static int policy_rank(int policy)
{
        switch (policy) {
        case SCHED_OTHER:
                return 0;
        case SCHED_BATCH:
                return 1;
        case SCHED_IDLE:
                return 2;
        default:
                return -1;
        }
}

/* IOClass, IONice and OOMScoreAdj for check_less_sensitive(): a class of
 * lower rank (idle < best-effort, or none < realtime), a level no higher
 * (a larger number) within it, an oom_score_adj no lower. */
static int check_io_oom(pid_t tid, const SchedState *st, const Settings *s, char **ret_why)
{
        static const int rank[] = { [LN_IOPRIO_CLASS_NONE] = 1, [LN_IOPRIO_CLASS_RT] = 2,
                                    [LN_IOPRIO_CLASS_BE] = 1, [LN_IOPRIO_CLASS_IDLE] = 0 };
        int cur_class = LN_IOPRIO_CLASS(st->ioprio), cur_level = LN_IOPRIO_LEVEL(st->ioprio);
        int r = 0;

        if (cur_class == LN_IOPRIO_CLASS_NONE)
                cur_level = (st->nice + 20) / 5;
        if (settings_has(s, SETTING_IO_CLASS) && (size_t) cur_class < ELEMENTSOF(rank) &&
            rank[s->io_class] > rank[cur_class])
                r = asprintf(ret_why, "IOClass=%s would raise the I/O class of tid %d (currently %s)",
                             strna(ioprio_class_to_string(s->io_class)), (int) tid,
                             strna(ioprio_class_to_string(cur_class)));
        else if (settings_has(s, SETTING_IO_NICE) && cur_class != LN_IOPRIO_CLASS_IDLE &&
                 s->io_nice < cur_level &&
                 !(settings_has(s, SETTING_IO_CLASS) && s->io_class == LN_IOPRIO_CLASS_IDLE))
                r = asprintf(ret_why,
                             "IONice=%d would raise the I/O priority of tid %d (currently %d)",
                             s->io_nice, (int) tid, cur_level);
        else if (settings_has(s, SETTING_OOM_SCORE_ADJ) && s->oom_score_adj < st->oom_score_adj)
                r = asprintf(ret_why,
                             "OOMScoreAdj=%d would lower the oom_score_adj of tid %d (currently %d)",
                             s->oom_score_adj, (int) tid, st->oom_score_adj);
        if (r < 0) {
                *ret_why = NULL;
                return -ENOMEM;
        }
        return r > 0 ? -EACCES : 0;
}

/*
 * May an unprivileged owner apply S to thread TID in state ST? Only changes
 * that make the task less latency-sensitive pass. On refusal returns -EACCES
 * and a message in *ret_why.
 */
static int check_less_sensitive(uint64_t base, pid_t tid, const SchedState *st,
                                const Settings *s, char **ret_why)
{
        uint64_t cur_slice = st->slice_ns ? st->slice_ns : base;
        int r = 0;

        if (settings_has(s, SETTING_LATENCY_NICE)) {
                if (st->has_latency_nice) {
                        if (s->latency_nice < st->latency_nice)
                                r = asprintf(ret_why,
                                             "LatencyNice=%d would lower latency nice of tid %d "
                                             "(currently %d)",
                                             s->latency_nice, (int) tid, st->latency_nice);
                } else if (s->latency_nice < 0)
                        r = asprintf(ret_why,
                                     "LatencyNice=%d is below the default 0 of tid %d",
                                     s->latency_nice, (int) tid);
                else if (st->custom_slice && s->latency_nice != 0 &&
                         latency_nice_to_slice(s->latency_nice, base) < st->slice_ns)
                        r = asprintf(ret_why,
                                     "LatencyNice=%d would shorten the custom slice of tid %d "
                                     "(currently %" PRIu64 " ns)",
                                     s->latency_nice, (int) tid, st->slice_ns);
                if (r != 0)
                        goto refused;
        }
        if (settings_has(s, SETTING_NICE) && s->nice < st->nice) {
                r = asprintf(ret_why, "Nice=%d would lower the nice value of tid %d (currently %d)",
                             s->nice, (int) tid, st->nice);
                goto refused;
        }
        if (settings_has(s, SETTING_SLICE) && s->slice_ns < cur_slice) {
                r = asprintf(ret_why,
                             "Slice=%" PRIu64 "ns would shorten the slice of tid %d (currently "
                             "%" PRIu64 " ns)",
                             s->slice_ns, (int) tid, cur_slice);
                goto refused;
        }
        if (settings_has(s, SETTING_POLICY) &&
            policy_rank(s->policy) < policy_rank(st->policy)) {
                r = asprintf(ret_why, "Policy=%s would leave policy %s of tid %d",
                             strna(sched_policy_to_string(s->policy)),
                             strna(sched_policy_to_string(st->policy)), (int) tid);
                goto refused;
        }
        if (settings_has(s, SETTING_TIMER_SLACK) && st->timer_slack_ns > 0 &&
            s->timer_slack_ns < st->timer_slack_ns) {
                r = asprintf(ret_why,
                             "TimerSlack=%" PRIu64 "ns would lower the timer slack of tid %d "
                             "(currently %" PRIu64 " ns)",
                             s->timer_slack_ns, (int) tid, st->timer_slack_ns);
                goto refused;
        }
        if (settings_has(s, SETTING_UTIL_MAX) && s->util_max > st->util_max) {
                r = asprintf(ret_why, "UtilMax=%u would raise the utilization cap of tid %d "
                             "(currently %u)",
                             s->util_max, (int) tid, st->util_max);
                goto refused;
        }
        if (settings_has(s, SETTING_UTIL_MIN) && s->util_min > st->util_min) {
                r = asprintf(ret_why, "UtilMin=%u would raise the utilization boost of tid %d "
                             "(currently %u)",
                             s->util_min, (int) tid, st->util_min);
                goto refused;
        }
        return check_io_oom(tid, st, s, ret_why);

refused:
        if (r < 0) {
                *ret_why = NULL;
                return -ENOMEM;
        }
        return -EACCES;
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
