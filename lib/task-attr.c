/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The task attribute registry (lib/task-attr.h): one descriptor per
 * attribute, in SettingId order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core-sched.h"
#include "lib/cpu-list.h"
#include "lib/ioprio.h"
#include "lib/log.h"
#include "lib/task-attr.h"

#define NSEC_PER_USEC UINT64_C(1000)
#define NSEC_PER_MSEC UINT64_C(1000000)

/* 1 with a message, as TaskAttr.boost() says. */
_printf_(2, 3) static int boost_why(char **ret_why, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (!ret_why)
                return 1;
        va_start(ap, fmt);
        n = vasprintf(ret_why, fmt, ap);
        va_end(ap);
        if (n < 0) {
                *ret_why = NULL;
                return -ENOMEM;
        }
        return 1;
}

static int latency_nice_set(const KernelOps *k, pid_t tid, int latency_nice)
{
        struct ln_sched_attr a = {
                .size = SCHED_ATTR_SIZE_VER2,
                .sched_flags = LN_SCHED_FLAG_LATENCY_NICE | LN_SCHED_FLAG_KEEP_ALL,
                .sched_latency_nice = latency_nice,
        };
        return k->sched_setattr(tid, &a);
}

static int uclamp_set(const KernelOps *k, pid_t tid, bool set_min, uint32_t min, bool set_max,
                      uint32_t max)
{
        struct ln_sched_attr a = {
                .size = SCHED_ATTR_SIZE_VER1,
                .sched_flags = LN_SCHED_FLAG_KEEP_ALL |
                               (set_min ? LN_SCHED_FLAG_UTIL_CLAMP_MIN : 0) |
                               (set_max ? LN_SCHED_FLAG_UTIL_CLAMP_MAX : 0),
                .sched_util_min = min,
                .sched_util_max = max,
        };
        return k->sched_setattr(tid, &a);
}

/* ---- LatencyNice --------------------------------------------------------- */

static int latency_nice_write(const AttrIo *io, const SchedState *before, const Settings *s,
                              uint32_t mask)
{
        int r;

        if (io->backend != LATENCY_BACKEND_LATENCY_NICE)
                return ATTR_WRITE_ELSEWHERE; /* the slice, or unsupported */
        if (before->has_latency_nice && before->latency_nice == s->latency_nice)
                return 0;
        r = latency_nice_set(io->k, io->tid, s->latency_nice);
        /* The value is in range: EINVAL here is the unknown flag of a kernel
         * without latency nice, like E2BIG. */
        return r == -E2BIG || r == -EINVAL ? -EOPNOTSUPP : r;
}

/* The slice it may have been emulated with goes back with the fair writer. */
static int latency_nice_restore(const AttrIo *io, const SchedState *orig, uint32_t mask)
{
        return orig->has_latency_nice ? latency_nice_set(io->k, io->tid, orig->latency_nice) : 0;
}

static bool latency_nice_changed(const SchedState *now, const SchedState *expected)
{
        if (now->has_latency_nice != expected->has_latency_nice)
                return true;
        /* Without the knob it is emulated with the slice. */
        return expected->has_latency_nice ? now->latency_nice != expected->latency_nice
                                          : now->slice_ns != expected->slice_ns;
}

static void latency_nice_take(SchedState *dst, const SchedState *src)
{
        /* Emulated with the slice, it is the slice. */
        if (!src->has_latency_nice) {
                dst->slice_ns = src->slice_ns;
                dst->custom_slice = src->custom_slice;
        }
        dst->has_latency_nice = src->has_latency_nice;
        dst->latency_nice = src->latency_nice;
}

static int latency_nice_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                              char **ret_why)
{
        if (ref->has_latency_nice)
                return s->latency_nice < ref->latency_nice
                               ? boost_why(ret_why,
                                           "LatencyNice=%d would lower latency nice of tid %d "
                                           "(currently %d)",
                                           s->latency_nice, (int)tid, ref->latency_nice)
                               : 0;
        if (s->latency_nice < 0)
                return boost_why(ret_why, "LatencyNice=%d is below the default 0 of tid %d",
                                 s->latency_nice, (int)tid);
        if (ref->custom_slice && s->latency_nice != 0 &&
            latency_nice_to_slice(s->latency_nice, base) < ref->slice_ns)
                return boost_why(ret_why,
                                 "LatencyNice=%d would shorten the custom slice of tid %d "
                                 "(currently %" PRIu64 " ns)",
                                 s->latency_nice, (int)tid, ref->slice_ns);
        return 0;
}

/* ---- Slice, Nice, Policy: the fair writer's (lib/thread-settings.c) ------ */

