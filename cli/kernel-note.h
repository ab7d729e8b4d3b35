/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the latency settings do on this kernel, said once for people by
 * latnicectl kernel and status: on a kernel without EEVDF (before Linux 6.6,
 * such as Debian 12's 6.1) LatencyNice= and Slice= do nothing, and only
 * nice, SCHED_IDLE and the group settings act. Decided from the kernel
 * probe's findings (lib/probe.h), passed in, so that a test can give any.
 */
#pragma once

#include <stdbool.h>

/* EEVDF_SLICE: KernelFeatures.eevdf_slice; LATENCY_NICE_SYSCALL:
 * KernelFeatures.latency_nice_syscall. NULL when both latency settings act,
 * else a sentence (static) saying which do not and what still acts. */
const char *kernel_latency_note(bool eevdf_slice, bool latency_nice_syscall);

/* The sched_ext line of latnicectl kernel and status, from the state
 * (scx_state_to_string(): "absent", "disabled", "enabled", ...) and the
 * scheduler's name (NULL if none or unknown). Allocated; NULL on ENOMEM. */
char *kernel_sched_ext_note(const char *state, const char *ops);
