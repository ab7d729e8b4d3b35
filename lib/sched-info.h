/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scheduler report: what the running kernel's scheduler is, as far as files
 * tell: the preemption model, HZ, autogroup, and whether a sched_ext (BPF)
 * scheduler is loaded and which. Everything is read below a root directory
 * given by the caller ("/" on a real system; a fake tree in tests). A file
 * that cannot be read (missing, debugfs not mounted, lockdown) makes its
 * answer "unknown", never an error.
 *
 * Sources, first readable one wins:
 *   preemption model: sys/kernel/debug/sched/preempt ("none voluntary (full)
 *     lazy": the one in parentheses; only a PREEMPT_DYNAMIC kernel has it);
 *     the kernel config (boot/config-RELEASE, else proc/config.gz) with the
 *     preempt= of proc/cmdline for a PREEMPT_DYNAMIC kernel; else the flags
 *     the kernel's version string carries (proc/sys/kernel/version, what
 *     uname -v prints: PREEMPT_RT, PREEMPT_DYNAMIC, PREEMPT).
 *   HZ: CONFIG_HZ of the kernel config; unknown without one.
 *   autogroup: proc/sys/kernel/sched_autogroup_enabled.
 *   sched_ext: sys/kernel/sched_ext/state and sys/kernel/sched_ext/root/ops
 *     (the directory exists only on a kernel built with sched_ext).
 */
#pragma once

#include <stdbool.h>

typedef enum PreemptModel {
        PREEMPT_MODEL_UNKNOWN,
        PREEMPT_MODEL_NONE,
        PREEMPT_MODEL_VOLUNTARY,
        PREEMPT_MODEL_FULL,
        PREEMPT_MODEL_LAZY,
        PREEMPT_MODEL_RT,
        _PREEMPT_MODEL_MAX,
} PreemptModel;

typedef enum ScxState {
        SCX_STATE_UNKNOWN,   /* the state file exists but cannot be read, or says what we do not know */
        SCX_STATE_ABSENT,    /* no sys/kernel/sched_ext: the kernel has no sched_ext */
        SCX_STATE_DISABLED,  /* no BPF scheduler loaded */
        SCX_STATE_ENABLING,
        SCX_STATE_ENABLED,
        SCX_STATE_DISABLING,
        _SCX_STATE_MAX,
} ScxState;

typedef struct SchedInfo {
        PreemptModel preempt;
        int preempt_dynamic;        /* 1: switchable (PREEMPT_DYNAMIC), 0: not, -1: unknown */
        const char *preempt_source; /* static: "debugfs", "the kernel config", "the boot command line",
                                     * "the version string", or NULL when unknown */
        const char *preempt_hint;   /* static, when PREEMPT is UNKNOWN but the version string
                                     * narrows it: "none or voluntary", "full or lazy" */
        unsigned hz;                /* 0: unknown */
        const char *hz_source;      /* static: "the kernel config", NULL when unknown */
        int autogroup;              /* 1 on, 0 off, -1 unknown (not compiled in) */
        ScxState scx;
        char *scx_ops;              /* the loaded scheduler's name (root/ops), NULL if none */
} SchedInfo;

const char *preempt_model_to_string(PreemptModel m); /* "none", ..., "rt", "unknown" */
const char *scx_state_to_string(ScxState s);         /* the kernel's words; "absent", "unknown" */

/* A scheduler of sched_ext decides (enabling or enabled): what latniced
 * writes for the fair class then mostly goes unread. */
static inline bool scx_state_active(ScxState s)
{
        return s == SCX_STATE_ENABLING || s == SCX_STATE_ENABLED;
}

/* Read the sched_ext state and the scheduler's name below ROOT ("/" or
 * NULL: the real one). *RET_OPS (optional) gets a copy of the name, NULL when
 * none is loaded or it cannot be read. 0, or -ENOMEM. */
int scx_state_read(const char *root, ScxState *ret_state, char **ret_ops);

/* Fill *RET from the files below ROOT ("/" or NULL: the real one). 0, or
 * -ENOMEM (*RET then untouched). */
int sched_info_read(const char *root, SchedInfo *ret);
void sched_info_done(SchedInfo *i);

/* The preemption model for people: "full (dynamic; from debugfs)", "none or
 * voluntary (from the version string)", "unknown". NULL on ENOMEM. */
char *sched_info_preempt_describe(const SchedInfo *i);
