/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which of latnice's settings act here: on this kernel (what the probe found,
 * lib/probe.h) and under the scheduler that runs now (sched_ext or not,
 * lib/sched-info.h). Pure functions, for latnicectl kernel and status, the
 * D-Bus API, and latniced's mask on its decisions.
 *
 * Under a sched_ext (BPF) scheduler the fair class's inputs go unread: no
 * scx scheduler reads a task's sched_runtime (Slice=, and LatencyNice=
 * through it or the latency nice patch set), and the cgroup cpu controller's
 * weight, idle flag and latency nice reach it only if it implements them,
 * which sysfs does not say. The task's weight (nice, from which the kernel
 * computes p->scx.weight) and its policy (SCHED_IDLE) reach every one.
 *
 * The nice gap: a sched_ext scheduler that errs by leaving a runnable task
 * unrun for longer than its timeout (ops.timeout_ms, at most 30 s, the
 * default) is aborted by the kernel's watchdog. A weight-proportional
 * scheduler runs a task of nice N beside one of nice M for about
 * weight(M)/weight(N) of the other's slices (20 ms by default): 88761/15,
 * about 5,900 slices or two minutes, for -20 against 19. latniced keeps the
 * nice it writes under sched_ext within -5..5 (3121/335, a ratio of 9.3:
 * 190 ms per competing task at the default slice), so that what it creates
 * stays two orders of magnitude below the watchdog's timeout even with a
 * dozen competitors per CPU. Designed from the documented behaviour, not
 * measured: this host's kernel has no sched_ext.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "lib/probe.h"
#include "lib/settings.h"

/* What no sched_ext scheduler is known to read. */
#define SCHED_EXT_IGNORED_MASK                                                                 \
        (SETTING_BIT(SETTING_SLICE) | SETTING_BIT(SETTING_LATENCY_NICE) |                      \
         SETTING_BIT(SETTING_CPU_WEIGHT) | SETTING_BIT(SETTING_CPU_IDLE) |                     \
         SETTING_BIT(SETTING_CPU_LATENCY_NICE))
/* Under sched_ext the nice latniced writes stays within +-this. */
#define SCHED_EXT_NICE_CAP 5

/* The settings (SETTINGS_RULE_MASK bits, GroupScope= aside) that act on a
 * kernel with features K, with a sched_ext scheduler loaded or not. */
uint32_t sched_effect_mask(const KernelFeatures *k, bool sched_ext);

/* "Nice=, Policy=, ..." for the bits of MASK, in SettingId order ("" for
 * none); NULL on ENOMEM. */
char *sched_effect_names(uint32_t mask);

/* Under a sched_ext scheduler (SCHED_EXT true): take out of S what no such
 * scheduler reads (and GroupScope= with the last group setting) and bring
 * its Nice= within +-SCHED_EXT_NICE_CAP. Returns the SETTING_BIT()s taken
 * out or changed; 0 and S untouched when SCHED_EXT is false. */
uint32_t sched_ext_mask_settings(bool sched_ext, Settings *s);
