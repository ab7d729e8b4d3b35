/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel feature probe and the latency-nice -> slice mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/cgroup.h"
#include "lib/macro.h"
#include "lib/probe.h"
#include "lib/sched.h"
#include "lib/util.h"

/* The kernel's nice -> load weight table (kernel/sched/core.c); index nice + 20. */
const int sched_prio_to_weight[40] = {
        /* -20 */ 88761, 71755, 56483, 46273, 36291,
        /* -15 */ 29154, 23254, 18705, 14949, 11916,
        /* -10 */ 9548,  7620,  6100,  4904,  3906,
        /*  -5 */ 3121,  2501,  1991,  1586,  1277,
        /*   0 */ 1024,  820,   655,   526,   423,
        /*   5 */ 335,   272,   215,   172,   137,
        /*  10 */ 110,   87,    70,    56,    45,
        /*  15 */ 36,    29,    23,    18,    15,
};

#define SLICE_MIN_NS 100000ULL     /* 0.1 ms, the kernel's clamp */
#define SLICE_MAX_NS 100000000ULL  /* 100 ms */

static const char *const backend_table[_LATENCY_BACKEND_MAX] = {
        [LATENCY_BACKEND_NONE] = "none",
        [LATENCY_BACKEND_SLICE] = "slice",
        [LATENCY_BACKEND_LATENCY_NICE] = "latency-nice",
};

const char *latency_backend_to_string(LatencyBackend b)
{
        if (b == _LATENCY_BACKEND_AUTO)
                return "auto";
        if (b < 0 || b >= _LATENCY_BACKEND_MAX)
                return NULL;
        return backend_table[b];
}

int latency_backend_from_string(const char *s)
{
        if (!s)
                return -EINVAL;
        if (streq(s, "auto"))
                return _LATENCY_BACKEND_AUTO;
        for (int i = 0; i < _LATENCY_BACKEND_MAX; i++)
                if (streq(s, backend_table[i]))
                        return i;
        return -EINVAL;
}

uint64_t latency_nice_to_slice(int latency_nice, uint64_t base_slice_ns)
{
        uint64_t slice;

        if (latency_nice == 0)
                return 0;
        latency_nice = CLAMP(latency_nice, -20, 19);
        slice = base_slice_ns * 1024 / (uint64_t) sched_prio_to_weight[latency_nice + 20];
        return CLAMP(slice, SLICE_MIN_NS, SLICE_MAX_NS);
}

uint64_t base_slice_default(unsigned ncpus)
{
        unsigned n = MIN(MAX(ncpus, 1u), 8u), log2 = 0;

        /* SCHED_TUNABLESCALING_LOG: factor = 1 + ilog2(min(ncpus, 8)) */
        while (n >>= 1)
                log2++;
        return 700000ULL * (1 + log2);
}

/* Set the calling thread's slice and read it back; restore the original. The
 * policy and nice are passed as they are (see apply.c: without
 * SCHED_FLAG_KEEP_PARAMS the kernel sets nice and slice from the attr; with
 * it, it ignores sched_runtime). */
static bool probe_eevdf_slice(void)
{
        struct ln_sched_attr a;
        SchedState orig;
        uint64_t test;
        bool ok;

        if (sched_state_read(0, &orig) < 0 || !sched_policy_is_fair(orig.policy))
                return false;

        test = orig.slice_ns == 3000000 ? 4000000 : 3000000;
        a = (struct ln_sched_attr) {
                .size = SCHED_ATTR_SIZE_VER0,
                .sched_policy = (uint32_t) orig.policy,
                .sched_flags = orig.flags & LN_SCHED_FLAG_RESET_ON_FORK,
                .sched_nice = orig.nice,
                .sched_runtime = test,
        };
        if (ln_sched_setattr(0, &a, 0) < 0)
                return false;
        if (ln_sched_getattr(0, &a, SCHED_ATTR_SIZE_VER0, 0) < 0)
                return false; /* cannot happen for ourselves */
        ok = a.sched_runtime == test;

        a = (struct ln_sched_attr) {
                .size = SCHED_ATTR_SIZE_VER0,
                .sched_policy = (uint32_t) orig.policy,
                .sched_flags = orig.flags & LN_SCHED_FLAG_RESET_ON_FORK,
                .sched_nice = orig.nice,
                .sched_runtime = orig.custom_slice ? orig.slice_ns : 0,
        };
        (void) ln_sched_setattr(0, &a, 0);
        return ok;
}

