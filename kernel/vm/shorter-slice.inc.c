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

/* deadline - vruntime of GD_DIR's entity on GD_CPU, and the vruntime SLICE
 * ns of CPU time give it at its weight now (calc_delta_fair()). */
static int gd_gap(uint64_t slice, long long *gap, long long *vslice)
{
        long long d, v, w;
        int r = group_se_field(GD_NAME, GD_CPU, ".se->deadline", true, &d);

        if (r == 0)
                r = group_se_field(GD_NAME, GD_CPU, ".se->vruntime", true, &v);
        if (r == 0)
                r = group_se_field(GD_NAME, GD_CPU, ".se->load.weight", false, &w);
        if (r < 0)
                return r;
        if (w <= 0)
                return -ENODATA;
        *gap = d - v;
        /* NICE_0_LOAD is 1 << 20 in the 64-bit kernel's scaled load. */
        *vslice = (long long) ((double) slice * (double) (1 << 20) / (double) w);
        return 0;
}

/* Wait for GD_DIR's entity to run under a request longer than two base
 * slices (made at latency nice 19, of the group or of its task). */
static int gd_long_request(uint64_t base, int round)
{
        long long gap = 0, v0 = 0, v19 = 0;
        int r = 0;

        for (int i = 0; i < 200; i++) {
                r = gd_gap(base, &gap, &v0);
                if (r == 0 && gap > 2 * v0)
                        break;
                sleep_ms(10);
        }
        CHECK(r == 0, "reading the debug file: %s", strerror(-r));
        CHECK(gap > 2 * v0, "round %d: at 19 the group entity's deadline is only %lld ns of "
              "vruntime ahead (base slice: %lld): no long request to shorten", round, gap, v0);
        (void) gd_gap(expected_slice(base, 19), &gap, &v19);
        note("round %d at 19: deadline - vruntime %lld ns (the slice of 19: %lld)", round, gap,
             v19);
        return 0;
}

/* Right after WHAT gave GD_DIR's entity the slice of -20. */
static int gd_check_short(uint64_t base, int round, const char *what)
{
        long long gap = 0, v20 = 0;
        int r = gd_gap(expected_slice(base, -20), &gap, &v20);

        CHECK(r == 0, "reading the debug file: %s", strerror(-r));
        note("round %d, %s: deadline - vruntime %lld ns (the slice of -20: %lld)", round, what,
             gap, v20);
        /* Twice the slice: the weight read may have changed since. */
        CHECK(gap <= 2 * v20, "round %d: after %s the group entity's deadline is %lld ns of "
              "vruntime ahead, more than twice the %lld the slice of -20 gives: it kept its "
              "request of 19", round, what, gap, v20);
        return 0;
}

static int gd_round(uint64_t base, int round)
{
        int r = write_ll(GD_DIR "/cpu.latency.nice", 19);

        CHECK(r == 0, "write 19: %s", strerror(-r));
        if (gd_long_request(base, round) != 0)
                return 1;
        r = write_ll(GD_DIR "/cpu.latency.nice", -20);
        CHECK(r == 0, "write -20: %s", strerror(-r));
        return gd_check_short(base, round, "the write of -20");
}

static int test_group_write_deadline(void)
{
        pid_t hog, other;
        uint64_t base;
        int r, ret = 0;

        CHECK(read_base_slice(&base) == 0, "base slice");
        r = groups_cpu_controller();
        CHECK(r == 0, "enable +cpu: %s", strerror(-r));
        if (mkdir(GD_DIR, 0755) < 0 && errno != EEXIST)
                CHECK(false, "mkdir: %m");
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
                ret = gd_round(base, round);
        kill_wait(hog);
        kill_wait(other);
        (void) write_ll(GD_DIR "/cpu.latency.nice", 0);
        remove_group(GD_DIR);
        return ret;
}

