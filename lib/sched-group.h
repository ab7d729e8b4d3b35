/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scheduling groups: the group the kernel weighs a process in against the
 * others, before it looks at the tasks inside, and its group-level knobs.
 *
 * The group that holds a process is, in this order:
 *   1. its cgroup v2 cgroup, when the cpu controller governs it (the cgroup
 *      has cpu.weight): cpu.weight (1..10000) and cpu.idle;
 *   2. its cgroup in a v1 cpu hierarchy (hybrid hosts, older systems):
 *      cpu.shares (weight * 1024 / 100, 2..262144) and cpu.idle;
 *   3. its autogroup, when autogroup is on and the process is in the root
 *      cgroup of the cpu controller (the kernel only uses autogroups there):
 *      the autogroup's nice (/proc/PID/autogroup), which sets the group's
 *      weight like a task's nice; an idle group is nice 19.
 * A cgroup of 1. or 2. also has cpu.latency.nice (-20..19) on a kernel with
 * the latency-nice patches (kernel/patches); an autogroup never has one.
 * A process in the root group of all three has none: root groups are never
 * changed.
 *
 * Only files are read and written here; no policy, no ownership.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef enum SchedGroupKind {
        SCHED_GROUP_NONE,
        SCHED_GROUP_CGROUP2,
        SCHED_GROUP_CGROUP1,
        SCHED_GROUP_AUTOGROUP,
} SchedGroupKind;

typedef struct SchedGroup {
        SchedGroupKind kind;
        char *path;     /* cgroup directory (full path); for an autogroup, PROC_ROOT/PID/autogroup
                         * of the process it was found through */
        uint64_t id;    /* autogroup id; 0 for cgroups */
        char *name;     /* for people: "cgroup /user.slice/...", "autogroup 42" */
} SchedGroup;

/* Where the cpu controller lives: the cgroup2 mount (NULL: none) and the v1
 * cpu hierarchy's mount (NULL: none). From /proc/self/mounts. */
typedef struct SchedGroupRoots {
        char *cgroup2;
        char *cpu_v1;
        bool autogroup; /* kernel.sched_autogroup_enabled */
} SchedGroupRoots;

int sched_group_roots_find(SchedGroupRoots *ret);
void sched_group_roots_done(SchedGroupRoots *r);

/* The group that holds PID. SCHED_GROUP_NONE (and 0) when it is in the root
 * group of all three. -ESRCH if it is gone. */
int sched_group_of(const SchedGroupRoots *roots, const char *proc_root, pid_t pid,
                   SchedGroup *ret);
/* The cgroup2 cgroup of PID whether or not the cpu controller governs it
 * (a systemd unit's, before systemd enables the controller for it): 1 with
 * RET, 0 if there is none (no cgroup2, the root cgroup). */
int sched_group_cgroup2_of(const SchedGroupRoots *roots, const char *proc_root, pid_t pid,
                           SchedGroup *ret);
void sched_group_done(SchedGroup *g);
/* The path of the cgroup v2 ("0::") or, with V1_CPU, the v1 cpu
 * ("N:...cpu...:") line of the /proc/PID/cgroup text BUF: *RET, NULL if
 * there is none. -ENOMEM. */
int sched_group_cgroup_line(const char *buf, bool v1_cpu, char **ret);
bool sched_group_equal(const SchedGroup *a, const SchedGroup *b);

/* A group's knobs in one currency: weight (1..10000, 100 the default) and
 * idle. For an autogroup, weight follows its nice and idle is nice 19. */
typedef struct SchedGroupState {
        uint32_t weight;
        bool idle;
        int nice;              /* autogroup only */
        bool has_latency_nice; /* a cgroup with cpu.latency.nice (a patched kernel) */
        int latency_nice;      /* its value, -20..19; 0 without the file */
} SchedGroupState;

int sched_group_read(const SchedGroup *g, SchedGroupState *ret);
/* What G's state is with WEIGHT and IDLE asked for, from CUR (an
 * autogroup: the nearest nice, 19 for idle). The latency nice is CUR's:
 * the caller sets another where CUR has one. */
void sched_group_state_want(const SchedGroup *g, const SchedGroupState *cur, uint32_t weight,
                            bool idle, SchedGroupState *ret);
/* Write what differs from CUR to reach WANT (a cgroup: latency nice, where
 * both have one, weight and idle; an autogroup: nice). -ENOENT if the group
 * is gone. */
int sched_group_write_state(const SchedGroup *g, const SchedGroupState *cur,
                            const SchedGroupState *want);
/* Only cpu.latency.nice. */
int sched_group_write_latency_nice(const SchedGroup *g, int latency_nice);
/* The same state, in what G has: weight and idle, or an autogroup's nice;
 * and the latency nice where both have one. */
bool sched_group_state_equal(const SchedGroup *g, const SchedGroupState *a,
                             const SchedGroupState *b);
/* The same without the latency nice: what a systemd unit's CPUWeight= sets. */
bool sched_group_weight_equal(const SchedGroup *g, const SchedGroupState *a,
                              const SchedGroupState *b);
/* Why G has no cpu.latency.nice, for people ("an autogroup has no latency
 * nice", "its cgroup has no cpu controller", "not supported by this kernel
 * (no cpu.latency.nice)"), or NULL if it has one. Reads G's directory. */
const char *sched_group_latency_nice_missing(const SchedGroup *g);

/* cgroup v1 cpu.shares <-> weight, and nice <-> weight: the nice whose task
 * weight is nearest to WEIGHT (1..10000, 100 = nice 0), for an autogroup and
 * for the per-task form of a unit's CPUWeight. */
uint64_t sched_group_weight_to_shares(uint32_t weight);
uint32_t sched_group_shares_to_weight(uint64_t shares);
int sched_group_weight_to_nice(uint32_t weight);
uint32_t sched_group_nice_to_weight(int nice);

/* The autogroup line "/autogroup-42 nice 0": id and nice. -EIO if malformed. */
int autogroup_parse(const char *line, uint64_t *ret_id, int *ret_nice);

/* Pids of the other processes in G (up to MAX; not PID itself). For an
 * autogroup this scans PROC_ROOT. */
int sched_group_members(const SchedGroup *g, const char *proc_root, pid_t pid, size_t max,
                        pid_t **ret, size_t *ret_n);
