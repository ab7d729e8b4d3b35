/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/bus-auth: who may change what, on plain data (no bus, no /proc). */
#include <sched.h>
#include <string.h>

#include "daemon/bus/bus-auth.h"
#include "lib/latency-slice.h"
#include "lib/macro.h"
#include "lib/settings.h"
#include "tests/unit/test-util.h"

#define BASE 3000000ull /* a base slice of 3 ms */

static const BusCaller root = { .uid = 0, .privileged = true };
/* CAP_SYS_NICE that the bus itself reported */
static const BusCaller capable = { .uid = 1000, .privileged = true };
static const BusCaller user = { .uid = 1000, .privileged = false };

/* A thread as a user's process has it: SCHED_OTHER, nice 0, base slice. */
static SchedState plain(void)
{
        return (SchedState){ .policy = SCHED_OTHER, .nice = 0, .slice_ns = BASE,
                             .util_min = 0, .util_max = 1024, .timer_slack_ns = 50000,
                             .has_latency_nice = true, .latency_nice = 0 };
}

static Settings parse(const char *key, const char *value)
{
        Settings s = {};
        char *msg = NULL;
        SettingId id = setting_from_string(key);

        CHECK(id >= 0);
        CHECK(settings_parse(&s, id, value, &msg, NULL) == 0);
        return s;
}

/* The verdict for USER (or CALLER) applying KEY=VALUE to one thread in ST,
 * in a process of uid OWNER; *ret_why as bus_auth_set_task() gives it. */
static int verdict(const BusCaller *caller, uid_t owner, SchedState st, const char *key,
                   const char *value, char **ret_why)
{
        pid_t tids[] = { 4242 };
        SetTaskTarget t = { .pid = 4242, .uid = owner, .comm = "x", .n_threads = 1,
                            .tids = tids, .states = &st };
        Settings s = parse(key, value);

        *ret_why = NULL;
        return bus_auth_set_task(caller, &t, &s, BASE, ret_why);
}

#define ALLOWED(caller, owner, st, key, value)                                             \
        do {                                                                               \
                _cleanup_free_ char *_why = NULL;                                          \
                int _r = verdict(caller, owner, st, key, value, &_why);                    \
                if (_r != 0)                                                               \
                        test_fail("%s=%s refused (%d): %s", key, value, _r, strna(_why));   \
        } while (0)

#define DENIED(caller, owner, st, key, value, want)                                        \
        do {                                                                               \
                _cleanup_free_ char *_why = NULL;                                          \
                int _r = verdict(caller, owner, st, key, value, &_why);                    \
                if (_r != -EACCES)                                                         \
                        test_fail("%s=%s allowed (%d)", key, value, _r);                    \
                else if (!_why || !strstr(_why, want))                                     \
                        test_fail("%s=%s: \"%s\" does not say \"%s\"", key, value,          \
                                  strna(_why), want);                                      \
        } while (0)

static void test_privileged(void)
{
        _cleanup_free_ char *why = NULL;
        SchedState st = plain();

        check(bus_auth_privileged(&root, "Reload", &why) == 0 && !why);
        check(bus_auth_privileged(&capable, "SetUnit", &why) == 0 && !why);
        check(bus_auth_privileged(&user, "Reload", &why) == -EACCES);
        check_streq(why, "Reload needs root (the bus reports caller uid 1000)");

        /* root and CAP_SYS_NICE: anything, on anyone's process */
        ALLOWED(&root, 0, st, "LatencyNice", "-20");
        ALLOWED(&capable, 0, st, "Nice", "-20");
        ALLOWED(&capable, 1000, st, "Slice", "100us");
}