static bool slice_changed(const SchedState *now, const SchedState *expected)
{
        return now->slice_ns != expected->slice_ns || now->custom_slice != expected->custom_slice;
}

static void slice_take(SchedState *dst, const SchedState *src)
{
        dst->slice_ns = src->slice_ns;
        dst->custom_slice = src->custom_slice;
}

static int slice_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                       char **ret_why)
{
        uint64_t cur = ref->slice_ns ? ref->slice_ns : base;

        if (s->slice_ns >= cur)
                return 0;
        return boost_why(ret_why,
                         "Slice=%" PRIu64 "ns would shorten the slice of tid %d (currently "
                         "%" PRIu64 " ns)",
                         s->slice_ns, (int)tid, cur);
}

static bool nice_changed(const SchedState *now, const SchedState *expected)
{
        return now->nice != expected->nice;
}

static void nice_take(SchedState *dst, const SchedState *src)
{
        dst->nice = src->nice;
}

static int nice_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                      char **ret_why)
{
        if (s->nice >= ref->nice)
                return 0;
        return boost_why(ret_why, "Nice=%d would lower the nice value of tid %d (currently %d)",
                         s->nice, (int)tid, ref->nice);
}

static bool policy_changed(const SchedState *now, const SchedState *expected)
{
        return now->policy != expected->policy || now->priority != expected->priority;
}

static void policy_take(SchedState *dst, const SchedState *src)
{
        dst->policy = src->policy;
        dst->priority = src->priority;
}

/* other < batch < idle: what any task may move to; -1 for the others. */
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

static int policy_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                        char **ret_why)
{
        if (policy_rank(s->policy) >= policy_rank(ref->policy))
                return 0;
        return boost_why(ret_why, "Policy=%s would leave policy %s of tid %d",
                         strna(sched_policy_to_string(s->policy)),
                         strna(sched_policy_to_string(ref->policy)), (int)tid);
}

/* RealtimePriority: a value for Policy=rr|fifo, written with it (the fair
 * writer's). Any priority is above the none of every fair thread. */
static bool rt_priority_changed(const SchedState *now, const SchedState *expected)
{
        return now->priority != expected->priority;
}

static void rt_priority_take(SchedState *dst, const SchedState *src)
{
        dst->priority = src->priority;
}

static int rt_priority_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                             char **ret_why)
{
        if ((uint32_t)s->rt_priority <= ref->priority)
                return 0;
        return boost_why(ret_why,
                         "RealtimePriority=%d would raise the real-time priority of tid %d "
                         "(currently %u)",
                         s->rt_priority, (int)tid, ref->priority);
}

/* ---- UtilMin, UtilMax: one sched_setattr() ------------------------------- */

static int uclamp_write(const AttrIo *io, const SchedState *before, const Settings *s,
                        uint32_t mask)
{
        bool has_min = mask & SETTING_BIT(SETTING_UTIL_MIN);
        bool has_max = mask & SETTING_BIT(SETTING_UTIL_MAX);

        return uclamp_set(io->k, io->tid, has_min, has_min ? s->util_min : before->util_min,
                          has_max, has_max ? s->util_max : before->util_max);
}

static int uclamp_restore(const AttrIo *io, const SchedState *orig, uint32_t mask)
{
        return uclamp_set(io->k, io->tid, mask & SETTING_BIT(SETTING_UTIL_MIN), orig->util_min,
                          mask & SETTING_BIT(SETTING_UTIL_MAX), orig->util_max);
}

static bool util_min_changed(const SchedState *now, const SchedState *expected)
{
        return now->util_min != expected->util_min;
}

static void util_min_take(SchedState *dst, const SchedState *src)
{
        dst->util_min = src->util_min;
}

static int util_min_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                          char **ret_why)
{
        if (s->util_min <= ref->util_min)
                return 0;
        return boost_why(ret_why,
                         "UtilMin=%u would raise the utilization boost of tid %d (currently %u)",
                         s->util_min, (int)tid, ref->util_min);
}

static bool util_max_changed(const SchedState *now, const SchedState *expected)
{
        return now->util_max != expected->util_max;
}

static void util_max_take(SchedState *dst, const SchedState *src)
{
        dst->util_max = src->util_max;
}

static int util_max_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                          char **ret_why)
{
        if (s->util_max <= ref->util_max)
                return 0;
        return boost_why(ret_why,
                         "UtilMax=%u would raise the utilization cap of tid %d (currently %u)",
                         s->util_max, (int)tid, ref->util_max);
}

/* ---- TimerSlack: PROC_ROOT/TID/timerslack_ns ----------------------------- */

#define TIMER_SLACK_FILE "timerslack_ns"

