/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Core scheduling: the cookies of prctl(PR_SCHED_CORE) (Linux 5.14+,
 * CONFIG_SCHED_CORE; Documentation/admin-guide/hw-vuln/core-scheduling.rst).
 *
 * Two hardware threads (SMT siblings) of one core run tasks of the same
 * cookie only; a task without a cookie shares a core with other tasks
 * without one. A cookie belongs to one task (thread); fork and clone copy
 * the creator's, exec keeps it. latniced changes other processes' cookies
 * from outside, so:
 *   - a new cookie: PR_SCHED_CORE_CREATE on the thread;
 *   - a cookie another thread has: the kernel moves cookies only between the
 *     calling thread and another one (SHARE_FROM pulls one into the caller,
 *     SHARE_TO pushes the caller's), so a short-lived helper thread pulls it
 *     and pushes it, and latniced's own threads never carry one;
 *   - no cookie: SHARE_TO from a calling thread that has none.
 *
 * PR_SCHED_CORE_GET does not return the cookie but an id derived from its
 * address (a 32-bit siphash on 64-bit kernels): equal ids, one cookie. The
 * id is 0 while the kernel's random number generator is not seeded, which
 * core_sched_probe() reports.
 *
 * Errors from the kernel: -EINVAL without CONFIG_SCHED_CORE (an unknown
 * prctl), -ENODEV when no CPU has an SMT sibling online, -ESRCH for a task
 * that is gone, -EPERM without ptrace access (CAP_SYS_PTRACE for others'
 * tasks).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* The values of CoreSched= (Settings.core_sched.mode). */
typedef enum CoreSchedMode {
        CORE_SCHED_NONE,    /* no cookie (clears one latniced set) */
        CORE_SCHED_PROCESS, /* a cookie of the process's own, for all its threads */
        CORE_SCHED_RULE,    /* one cookie for every process of one rule */
        CORE_SCHED_POD,     /* one cookie for every process of one Kubernetes pod */
        _CORE_SCHED_MAX,
} CoreSchedMode;

/* "none", "process", "rule", "pod"; NULL for anything else. */
const char *core_sched_mode_to_string(int mode);
/* -EINVAL for anything but the four names. */
int core_sched_mode_from_string(const char *s);

/* The cookie group (Settings.core_sched.group) of the rule named NAME, or
 * with POD true of the pod whose UID is NAME: FNV-1a of the name, never 0.
 * A rule's and a pod's groups are told apart by the mode. */
uint64_t core_sched_group_of(const char *name);

/*
 * CoreSched=pod for a task in pod POD ("QOS/UID/ID" or "QOS/UID", the pod:
 * key's value, lib/kube-pod.h; NULL: in no pod): the pod's group in *S;
 * a task in no pod gets a cookie of its own (the mode becomes process).
 * No-op unless S's mode is pod.
 */
typedef struct CoreSchedSetting CoreSchedSetting;
void core_sched_for_pod(CoreSchedSetting *s, const char *pod);

/* The cookie id of thread TID (0: the calling thread) in *RET, 0 if it has
 * none. */
int core_sched_get(pid_t tid, uint64_t *ret);
/* A new cookie for thread TID alone (0: the calling thread). */
int core_sched_create(pid_t tid);
/* Give thread TID the cookie thread FROM has (through a helper thread; see
 * above). -ESRCH if either is gone. */
int core_sched_share(pid_t from, pid_t tid);
/* Take the cookie of thread TID away. -EBUSY if the calling thread has a
 * cookie itself (it would give TID that one). */
int core_sched_clear(pid_t tid);

typedef enum CoreSchedStatus {
        CORE_SCHED_OK,
        CORE_SCHED_NO_KERNEL,   /* no CONFIG_SCHED_CORE (prctl: EINVAL) */
        CORE_SCHED_NO_SMT,      /* no SMT siblings online (prctl: ENODEV) */
        CORE_SCHED_NO_IDS,      /* cookie ids read as 0: the RNG is not seeded yet */
        CORE_SCHED_ERROR,       /* another error (errno in CoreSchedSupport.error) */
        _CORE_SCHED_STATUS_MAX,
} CoreSchedStatus;

typedef struct CoreSchedSupport {
        CoreSchedStatus status;
        int error;              /* CORE_SCHED_ERROR: the negative errno */
        /* /sys/devices/system/cpu/smt/control: "on", "off", "forceoff",
         * "notsupported", "notimplemented" (static strings), "unknown" for
         * anything else, NULL when the kernel has no such file (no
         * CONFIG_HOTPLUG_SMT). */
        const char *smt_control;
        int smt_active;         /* /sys/devices/system/cpu/smt/active: 1, 0, -1 unknown */
} CoreSchedSupport;

/* Whether core scheduling works here, from a helper thread that creates a
 * cookie of its own and reads it back (the caller's is never touched).
 * SYS_ROOT: "/sys" or a test's tree (NULL: "/sys"). Always fills *RET. */
void core_sched_probe(const char *sys_root, CoreSchedSupport *ret);
/* One line for users: "yes", or why not ("no: the kernel has no
 * CONFIG_SCHED_CORE", ...). Static string. */
const char *core_sched_status_to_string(const CoreSchedSupport *s);