/* The caller from what sd-bus returned: only fields the bus vouches for. */
static void test_from_creds(void)
{
        _cleanup_free_ char *why = NULL;
        BusCaller c = { .uid = 4242, .privileged = true };
        BusCreds bus_root = { .has_euid = true, .euid = 0 };
        BusCreds bus_user = { .has_euid = true, .euid = 65534 };
        BusCreds proc_caps = bus_user, bus_caps = bus_user, proc_uid = bus_root, none = {};

        check(bus_caller_from_creds(&bus_root, 0, &c, &why) == 0 && !why);
        check(c.uid == 0 && c.privileged);
        check(bus_caller_from_creds(&bus_user, 0, &c, &why) == 0);
        check(c.uid == 65534 && !c.privileged);
        /* latniced's own uid is privileged (as for sd_bus_query_sender_privilege()) */
        check(bus_caller_from_creds(&bus_user, 65534, &c, &why) == 0 && c.privileged);

        /* CAP_SYS_NICE read from /proc/PID of a pid that may be reused: none */
        proc_caps.has_caps = proc_caps.caps_augmented = proc_caps.cap_sys_nice = true;
        check(bus_caller_from_creds(&proc_caps, 0, &c, &why) == 0);
        check(c.uid == 65534 && !c.privileged);
        /* a bus that reports capabilities itself: they count */
        bus_caps.has_caps = bus_caps.cap_sys_nice = true;
        check(bus_caller_from_creds(&bus_caps, 0, &c, &why) == 0 && c.privileged);
        bus_caps.cap_sys_nice = false;
        check(bus_caller_from_creds(&bus_caps, 0, &c, &why) == 0 && !c.privileged);

        /* a uid only /proc gave, or none: refused, *ret untouched */
        c = (BusCaller){ .uid = 4242 };
        proc_uid.euid_augmented = true;
        check(bus_caller_from_creds(&proc_uid, 0, &c, &why) == -EPERM);
        check(c.uid == 4242 && !c.privileged);
        check_streq(why, "The bus did not report the caller's user (only /proc did); latniced "
                         "does not take it from /proc");
        free(why);
        why = NULL;
        check(bus_caller_from_creds(&none, 0, &c, &why) == -EPERM);
        check(why && strstr(why, "(none given)"));
}

static void test_other_users_process(void)
{
        SchedState st = plain();

        /* in either direction */
        DENIED(&user, 0, st, "LatencyNice", "-5", "refused: it belongs to uid 0, not to the "
                                                   "caller (uid 1000)");
        DENIED(&user, 1001, st, "Nice", "19", "it belongs to uid 1001");
}

static void test_own_process(void)
{
        SchedState st = plain(), batch = plain(), idle = plain(), custom = plain(),
                   no_ln = plain(), boosted = plain();

        ALLOWED(&user, 1000, st, "Nice", "5");
        ALLOWED(&user, 1000, st, "Nice", "0");
        DENIED(&user, 1000, st, "Nice", "-1", "Nice=-1 would lower the nice value of tid 4242 "
                                              "(currently 0)");
        ALLOWED(&user, 1000, st, "LatencyNice", "5");
        DENIED(&user, 1000, st, "LatencyNice", "-5", "would lower latency nice of tid 4242");
        ALLOWED(&user, 1000, st, "Slice", "6ms");
        DENIED(&user, 1000, st, "Slice", "1ms", "would shorten the slice of tid 4242");
        ALLOWED(&user, 1000, st, "TimerSlack", "1ms");
        DENIED(&user, 1000, st, "TimerSlack", "1us", "would lower the timer slack");
        ALLOWED(&user, 1000, st, "UtilMax", "512");
        DENIED(&user, 1000, st, "UtilMin", "100", "would raise the utilization boost");

        /* policies: other < batch < idle */
        ALLOWED(&user, 1000, st, "Policy", "batch");
        ALLOWED(&user, 1000, st, "Policy", "idle");
        batch.policy = SCHED_BATCH;
        DENIED(&user, 1000, batch, "Policy", "other", "Policy=other would leave policy batch");
        idle.policy = SCHED_IDLE;
        DENIED(&user, 1000, idle, "Policy", "batch", "would leave policy idle");

        /* utilization: a lowered cap may not be raised again */
        boosted.util_max = 512;
        DENIED(&user, 1000, boosted, "UtilMax", "1024", "would raise the utilization cap");

        /* without the latency-nice syscall: 0 is the default, below is a boost;
         * a LatencyNice that would shorten a custom slice is refused */
        no_ln.has_latency_nice = false;
        ALLOWED(&user, 1000, no_ln, "LatencyNice", "0");
        DENIED(&user, 1000, no_ln, "LatencyNice", "-1", "below the default 0");
        custom.has_latency_nice = false;
        custom.custom_slice = true;
        custom.slice_ns = 20000000; /* 20 ms */
        check(latency_nice_to_slice(5, BASE) < custom.slice_ns);
        DENIED(&user, 1000, custom, "LatencyNice", "5", "would shorten the custom slice");
}