static int slack_read(const KernelOps *k, const char *proc_root, pid_t tid, uint64_t *ret)
{
        int64_t v;
        int r = k->proc_number_read(proc_root, tid, TIMER_SLACK_FILE, &v);

        if (r < 0)
                return r;
        if (v < 0)
                return -ERANGE;
        *ret = (uint64_t)v;
        return 0;
}

static int slack_write(const KernelOps *k, const char *proc_root, pid_t tid, uint64_t ns)
{
        if (ns > INT64_MAX)
                return -EINVAL;
        return k->proc_number_write(proc_root, tid, TIMER_SLACK_FILE, (int64_t)ns);
}

int timer_slack_read(const char *proc_root, pid_t tid, uint64_t *ret)
{
        return slack_read(&kernel_ops_real, proc_root, tid, ret);
}

int timer_slack_write(const char *proc_root, pid_t tid, uint64_t ns)
{
        return slack_write(&kernel_ops_real, proc_root, tid, ns);
}

static int timer_slack_attr_read(const AttrIo *io, SchedState *st)
{
        int r = slack_read(io->k, io->proc_root, io->tid, &st->timer_slack_ns);

        if (r == -ESRCH)
                return r;
        if (r < 0)
                st->timer_slack_ns = 0;
        return 0;
}

static int timer_slack_attr_write(const AttrIo *io, const SchedState *before, const Settings *s,
                                  uint32_t mask)
{
        if (before->timer_slack_ns == s->timer_slack_ns)
                return 0;
        return slack_write(io->k, io->proc_root, io->tid, s->timer_slack_ns);
}

/* 0 in ORIG: the default. */
static int timer_slack_restore(const AttrIo *io, const SchedState *orig, uint32_t mask)
{
        return slack_write(io->k, io->proc_root, io->tid, orig->timer_slack_ns);
}

/* A real-time thread has no timer slack (the kernel reads it as 0 and
 * ignores a write, 6.7 on), so one latniced granted real time shows none of
 * what it wrote: nothing to tell a change by. Back in the fair class the
 * kernel gives it its default, and latniced's give-back or write follows. */
static bool timer_slack_changed(const SchedState *now, const SchedState *expected)
{
        if (sched_policy_is_rt(now->policy) && sched_policy_is_rt(expected->policy))
                return false;
        return now->timer_slack_ns != expected->timer_slack_ns;
}

static void timer_slack_take(SchedState *dst, const SchedState *src)
{
        dst->timer_slack_ns = src->timer_slack_ns;
}

static void timer_slack_expect(SchedState *expected, const Settings *s)
{
        expected->timer_slack_ns = s->timer_slack_ns;
}

static int timer_slack_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                             char **ret_why)
{
        if (ref->timer_slack_ns == 0 || s->timer_slack_ns >= ref->timer_slack_ns)
                return 0;
        return boost_why(ret_why,
                         "TimerSlack=%" PRIu64 "ns would lower the timer slack of tid %d "
                         "(currently %" PRIu64 " ns)",
                         s->timer_slack_ns, (int)tid, ref->timer_slack_ns);
}

static int timer_slack_show(const SchedState *st, uint64_t *ret_ns, char **ret_text)
{
        *ret_ns = st->timer_slack_ns;
        return st->timer_slack_ns > 0;
}

/* ---- IOClass, IONice: one ioprio_set() ---------------------------------- */

static int ioprio_attr_read(const AttrIo *io, SchedState *st)
{
        int r = io->k->ioprio_get(io->tid, &st->ioprio);

        if (r == -ESRCH)
                return r;
        if (r < 0)
                st->ioprio = 0;
        return 0;
}

/* A level alone keeps the class, a class alone the level (ioprio_compose();
 * a thread without a class takes its level from the nice it is getting). */
static int ioprio_attr_write(const AttrIo *io, const SchedState *before, const Settings *s,
                             uint32_t mask)
{
        int v = ioprio_compose(before->ioprio, io->nice,
                               (mask & SETTING_BIT(SETTING_IO_CLASS)) ? s->io_class : -1,
                               (mask & SETTING_BIT(SETTING_IO_NICE)) ? s->io_nice : -1);

        return v == before->ioprio ? 0 : io->k->ioprio_set(io->tid, v);
}

static int ioprio_attr_restore(const AttrIo *io, const SchedState *orig, uint32_t mask)
{
        return io->k->ioprio_set(io->tid, orig->ioprio);
}

/* One value: a class or a level someone else set makes both theirs. */
static bool ioprio_changed(const SchedState *now, const SchedState *expected)
{
        return now->ioprio != expected->ioprio;
}

static void ioprio_take(SchedState *dst, const SchedState *src)
{
        dst->ioprio = src->ioprio;
}

