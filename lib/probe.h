/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernel feature probe.
 *
 * Probed once at start on the calling thread, restoring what it changed.
 * Never fails because a mechanism is missing: it reports it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "lib/core-sched.h"
#include "lib/latency-slice.h"

typedef enum LatencyBackend {
        LATENCY_BACKEND_NONE,
        LATENCY_BACKEND_SLICE,        /* emulate with the EEVDF slice */
        LATENCY_BACKEND_LATENCY_NICE, /* real SCHED_FLAG_LATENCY_NICE */
        _LATENCY_BACKEND_MAX,
        _LATENCY_BACKEND_AUTO = -1,   /* config value "auto" */
} LatencyBackend;

const char *latency_backend_to_string(LatencyBackend b); /* "none", "slice", "latency-nice" */
int latency_backend_from_string(const char *s);          /* also "auto" -> _LATENCY_BACKEND_AUTO */

typedef struct KernelFeatures {
        char release[65];               /* uname -r */
        bool latency_nice_syscall;      /* SCHED_FLAG_LATENCY_NICE with a 60-byte attr works */
        bool latency_nice_cgroup;       /* cpu.latency.nice exists at the cgroup root's children */
        bool eevdf_slice;               /* sched_runtime on SCHED_OTHER sets the slice */
        bool uclamp_task;               /* SCHED_FLAG_UTIL_CLAMP works */
        bool uclamp_cgroup;             /* cpu.uclamp.min exists */
        bool cgroup2_cpu;               /* "cpu" in cgroup.controllers of the cgroup2 root */
        bool sched_ext_active;          /* /sys/kernel/sched_ext/state is "enabled" */
        int autogroup;                  /* 1 on, 0 off, -1 not compiled in */
        uint64_t base_slice_ns;         /* from debugfs, else computed */
        bool base_slice_from_debugfs;
        unsigned ncpus;
        char cgroup_root[4096];         /* the cgroup2 hierarchy probed, "" if none */
        LatencyBackend best_backend;    /* what "auto" resolves to */
        CoreSchedSupport core_sched;    /* PR_SCHED_CORE works; SMT control */
} KernelFeatures;

/* CGROUP_ROOT: the cgroup2 mount to look at, or NULL to find it in
 * /proc/self/mounts. Always succeeds (returns 0) unless out of memory. */
int kernel_probe(const char *cgroup_root, KernelFeatures *ret);