/* I/O class and level, oom_score_adj: down only, for an unprivileged caller. */
static void test_io_oom(void)
{
        SchedState st = plain(), be6 = plain(), idle = plain(), rt = plain();

        /* no class yet: best-effort at the level of nice 0, 4 */
        ALLOWED(&user, 1000, st, "IOClass", "idle");
        ALLOWED(&user, 1000, st, "IOClass", "best-effort");
        DENIED(&user, 1000, st, "IOClass", "realtime",
               "IOClass=realtime would raise the I/O class of tid 4242 (currently none)");
        ALLOWED(&user, 1000, st, "IONice", "7");
        ALLOWED(&user, 1000, st, "IONice", "4");
        DENIED(&user, 1000, st, "IONice", "3",
               "IONice=3 would raise the I/O priority of tid 4242 (currently 4)");
        be6.ioprio = 2 << 13 | 6;
        DENIED(&user, 1000, be6, "IONice", "5", "(currently 6)");
        idle.ioprio = 3 << 13;
        DENIED(&user, 1000, idle, "IOClass", "best-effort", "(currently idle)");
        ALLOWED(&user, 1000, idle, "IONice", "0"); /* idle has no levels */
        rt.ioprio = 1 << 13 | 4;
        ALLOWED(&user, 1000, rt, "IOClass", "realtime");
        ALLOWED(&user, 1000, rt, "IOClass", "best-effort");

        ALLOWED(&user, 1000, st, "OOMScoreAdj", "0");
        ALLOWED(&user, 1000, st, "OOMScoreAdj", "1000");
        DENIED(&user, 1000, st, "OOMScoreAdj", "-1",
               "OOMScoreAdj=-1 would lower the oom_score_adj of tid 4242 (currently 0)");
        ALLOWED(&root, 0, st, "OOMScoreAdj", "-1000");
        ALLOWED(&capable, 1000, st, "IOClass", "realtime");
}

static void test_every_thread(void)
{
        _cleanup_free_ char *why = NULL;
        SchedState st[3] = { plain(), plain(), plain() };
        pid_t tids[3] = { 100, 101, 102 };
        SetTaskTarget t = { .pid = 100, .uid = 1000, .comm = "x", .n_threads = 3,
                            .tids = tids, .states = st };
        Settings s = parse("Nice", "5");

        check(bus_auth_set_task(&user, &t, &s, BASE, &why) == 0);
        st[2].nice = 10; /* one thread is already nicer: 5 would lower it */
        check(bus_auth_set_task(&user, &t, &s, BASE, &why) == -EACCES);
        check(why && strstr(why, "Setting Nice=5 on pid 100 refused: Nice=5 would lower the "
                                 "nice value of tid 102 (currently 10)"));
        check(why && strstr(why, "a user may only make their own processes less "
                                 "latency-sensitive"));
}

int main(void)
{
        test_privileged();
        test_from_creds();
        test_other_users_process();
        test_own_process();
        test_io_oom();
        test_every_thread();
        return test_result();
}