/* A class of higher rank (realtime over best-effort or none over idle), or
 * a level higher (a smaller number) within best-effort. */
static const int io_class_rank[] = { [LN_IOPRIO_CLASS_NONE] = 1, [LN_IOPRIO_CLASS_RT] = 2,
                                     [LN_IOPRIO_CLASS_BE] = 1, [LN_IOPRIO_CLASS_IDLE] = 0 };

static int io_class_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                          char **ret_why)
{
        int cur = LN_IOPRIO_CLASS(ref->ioprio);

        if ((size_t)cur >= ELEMENTSOF(io_class_rank) || (size_t)s->io_class >= ELEMENTSOF(io_class_rank) ||
            io_class_rank[s->io_class] <= io_class_rank[cur])
                return 0;
        return boost_why(ret_why, "IOClass=%s would raise the I/O class of tid %d (currently %s)",
                         strna(ioprio_class_to_string(s->io_class)), (int)tid,
                         strna(ioprio_class_to_string(cur)));
}

static int io_nice_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                         char **ret_why)
{
        int cur_class = LN_IOPRIO_CLASS(ref->ioprio), cur_level = LN_IOPRIO_LEVEL(ref->ioprio);

        if (cur_class == LN_IOPRIO_CLASS_NONE)
                cur_level = (ref->nice + 20) / 5;
        if (cur_class == LN_IOPRIO_CLASS_IDLE || s->io_nice >= cur_level ||
            (settings_has(s, SETTING_IO_CLASS) && s->io_class == LN_IOPRIO_CLASS_IDLE))
                return 0;
        return boost_why(ret_why, "IONice=%d would raise the I/O priority of tid %d (currently %d)",
                         s->io_nice, (int)tid, cur_level);
}

/* ---- OOMScoreAdj: PROC_ROOT/PID/oom_score_adj, per process --------------- */

#define OOM_FILE "oom_score_adj"

/* For a thread id, the value of its process. */
static int oom_attr_read(const AttrIo *io, SchedState *st)
{
        int64_t v;
        int r = io->k->proc_number_read(io->proc_root, io->tid, OOM_FILE, &v);

        if (r == -ESRCH)
                return r;
        st->oom_score_adj = r >= 0 && v >= OOM_SCORE_ADJ_MIN && v <= OOM_SCORE_ADJ_MAX ? (int)v : 0;
        return 0;
}

static int oom_write(const AttrIo *io, int value)
{
        if (value < OOM_SCORE_ADJ_MIN || value > OOM_SCORE_ADJ_MAX)
                return -EINVAL;
        return io->k->proc_number_write(io->proc_root, io->tid, OOM_FILE, value);
}

static int oom_attr_write(const AttrIo *io, const SchedState *before, const Settings *s,
                          uint32_t mask)
{
        if (before->oom_score_adj == s->oom_score_adj)
                return 0;
        return oom_write(io, s->oom_score_adj);
}

static int oom_attr_restore(const AttrIo *io, const SchedState *orig, uint32_t mask)
{
        return oom_write(io, orig->oom_score_adj);
}

static bool oom_changed(const SchedState *now, const SchedState *expected)
{
        return now->oom_score_adj != expected->oom_score_adj;
}

static void oom_take(SchedState *dst, const SchedState *src)
{
        dst->oom_score_adj = src->oom_score_adj;
}

/* Lowering oom_score_adj needs CAP_SYS_RESOURCE: a lower value shields a
 * task from the OOM killer at others' expense. */
static int oom_boost(const Settings *s, const SchedState *ref, uint64_t base, pid_t tid,
                     char **ret_why)
{
        if (s->oom_score_adj >= ref->oom_score_adj)
                return 0;
        return boost_why(ret_why,
                         "OOMScoreAdj=%d would lower the oom_score_adj of tid %d (currently %d)",
                         s->oom_score_adj, (int)tid, ref->oom_score_adj);
}

/* ---- CoreSched: prctl(PR_SCHED_CORE) cookies ----------------------------- */

static int core_attr_read(const AttrIo *io, SchedState *st)
{
        int r = io->k->core_sched_get(io->tid, &st->core_cookie);

        if (r == -ESRCH)
                return r;
        if (r < 0) /* no core scheduling here (EINVAL, ENODEV): no cookie */
                st->core_cookie = 0;
        return 0;
}

/* none: no cookie; process/rule: the cookie of the source thread, or a new
 * one when there is none or TID is its own source without one. EINVAL and
 * ENODEV (no CONFIG_SCHED_CORE, no SMT): unsupported. */
