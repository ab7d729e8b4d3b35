/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The EEVDF base slice and the latency-nice -> slice mapping.
 *
 * The base slice is the kernel's default request size of a fair task
 * (/sys/kernel/debug/sched/base_slice_ns). Without the latnice kernel patch
 * set, latency nice is emulated with a per-task slice derived from it; with
 * the patch set, the kernel derives a task's default slice the same way.
 * Pure arithmetic except base_slice_read(); no state.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* The kernel's nice -> load weight table (kernel/sched/core.c); index nice + 20. */
extern const int sched_prio_to_weight[40];

/* base_slice * 1024 / sched_prio_to_weight[latency_nice + 20], clamped to
 * [0.1 ms, 100 ms]; 0 for latency_nice 0 ("no custom slice"). */
uint64_t latency_nice_to_slice(int latency_nice, uint64_t base_slice_ns);
/* 0.7 ms * (1 + ilog2(min(ncpus, 8))), as the kernel computes it. */
uint64_t base_slice_default(unsigned ncpus);

/*
 * The base slice of this kernel now: from debugfs when it is readable
 * (*RET_FROM_DEBUGFS, optional, true), else base_slice_default() of the
 * online CPUs. Never 0. Reads a file: callers that need it often read it
 * once (kernel_probe() does, KernelFeatures.base_slice_ns) and pass it on.
 */
uint64_t base_slice_read(bool *ret_from_debugfs);
