/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * slice-vs-runtime (included by latnice-vm-test.c): what the kernel's
 * mapping gives that latniced's user-space emulation cannot. On a kernel
 * without the series latniced emulates latency nice with sched_runtime set
 * to the mapped slice of the base_slice_ns it read at start-up. Two hogs on
 * CPU 1, one at latency nice 5, one at 0 with that sched_runtime: the same
 * se->slice, which is all the scheduler goes by, so every decision the
 * wake-up tests count is the same for both. Then base_slice_ns is doubled
 * (as another CPU count gives at boot, 0.7 ms * (1 + ilog2(min(ncpus, 8))),
 * or an administrator's write): at its next request the first has the
 * slice of 5 at the new base, the second keeps the old slice, a custom one
 * now, until someone sets it again. Printed as LATNICE-VM-RESULT and
 * asserted.
 */

static int test_slice_vs_runtime(void)
{
        uint64_t base, s_ln = 0, s_rt = 0, want;
        struct ln_attr a = { .size = SCHED_ATTR_SIZE_VER0, .sched_policy = SCHED_OTHER };
        pid_t mapped, emulated;
        int r, ret = 0;

        CHECK(read_base_slice(&base) == 0, "base slice");
        want = expected_slice(base, 5);
        mapped = spawn_hog(1, 0);
        emulated = spawn_hog(1, 0);
        CHECK(mapped > 0 && emulated > 0, "fork: %m");
        a.sched_runtime = want;
        r = set_ln(mapped, 5) < 0 || set_ln(emulated, 0) < 0 ? -errno : 0;
        if (r == 0)
                r = sys_setattr(emulated, &a, 0);
        if (r == 0)
                r = slice_of(mapped, &s_ln);
        if (r == 0)
                r = slice_of(emulated, &s_rt);
        if (r < 0 || !slice_near(s_ln, want) || !slice_near(s_rt, want)) {
                note("setting up: %s; slices %" PRIu64 " (latency nice 5) and %" PRIu64
                     " (sched_runtime), expected %" PRIu64, strerror(-r), s_ln, s_rt, want);
                ret = 1;
        }
        printf("LATNICE-VM-RESULT slice-vs-runtime base=%" PRIu64 " latency-nice-5=%" PRIu64
               " sched_runtime=%" PRIu64 "\n", base, s_ln, s_rt);
        if (ret == 0 && (r = write_ll(DEBUGFS "/sched/base_slice_ns", (long long) (2 * base))) < 0) {
                note("write base_slice_ns: %s", strerror(-r));
                ret = 1;
        }
        /* Their next request: a deadline update of a hog every slice. */
        for (int i = 0; ret == 0 && i < 200; i++) {
                if (slice_of(mapped, &s_ln) == 0 && slice_near(s_ln, expected_slice(2 * base, 5)))
                        break;
                sleep_ms(10);
        }
        if (ret == 0 && slice_of(emulated, &s_rt) < 0)
                ret = 1;
        (void) write_ll(DEBUGFS "/sched/base_slice_ns", (long long) base);
        kill_wait(mapped);
        kill_wait(emulated);
        if (ret)
                return ret;
        printf("LATNICE-VM-RESULT slice-vs-runtime base=%" PRIu64 " latency-nice-5=%" PRIu64
               " sched_runtime=%" PRIu64 "\n", 2 * base, s_ln, s_rt);
        fflush(stdout);
        CHECK(slice_near(s_ln, expected_slice(2 * base, 5)),
              "at base %" PRIu64 " the latency nice 5 hog's slice is %" PRIu64 ", expected %"
              PRIu64, 2 * base, s_ln, expected_slice(2 * base, 5));
        CHECK(slice_near(s_rt, want), "the sched_runtime hog's slice is %" PRIu64 ", expected "
              "the one it was given, %" PRIu64, s_rt, want);
        return 0;
}