static int core_attr_write(const AttrIo *io, const SchedState *before, const Settings *s,
                           uint32_t mask)
{
        const KernelOps *k = io->k;
        const pid_t source = io->core_source, tid = io->tid;
        uint64_t want = 0;
        int r;

        if (s->core_sched.mode == CORE_SCHED_NONE)
                r = before->core_cookie == 0 ? 0 : k->core_sched_clear(tid);
        else if (source == tid && before->core_cookie != 0)
                r = 0; /* its own cookie, the caller says so */
        else if (source > 0 && source != tid) {
                r = k->core_sched_get(source, &want);
                if (r >= 0 && (want == 0 || want != before->core_cookie))
                        r = want == 0 ? k->core_sched_create(tid) : k->core_sched_share(source, tid);
        } else
                r = k->core_sched_create(tid);
        return r == -EINVAL || r == -ENODEV ? -EOPNOTSUPP : r;
}

/* The original is no cookie (latniced never takes over one someone else
 * set): take latniced's away. */
static int core_attr_restore(const AttrIo *io, const SchedState *orig, uint32_t mask)
{
        int r;

        if (orig->core_cookie != 0)
                return 0;
        r = io->k->core_sched_clear(io->tid);
        return r == -EINVAL || r == -ENODEV ? -EOPNOTSUPP : r;
}

static bool core_changed(const SchedState *now, const SchedState *expected)
{
        return now->core_cookie != expected->core_cookie;
}

static void core_take(SchedState *dst, const SchedState *src)
{
        dst->core_cookie = src->core_cookie;
}

/* ---- CPUAffinity: sched_setaffinity(), per thread ------------------------ */

/* "cache": the CPUs of the largest last-level cache, or where sysfs
 * describes no cache (some virtual machines) every online CPU. */
static int cpu_affinity_parse(const SettingField *f, const char *v, void *field,
                              char **ret_error, unsigned *ret_column)
{
        CpuAffinitySetting a = { .cache = streq(v, "cache") };
        int r;

        if (a.cache) {
                r = cpu_llc_read(NULL, &a.cpus);
                if (r == -ENOENT)
                        r = cpu_online_read(NULL, &a.cpus);
                if (r < 0) {
                        setting_error(ret_error,
                                      "cache: cannot read the CPU caches or the online CPUs "
                                      "from /sys/devices/system/cpu: %s",
                                      strerror(-r));
                        return -EINVAL;
                }
        } else {
                r = cpu_list_parse(v, &a.cpus, ret_error, ret_column);
                if (r < 0)
                        return r;
        }
        memcpy(field, &a, sizeof(a));
        return 0;
}

static int cpu_affinity_format(const SettingField *f, const void *field, char **ret)
{
        const CpuAffinitySetting *a = field;

        if (a->cache) {
                *ret = strdup("cache");
                return *ret ? 0 : -ENOMEM;
        }
        return cpu_list_format(&a->cpus, ret);
}

static int cpu_affinity_read(const AttrIo *io, SchedState *st)
{
        int r = io->k->affinity_get(io->tid, &st->cpu_affinity);

        if (r == -ESRCH)
                return r;
        if (r < 0)
                CPU_ZERO(&st->cpu_affinity);
        return 0;
}

/* A list with none of the CPUs the thread's cpuset allows (or none online)
 * is the policy's error about this thread, logged; the other attributes
 * still apply. */
static int cpu_affinity_write(const AttrIo *io, const SchedState *before, const Settings *s,
                              uint32_t mask)
{
        _cleanup_free_ char *list = NULL;
        int r;

        if (CPU_EQUAL(&before->cpu_affinity, &s->cpu_affinity.cpus))
                return 0;
        r = io->k->affinity_set(io->tid, &s->cpu_affinity.cpus);
        if (r != -EINVAL)
                return r;
        (void)cpu_list_format(&s->cpu_affinity.cpus, &list);
        log_error("CPUAffinity=%s leaves thread %d no CPU to run on (none of them is online and "
                  "in its cpuset): not applied",
                  strna(list), (int)io->tid);
        return -EOPNOTSUPP;
}

/* An original of no CPU is one never read: nothing to put back. */
static int cpu_affinity_restore(const AttrIo *io, const SchedState *orig, uint32_t mask)
{
        if (CPU_COUNT(&orig->cpu_affinity) == 0)
                return -EOPNOTSUPP;
        return io->k->affinity_set(io->tid, &orig->cpu_affinity);
}

static bool cpu_affinity_changed(const SchedState *now, const SchedState *expected)
{
        return !CPU_EQUAL(&now->cpu_affinity, &expected->cpu_affinity);
}

static void cpu_affinity_take(SchedState *dst, const SchedState *src)
{
        dst->cpu_affinity = src->cpu_affinity;
}