static bool probe_latency_nice(void)
{
        struct ln_sched_attr a;
        int orig = 0, test;
        bool ok;

        if (ln_sched_getattr(0, &a, SCHED_ATTR_SIZE_VER2, 0) < 0)
                return false;
        if (a.size >= SCHED_ATTR_SIZE_VER2)
                orig = a.sched_latency_nice;
        test = orig >= 19 ? 18 : orig + 1;

        /* A stock kernel answers E2BIG (attr larger than it knows, non-zero
         * tail) or EINVAL (unknown flag). */
        a = (struct ln_sched_attr) {
                .size = SCHED_ATTR_SIZE_VER2,
                .sched_flags = LN_SCHED_FLAG_LATENCY_NICE | LN_SCHED_FLAG_KEEP_ALL,
                .sched_latency_nice = test,
        };
        if (ln_sched_setattr(0, &a, 0) < 0)
                return false;
        ok = ln_sched_getattr(0, &a, SCHED_ATTR_SIZE_VER2, 0) >= 0 &&
             a.size >= SCHED_ATTR_SIZE_VER2 && a.sched_latency_nice == test;

        a = (struct ln_sched_attr) {
                .size = SCHED_ATTR_SIZE_VER2,
                .sched_flags = LN_SCHED_FLAG_LATENCY_NICE | LN_SCHED_FLAG_KEEP_ALL,
                .sched_latency_nice = orig,
        };
        (void) ln_sched_setattr(0, &a, 0);
        return ok;
}

static bool probe_uclamp(void)
{
        struct ln_sched_attr a;
        uint32_t min, max;

        if (ln_sched_getattr(0, &a, SCHED_ATTR_SIZE_VER1, 0) < 0 || a.size < SCHED_ATTR_SIZE_VER1)
                return false;
        min = a.sched_util_min;
        max = a.sched_util_max;

        /* Setting the current values changes nothing but marks them as
         * user-defined; -1 (UINT32_MAX) puts the default back afterwards. */
        a = (struct ln_sched_attr) {
                .size = SCHED_ATTR_SIZE_VER1,
                .sched_flags = LN_SCHED_FLAG_UTIL_CLAMP_MIN | LN_SCHED_FLAG_UTIL_CLAMP_MAX |
                               LN_SCHED_FLAG_KEEP_ALL,
                .sched_util_min = min,
                .sched_util_max = max,
        };
        if (ln_sched_setattr(0, &a, 0) < 0)
                return false;
        if (min == 0 && max == 1024) {
                a.sched_util_min = UINT32_MAX;
                a.sched_util_max = UINT32_MAX;
                (void) ln_sched_setattr(0, &a, 0);
        }
        return true;
}

static int read_autogroup(void)
{
        _cleanup_free_ char *s = NULL;
        int v;

        if (read_one_line_file("/proc/sys/kernel/sched_autogroup_enabled", &s) < 0)
                return -1;
        if (safe_atoi(s, &v) < 0)
                return -1;
        return v != 0;
}

static bool read_sched_ext_active(void)
{
        _cleanup_free_ char *s = NULL;

        if (read_one_line_file("/sys/kernel/sched_ext/state", &s) < 0)
                return false;
        return streq(s, "enabled");
}

int kernel_probe(const char *cgroup_root, KernelFeatures *ret)
{
        KernelFeatures k = {};
        _cleanup_free_ char *found = NULL, *bs = NULL;
        struct utsname u;
        long n;

        if (uname(&u) >= 0)
                snprintf(k.release, sizeof(k.release), "%s", u.release);

        n = sysconf(_SC_NPROCESSORS_ONLN);
        k.ncpus = n > 0 ? (unsigned) n : 1;

        if (read_one_line_file("/sys/kernel/debug/sched/base_slice_ns", &bs) >= 0 &&
            safe_atou64(bs, &k.base_slice_ns) >= 0 && k.base_slice_ns > 0)
                k.base_slice_from_debugfs = true;
        else
                k.base_slice_ns = base_slice_default(k.ncpus);
        sched_set_base_slice(k.base_slice_ns);

        k.eevdf_slice = probe_eevdf_slice();
        k.latency_nice_syscall = probe_latency_nice();
        k.uclamp_task = probe_uclamp();

        if (!cgroup_root) {
                int r = cg_find_mount(&found);
                if (r == -ENOMEM)
                        return r;
                cgroup_root = found;
        }
        if (cgroup_root) {
                int r = snprintf(k.cgroup_root, sizeof(k.cgroup_root), "%s", cgroup_root);
                if (r < 0 || (size_t) r >= sizeof(k.cgroup_root))
                        k.cgroup_root[0] = 0;
        }
        if (k.cgroup_root[0]) {
                k.cgroup2_cpu = cg_has_controller(k.cgroup_root, "cpu") > 0;
                k.latency_nice_cgroup = cg_tree_has_file(k.cgroup_root, "cpu.latency.nice") > 0;
                k.uclamp_cgroup = cg_tree_has_file(k.cgroup_root, "cpu.uclamp.min") > 0;
        }

        k.sched_ext_active = read_sched_ext_active();
        k.autogroup = read_autogroup();

        k.best_backend = k.latency_nice_syscall ? LATENCY_BACKEND_LATENCY_NICE :
                         k.eevdf_slice          ? LATENCY_BACKEND_SLICE :
                                                  LATENCY_BACKEND_NONE;
        *ret = k;
        return 0;
}
