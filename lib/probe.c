/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel feature probe.
 */
#include <errno.h>
#include <pthread.h>
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

/* Set the calling thread's slice and read it back; restore the original. The
 * policy and nice are passed as they are (see apply.c: without
 * SCHED_FLAG_KEEP_PARAMS the kernel sets nice and slice from the attr; with
 * it, it ignores sched_runtime). */
static bool probe_eevdf_slice_self(uint64_t base_slice_ns)
{
        struct ln_sched_attr a;
        SchedState orig;
        uint64_t test;
        bool ok;

        if (sched_state_read_with_base(0, base_slice_ns, &orig) < 0 || !sched_policy_is_fair(orig.policy))
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

typedef struct SliceProbe {
        uint64_t base_slice_ns;
        bool ok;
} SliceProbe;

static void *slice_probe_thread(void *userdata)
{
        SliceProbe *p = userdata;
        struct ln_sched_attr a;

        /* The kernel keeps no slice for a SCHED_IDLE task: a caller running
         * under chrt --idle would read as a kernel without EEVDF slices. The
         * probe runs on a thread of its own, moved to the normal policy
         * (with its nice) if it inherited SCHED_IDLE. The kernel lets an
         * unprivileged caller leave SCHED_IDLE only within its RLIMIT_NICE;
         * without that, the probe finds no slice (latniced runs as root). */
        if (ln_sched_getattr(0, &a, SCHED_ATTR_SIZE_VER0, 0) < 0)
                return NULL;
        if (a.sched_policy == SCHED_IDLE) {
                a = (struct ln_sched_attr){ .size = SCHED_ATTR_SIZE_VER0,
                                            .sched_policy = SCHED_OTHER,
                                            .sched_nice = a.sched_nice };
                if (ln_sched_setattr(0, &a, 0) < 0)
                        return NULL;
        }
        p->ok = probe_eevdf_slice_self(p->base_slice_ns);
        return NULL;
}

static bool probe_eevdf_slice(uint64_t base_slice_ns)
{
        SliceProbe p = { .base_slice_ns = base_slice_ns };
        pthread_t t;

        if (pthread_create(&t, NULL, slice_probe_thread, &p) != 0)
                return probe_eevdf_slice_self(base_slice_ns);
        (void)pthread_join(t, NULL);
        return p.ok;
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
        _cleanup_free_ char *found = NULL;
        struct utsname u;
        long n;

        if (uname(&u) >= 0)
                snprintf(k.release, sizeof(k.release), "%s", u.release);

        n = sysconf(_SC_NPROCESSORS_ONLN);
        k.ncpus = n > 0 ? (unsigned) n : 1;

        k.base_slice_ns = base_slice_read(&k.base_slice_from_debugfs);

        k.eevdf_slice = probe_eevdf_slice(k.base_slice_ns);
        k.latency_nice_syscall = probe_latency_nice();
        k.uclamp_task = probe_uclamp();
        core_sched_probe(NULL, &k.core_sched);

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