static int cpu_affinity_show(const SchedState *st, uint64_t *ret_ns, char **ret_text)
{
        int r;

        if (CPU_COUNT(&st->cpu_affinity) == 0)
                return 0;
        r = cpu_list_format(&st->cpu_affinity, ret_text);
        return r < 0 ? r : 1;
}

/* ---- The state file ------------------------------------------------------ */

/* The values a setting read back from the state file may have where its
 * field has no range (a named value). */
static bool policy_setting_ok(const Settings *s)
{
        return s->policy >= 0 && s->policy <= 7;
}

static bool rt_priority_setting_ok(const Settings *s)
{
        return s->rt_priority >= 1 && s->rt_priority <= 99;
}

static bool io_class_setting_ok(const Settings *s)
{
        return s->io_class >= 0 && s->io_class <= LN_IOPRIO_CLASS_IDLE;
}

static bool io_nice_setting_ok(const Settings *s)
{
        return s->io_nice >= 0 && s->io_nice <= 7;
}

static bool oom_setting_ok(const Settings *s)
{
        return s->oom_score_adj >= OOM_SCORE_ADJ_MIN && s->oom_score_adj <= OOM_SCORE_ADJ_MAX;
}

static bool core_setting_ok(const Settings *s)
{
        return s->core_sched.mode >= 0 && s->core_sched.mode < _CORE_SCHED_MAX &&
               s->core_sched.zero == 0;
}

static bool cpu_affinity_setting_ok(const Settings *s)
{
        return s->cpu_affinity.cache <= 1 && s->cpu_affinity.zero == 0;
}

/* IOClass and IONice share the raw ioprio: both entries hold it, a value
 * of a known class (0..3 in bits 13..15). */
#define IOPRIO_STATE                                                                           \
        ATTR_STATE_INT(ioprio, 0, LN_IOPRIO_VALUE(LN_IOPRIO_CLASS_IDLE + 1, 0) - 1)

/* ---- The registry -------------------------------------------------------- */

#define FIELD(member) SETTING_FIELD_AT(member)
#define UCLAMP_GROUP (SETTING_BIT(SETTING_UTIL_MIN) | SETTING_BIT(SETTING_UTIL_MAX))

