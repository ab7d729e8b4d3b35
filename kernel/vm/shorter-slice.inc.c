/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A shorter slice takes effect at once (included by latnice-vm-test.c): a
 * queued entity whose request gets shorter gets the deadline of the new
 * request, not only the slice.
 *
 * group-write-deadline: a cpu.latency.nice write from 19 to -20 on a group
 * whose entity is queued with the long request of 19 leaves it a deadline
 * no further ahead of its vruntime than the -20 slice gives, read back from
 * the scheduler debug file (se->deadline, se->vruntime, se->load.weight).
 * task-write-deadline: the same for a task's latency nice, which
 * sched_setattr() changes with the task off the runqueue, keeping its
 * deadline relative to its vruntime (the task's line in the debug file).
 * Without the new deadline either keeps the request of 19 (95 ms of CPU
 * time at the 1.4 ms base slice) until it has used that up; the tests read
 * it a few milliseconds after the write. The wake-up side of the same
 * mechanism is wakeup-busy-group (when-not-how-much.inc.c).
 */

#define GD_NAME "/lnwd"
#define GD_DIR CGROUP2 GD_NAME
#define GD_CPU 1
#define GD_ROUNDS 3

/* deadline - vruntime of what the deadline tests look at, the task PID (at
 * nice 0: a vruntime ns is a ns of CPU time) or, PID 0, GD_DIR's entity on
 * GD_CPU, and the vruntime SLICE ns of CPU time give it at its weight now
 * (calc_delta_fair()). */
static int gd_gap(pid_t pid, uint64_t slice, long long *gap, long long *vslice)
{
        /* NICE_0_LOAD: 1 << 20 in the 64-bit kernel's scaled load. */
        long long d, v, w = 1 << 20;
        int r;

        if (pid > 0)
                r = debug_task_times(pid, &v, &d, NULL);
        else {
                r = group_se_field(GD_NAME, GD_CPU, ".se->deadline", true, &d);
                if (r == 0)
                        r = group_se_field(GD_NAME, GD_CPU, ".se->vruntime", true, &v);
                if (r == 0)
                        r = group_se_field(GD_NAME, GD_CPU, ".se->load.weight", false, &w);
        }
        if (r < 0)
                return r;
        if (w <= 0)
                return -ENODATA;
        *gap = d - v;
        *vslice = (long long) ((double) slice * (double) (1 << 20) / (double) w);
        return 0;
}

static const char *gd_what(pid_t pid)
{
        return pid > 0 ? "the task's" : "the group entity's";
}

/* Wait for the task PID (or, PID 0, GD_DIR's entity) to run under a request
 * longer than two base slices (made at latency nice 19, of the group or of
 * its task). */
static int gd_long_request(pid_t pid, uint64_t base, int round)
{
        long long gap = 0, v0 = 0, v19 = 0;
        int r = 0;

        for (int i = 0; i < 200; i++) {
                r = gd_gap(pid, base, &gap, &v0);
                if (r == 0 && gap > 2 * v0)
                        break;
                sleep_ms(10);
        }
        CHECK(r == 0, "reading the debug file: %s", strerror(-r));
        CHECK(gap > 2 * v0, "round %d: at 19 %s deadline is only %lld ns of vruntime ahead "
              "(base slice: %lld): no long request to shorten", round, gd_what(pid), gap, v0);
        (void) gd_gap(pid, expected_slice(base, 19), &gap, &v19);
        note("round %d at 19: deadline - vruntime %lld ns (the slice of 19: %lld)", round, gap,
             v19);
        return 0;
}

/* Right after WHAT gave the task PID (or, PID 0, GD_DIR's entity) the
 * slice of -20. */
static int gd_check_short(pid_t pid, uint64_t base, int round, const char *what)
{
        long long gap = 0, v20 = 0;
        int r = gd_gap(pid, expected_slice(base, -20), &gap, &v20);

        CHECK(r == 0, "reading the debug file: %s", strerror(-r));
        note("round %d, %s: deadline - vruntime %lld ns (the slice of -20: %lld)", round, what,
             gap, v20);
        /* Twice the slice: the weight read may have changed since. */
        CHECK(gap <= 2 * v20, "round %d: after %s %s deadline is %lld ns of vruntime ahead, "
              "more than twice the %lld the slice of -20 gives: it kept its request of 19",
              round, what, gd_what(pid), gap, v20);
        return 0;
}

/* One round: latency nice 19, then -20, of the task PID (set_ln()) or,
 * PID 0, of GD_DIR (its cpu.latency.nice). */
static int gd_round(pid_t pid, uint64_t base, int round)
{
        int r = pid > 0 ? (set_ln(pid, 19) < 0 ? -errno : 0)
                        : write_ll(GD_DIR "/cpu.latency.nice", 19);

        CHECK(r == 0, "set 19: %s", strerror(-r));
        if (gd_long_request(pid, base, round) != 0)
                return 1;
        r = pid > 0 ? (set_ln(pid, -20) < 0 ? -errno : 0)
                    : write_ll(GD_DIR "/cpu.latency.nice", -20);
        CHECK(r == 0, "set -20: %s", strerror(-r));
        return gd_check_short(pid, base, round,
                              pid > 0 ? "setting -20" : "the write of -20");
}

/* The base slice, and GD_DIR made with the cpu controller. */
static int gd_group_begin(uint64_t *base)
{
        int r;

        CHECK(read_base_slice(base) == 0, "base slice");
        r = groups_cpu_controller();
        CHECK(r == 0, "enable +cpu: %s", strerror(-r));
        if (mkdir(GD_DIR, 0755) < 0 && errno != EEXIST)
                CHECK(false, "mkdir: %m");
        return 0;
}

static int test_group_write_deadline(void)
{
        pid_t hog, other;
        uint64_t base;
        int r, ret = 0;

        if (gd_group_begin(&base) != 0)
                return 1;
        /* The group's hog and one in the root, both on GD_CPU: the group
         * entity is sometimes running, sometimes queued at the write. */
        hog = spawn_hog(GD_CPU, 0);
        other = spawn_hog(GD_CPU, 0);
        r = hog < 0 || other < 0 ? -EAGAIN : move_to_group(GD_DIR, hog);
        if (r == 0)
                r = set_ln(hog, 0) < 0 || set_ln(other, 0) < 0 ? -errno : 0;
        if (r < 0) {
                note("setting up: %s", strerror(-r));
                ret = 1;
        }
        for (int round = 0; ret == 0 && round < GD_ROUNDS; round++)
                ret = gd_round(0, base, round);
        kill_wait(hog);
        kill_wait(other);
        (void) write_ll(GD_DIR "/cpu.latency.nice", 0);
        remove_group(GD_DIR);
        return ret;
}

/* A hog at latency nice 19 beside another on CPU 1 (both nice 0: a
 * vruntime ns is a ns of CPU time), then at -20: GD_ROUNDS times. */
static int test_task_write_deadline(void)
{
        pid_t hog, other;
        uint64_t base;
        int r, ret = 0;

        CHECK(read_base_slice(&base) == 0, "base slice");
        hog = spawn_hog(GD_CPU, 0);
        other = spawn_hog(GD_CPU, 0);
        r = hog < 0 || other < 0 ? -EAGAIN : (set_ln(other, 0) < 0 ? -errno : 0);
        if (r < 0) {
                note("setting up: %s", strerror(-r));
                ret = 1;
        }
        for (int round = 0; ret == 0 && round < GD_ROUNDS; round++)
                ret = gd_round(hog, base, round);
        kill_wait(hog);
        kill_wait(other);
        return ret;
}

/*
 * group-enqueue-deadline: the group's hog at latency nice 19 keeps its
 * entity queued with the request of 19; a second hog at latency nice -20,
 * moved into the group, is enqueued below the queued entity (the path of a
 * task waking in a busy group) and gives it the slice of -20, and with the
 * fix its deadline.
 */
static int test_group_enqueue_deadline(void)
{
        pid_t hog, other, shorty;
        uint64_t base;
        int r, ret = 0;

        if (gd_group_begin(&base) != 0)
                return 1;
        hog = spawn_hog(GD_CPU, 0);
        other = spawn_hog(GD_CPU, 0);
        shorty = spawn_hog(GD_CPU, 0);
        r = hog < 0 || other < 0 || shorty < 0 ? -EAGAIN : move_to_group(GD_DIR, hog);
        if (r == 0)
                r = set_ln(hog, 19) < 0 || set_ln(other, 0) < 0 || set_ln(shorty, -20) < 0 ?
                            -errno : 0;
        if (r < 0) {
                note("setting up: %s", strerror(-r));
                ret = 1;
        }
        for (int round = 0; ret == 0 && round < GD_ROUNDS; round++) {
                ret = gd_long_request(0, base, round);
                if (ret == 0) {
                        r = move_to_group(GD_DIR, shorty);
                        ret = r < 0 ? 1 : gd_check_short(0, base, round, "the enqueue at -20");
                }
                if (ret == 0 && move_to_group(CGROUP2, shorty) < 0)
                        ret = 1;
        }
        kill_wait(shorty);
        kill_wait(hog);
        kill_wait(other);
        remove_group(GD_DIR);
        return ret;
}