/* vruntime and deadline of PID, from its line in the debug file's task list. */
static int debug_task_deadline(pid_t pid, long long *vruntime, long long *deadline)
{
        char pidstr[16], *s, *line, *save = NULL;
        int r = -ENOENT;

        snprintf(pidstr, sizeof(pidstr), "%d", (int) pid);
        if (read_file(DEBUGFS "/sched/debug", &s) < 0)
                return -errno;
        for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *tok[8], *save2 = NULL;
                long long v[2];
                int n = 0;

                for (char *t = strtok_r(line, " ", &save2); t && n < 8; t = strtok_r(NULL, " ", &save2))
                        tok[n++] = t;
                /* state comm PID vruntime E|N deadline ... */
                if (n < 6 || strcmp(tok[2], pidstr) != 0)
                        continue;
                r = 0;
                for (int i = 0; i < 2; i++) {
                        const char *f = tok[i ? 5 : 3];
                        bool neg = *f == '-';
                        long long ms;
                        long frac;

                        if (sscanf(f + neg, "%lld.%ld", &ms, &frac) != 2)
                                r = -ENODATA;
                        else
                                v[i] = (neg ? -1 : 1) * (ms * 1000000LL + frac);
                }
                if (r == 0) {
                        *vruntime = v[0];
                        *deadline = v[1];
                }
                break;
        }
        free(s);
        return r;
}

/* A hog at latency nice 19 beside another on CPU 1 (both nice 0: a
 * vruntime ns is a ns of CPU time), then at -20: GD_ROUNDS times. */
static int test_task_write_deadline(void)
{
        long long v = 0, d = 0;
        pid_t hog, other;
        uint64_t base;
        int r, ret = 0;

        CHECK(read_base_slice(&base) == 0, "base slice");
        hog = spawn_hog(GD_CPU, 0);
        other = spawn_hog(GD_CPU, 0);
        r = hog < 0 || other < 0 ? -EAGAIN : (set_ln(other, 0) < 0 ? -errno : 0);
        for (int round = 0; r == 0 && ret == 0 && round < GD_ROUNDS; round++) {
                long long w19 = (long long) expected_slice(base, 19);
                long long w20 = (long long) expected_slice(base, -20);

                r = set_ln(hog, 19) < 0 ? -errno : 0;
                /* Wait for a request made at 19: further ahead than 2 base slices. */
                for (int i = 0; r == 0 && i < 200; i++) {
                        r = debug_task_deadline(hog, &v, &d);
                        if (r == 0 && d - v > 2 * (long long) base)
                                break;
                        sleep_ms(10);
                }
                if (r < 0)
                        break;
                if (d - v <= 2 * (long long) base) {
                        note("round %d: at 19 the deadline is only %lld ns ahead of vruntime "
                             "(base slice %" PRIu64 "): no long request to shorten", round,
                             d - v, base);
                        ret = 1;
                        break;
                }
                note("round %d at 19: deadline - vruntime %lld ns (the slice of 19: %lld)",
                     round, d - v, w19);
                r = set_ln(hog, -20) < 0 ? -errno : 0;
                if (r == 0)
                        r = debug_task_deadline(hog, &v, &d);
                if (r < 0)
                        break;
                note("round %d at -20: deadline - vruntime %lld ns (the slice of -20: %lld)",
                     round, d - v, w20);
                if (d - v > 2 * w20) {
                        note("round %d: after setting -20 the task's deadline is %lld ns ahead "
                             "of its vruntime, more than twice the %lld of its slice: it kept "
                             "its request of 19", round, d - v, w20);
                        ret = 1;
                }
        }
        if (r < 0) {
                note("task-write-deadline: %s", strerror(-r));
                ret = 1;
        }
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

        CHECK(read_base_slice(&base) == 0, "base slice");
        r = groups_cpu_controller();
        CHECK(r == 0, "enable +cpu: %s", strerror(-r));
        if (mkdir(GD_DIR, 0755) < 0 && errno != EEXIST)
                CHECK(false, "mkdir: %m");
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
                ret = gd_long_request(base, round);
                if (ret == 0) {
                        r = move_to_group(GD_DIR, shorty);
                        ret = r < 0 ? 1 : gd_check_short(base, round, "the enqueue at -20");
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