static const TaskAttr task_attrs[] = {
        {
                .id = SETTING_LATENCY_NICE,
                .field = { "LatencyNice", 'i', FIELD(latency_nice), setting_parse_int_field,
                           setting_format_int_field, -20, 19, NULL },
                .help = "-20..19",
                .group = SETTING_BIT(SETTING_LATENCY_NICE),
                .cpu = true,
                .write = latency_nice_write,
                .restore = latency_nice_restore,
                .changed = latency_nice_changed,
                .take = latency_nice_take,
                .boost = latency_nice_boost,
                .state = { 4, 1, { ATTR_STATE_INT(latency_nice, -20, 19), ATTR_STATE_INT(has_latency_nice, 0, 1) } },
        },
        {
                .id = SETTING_SLICE,
                .field = { "Slice", 't', FIELD(slice_ns), setting_parse_duration_field,
                           setting_format_duration_field, 100 * NSEC_PER_USEC,
                           100 * NSEC_PER_MSEC, "0.1ms..100ms" },
                .help = "0.1ms..100ms",
                .group = ATTR_GROUP_FAIR,
                .cpu = true,
                .changed = slice_changed,
                .take = slice_take,
                .boost = slice_boost,
                .state = { 3, 1, { ATTR_STATE_INT(slice_ns, 0, 0), ATTR_STATE_INT(custom_slice, 0, 1) } },
        },
        {
                .id = SETTING_NICE,
                .field = { "Nice", 'i', FIELD(nice), setting_parse_int_field,
                           setting_format_int_field, -20, 19, NULL },
                .help = "-20..19",
                .group = ATTR_GROUP_FAIR,
                .cpu = true,
                .changed = nice_changed,
                .take = nice_take,
                .boost = nice_boost,
                .state = { 2, 1, { ATTR_STATE_INT(nice, -20, 19) } },
        },
        {
                .id = SETTING_POLICY,
                .field = { "Policy", 's', FIELD(policy), setting_parse_policy_field,
                           setting_format_policy_field, 0, 0, NULL, sched_policy_to_string },
                .help = "other|batch|idle|rr|fifo",
                .group = ATTR_GROUP_FAIR,
                .cpu = true,
                .changed = policy_changed,
                .take = policy_take,
                .boost = policy_boost,
                .state = { 1, 1, { ATTR_STATE_INT(policy, 0, 7), ATTR_STATE_INT(priority, 0, 0), ATTR_STATE_INT(flags, 0, 0) },
                           policy_setting_ok },
        },
        {
                .id = SETTING_UTIL_MIN,
                .field = { "UtilMin", 'u', FIELD(util_min), setting_parse_util_field,
                           setting_format_util_field, 0, 1024, NULL },
                .help = "0..1024 or N%",
                .group = UCLAMP_GROUP,
                .cpu = true,
                .write = uclamp_write,
                .restore = uclamp_restore,
                .changed = util_min_changed,
                .take = util_min_take,
                .boost = util_min_boost,
                .state = { 5, 1, { ATTR_STATE_INT(util_min, 0, 1024) } },
        },
        {
                .id = SETTING_UTIL_MAX,
                .field = { "UtilMax", 'u', FIELD(util_max), setting_parse_util_field,
                           setting_format_util_field, 0, 1024, NULL },
                .help = "0..1024 or N%",
                .group = UCLAMP_GROUP,
                .cpu = true,
                .write = uclamp_write,
                .restore = uclamp_restore,
                .changed = util_max_changed,
                .take = util_max_take,
                .boost = util_max_boost,
                .state = { 6, 1, { ATTR_STATE_INT(util_max, 0, 1024) } },
        },
        {
                .id = SETTING_TIMER_SLACK,
                .field = { "TimerSlack", 't', FIELD(timer_slack_ns), setting_parse_duration_field,
                           setting_format_duration_field, 1, 100 * NSEC_PER_MSEC, "1ns..100ms" },
                .help = "1ns..100ms",
                .group = SETTING_BIT(SETTING_TIMER_SLACK),
                .cpu = true,
                .read = timer_slack_attr_read,
                .in_full_read = true,
                .write = timer_slack_attr_write,
                .restore = timer_slack_restore,
                .changed = timer_slack_changed,
                .take = timer_slack_take,
                .expect = timer_slack_expect,
                .boost = timer_slack_boost,
                .show = ATTR_SHOW_DURATION,
                .show_column = "SLACK",
                .show_key = "timer_slack_ns",
                .show_value = timer_slack_show,
                .state = { 7, 1, { ATTR_STATE_INT(timer_slack_ns, 0, 0) } },
        },
        {
                .id = SETTING_IO_CLASS,
                .field = { "IOClass", 's', FIELD(io_class), setting_parse_io_class_field,
                           setting_format_io_class_field, 0, 0, NULL, ioprio_class_to_string },
                .help = "realtime|best-effort|idle",
                .group = SETTINGS_IO_MASK,
                .read = ioprio_attr_read,
                .in_full_read = true,
                .write = ioprio_attr_write,
                .restore = ioprio_attr_restore,
                .changed = ioprio_changed,
                .take = ioprio_take,
                .boost = io_class_boost,
                .state = { 8, 1, { IOPRIO_STATE }, io_class_setting_ok },
        },
        {
                .id = SETTING_IO_NICE,
                .field = { "IONice", 'i', FIELD(io_nice), setting_parse_int_field,
                           setting_format_int_field, 0, 7, NULL },
                .help = "0..7",
                .group = SETTINGS_IO_MASK,
                .read = ioprio_attr_read,
                .in_full_read = true,
                .write = ioprio_attr_write,
                .restore = ioprio_attr_restore,
                .changed = ioprio_changed,
                .take = ioprio_take,
                .boost = io_nice_boost,
                .state = { 9, 1, { IOPRIO_STATE }, io_nice_setting_ok },
        },
        {
                .id = SETTING_OOM_SCORE_ADJ,
                .field = { "OOMScoreAdj", 'i', FIELD(oom_score_adj), setting_parse_int_field,
                           setting_format_int_field, OOM_SCORE_ADJ_MIN, OOM_SCORE_ADJ_MAX, NULL },
                .help = "-1000..1000",
                .group = SETTING_BIT(SETTING_OOM_SCORE_ADJ),
                .per_process = true,
                .read = oom_attr_read,
                .in_full_read = true,
                .write = oom_attr_write,
                .restore = oom_attr_restore,
                .changed = oom_changed,
                .take = oom_take,
                .boost = oom_boost,
                .state = { 10, 1, { ATTR_STATE_INT(oom_score_adj, OOM_SCORE_ADJ_MIN, OOM_SCORE_ADJ_MAX) },
                           oom_setting_ok },
        },
        {
                .id = SETTING_CORE_SCHED,
                .field = { "CoreSched", 's', FIELD(core_sched), setting_parse_core_sched_field,
                           setting_format_core_sched_field, 0, 0, NULL,
                           core_sched_mode_to_string },
                .help = "process|rule|none",
                .group = SETTING_BIT(SETTING_CORE_SCHED),
                .cpu = true,
                .read = core_attr_read,
                .write = core_attr_write,
                .restore = core_attr_restore,
                .changed = core_changed,
                .take = core_take,
                .state = { 11, 1, { ATTR_STATE_INT(core_cookie, 0, 0) }, core_setting_ok },
        },
        {
                /* Never a boost: pinning only narrows the CPUs a task may
                 * use, which any task may do to itself. */
                .id = SETTING_CPU_AFFINITY,
                .field = { "CPUAffinity", 's', FIELD(cpu_affinity), cpu_affinity_parse,
                           cpu_affinity_format },
                .help = "0-3,8|cache",
                .group = SETTING_BIT(SETTING_CPU_AFFINITY),
                .read = cpu_affinity_read,
                .in_full_read = true,
                .write = cpu_affinity_write,
                .restore = cpu_affinity_restore,
                .changed = cpu_affinity_changed,
                .take = cpu_affinity_take,
                .show = ATTR_SHOW_TEXT,
                .show_column = "CPUS",
                .show_key = "cpu_affinity",
                .show_value = cpu_affinity_show,
                .state = { 12, 1, { ATTR_STATE_TRIMMED(cpu_affinity) }, cpu_affinity_setting_ok },
        },
        {
                /* With Policy=rr|fifo only; the priority is capped by
                 * latniced.conf's MaxRealtimePriority= (lib/rt-grant.h). */
                .id = SETTING_REALTIME_PRIORITY,
                .field = { "RealtimePriority", 'i', FIELD(rt_priority), setting_parse_int_field,
                           setting_format_int_field, 1, 99, NULL },
                .help = "1..99",
                .group = ATTR_GROUP_FAIR,
                .cpu = true,
                .changed = rt_priority_changed,
                .take = rt_priority_take,
                .boost = rt_priority_boost,
                .state = { 13, 1, { ATTR_STATE_INT(priority, 0, 99) }, rt_priority_setting_ok },
        },
};

const TaskAttr *task_attr(SettingId id)
{
        for (size_t i = 0; i < ELEMENTSOF(task_attrs); i++)
                if (task_attrs[i].id == id)
                        return &task_attrs[i];
        return NULL;
}

const TaskAttr *task_attr_first(void)
{
        return &task_attrs[0];
}

const TaskAttr *task_attr_next(const TaskAttr *a)
{
        return a + 1 < task_attrs + ELEMENTSOF(task_attrs) ? a + 1 : NULL;
}

bool task_attr_valid(const TaskAttr *a, const Settings *s)
{
        const SettingField *f = &a->field;
        const void *v = (const uint8_t *)s + f->offset;
        int64_t x;

        if (f->min == 0 && f->max == 0)
                return true; /* a named value: checked where it is used */
        switch (f->bus_type) {
        case 'i':
                x = *(const int32_t *)v;
                break;
        case 'u':
                x = *(const uint32_t *)v;
                break;
        case 't':
                if (*(const uint64_t *)v > (uint64_t)INT64_MAX)
                        return false;
                x = (int64_t)*(const uint64_t *)v;
                break;
        default:
                return true;
        }
        return x >= f->min && x <= f->max;
}

void task_attr_boost_reference(int nice_floor, SchedState *ret)
{
        *ret = (SchedState){
                .policy = SCHED_OTHER,
                .nice = nice_floor < 0 ? nice_floor : 0,
                .has_latency_nice = true,
                .util_max = 1024,
                /* Best-effort at the highest level: only realtime is above. */
                .ioprio = LN_IOPRIO_VALUE(LN_IOPRIO_CLASS_BE, 0),
        };
}

int task_attr_read(const AttrIo *io, uint32_t mask, SchedState *st)
{
        uint32_t done = 0;
        int r;

        TASK_ATTR_FOREACH(a) {
                if (!a->read || !(mask & SETTING_BIT(a->id)) || (done & SETTING_BIT(a->id)))
                        continue;
                done |= a->group;
                r = a->read(io, st);
                if (r < 0)
                        return r;
        }
        return 0;
}

uint32_t task_attr_extra_mask(bool full_read_only)
{
        uint32_t m = 0;

        TASK_ATTR_FOREACH(a)
                if (a->read && (a->in_full_read || !full_read_only))
                        m |= SETTING_BIT(a->id);
        return m;
}

uint32_t task_attr_process_mask(void)
{
        uint32_t m = 0;

        TASK_ATTR_FOREACH(a)
                if (a->per_process)
                        m |= SETTING_BIT(a->id);
        return m;
}

uint32_t task_attr_cpu_mask(void)
{
        uint32_t m = 0;

        TASK_ATTR_FOREACH(a)
                if (a->cpu)
                        m |= SETTING_BIT(a->id);
        return m;
}
