/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Settings: a set of scheduler attributes, each present or absent.
 *
 * Shared by the policy language (rule and unit settings), the daemon's
 * appliers, latnicectl set/run and the D-Bus API. Parsing knows units and
 * ranges; it does not know where the text came from, so it reports a column
 * offset into the value and a message, and the caller adds file:line.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <sched.h>

typedef enum SettingId {
        SETTING_LATENCY_NICE, /* -20..19 */
        SETTING_SLICE,        /* ns, 100us..100ms */
        SETTING_NICE,         /* -20..19 */
        SETTING_POLICY,       /* SCHED_OTHER, SCHED_BATCH, SCHED_IDLE; SCHED_RR, SCHED_FIFO
                               * (a real-time grant, bounded: lib/rt-grant.h) */
        SETTING_UTIL_MIN,     /* 0..1024 */
        SETTING_UTIL_MAX,     /* 0..1024 */
        SETTING_TIMER_SLACK,  /* ns, 1ns..100ms */
        SETTING_IO_CLASS,     /* LN_IOPRIO_CLASS_RT, _BE, _IDLE (lib/ioprio.h) */
        SETTING_IO_NICE,      /* 0..7, the I/O priority level within the class */
        SETTING_OOM_SCORE_ADJ, /* -1000..1000, per process */
        SETTING_CORE_SCHED,   /* CoreSchedMode: none, process, rule (lib/core-sched.h) */
        SETTING_CPU_WEIGHT,   /* 1..10000, [Unit] only */
        SETTING_CPU_IDLE,     /* bool, [Unit] only */
        SETTING_CPU_LATENCY_NICE, /* -20..19, a group's cpu.latency.nice; [Rule] only (a
                                   * [Unit]'s LatencyNice is its cgroup's cpu.latency.nice) */
        SETTING_GROUP_SCOPE,  /* GroupScopeMode: which group the group settings act on; [Rule] only */
        SETTING_CPU_AFFINITY, /* CpuAffinitySetting: the CPUs a thread may run on */
        SETTING_REALTIME_PRIORITY, /* 1..99, the priority of Policy=rr|fifo (lib/rt-grant.h) */
        _SETTING_MAX,
        _SETTING_INVALID = -EINVAL,
} SettingId;

#define SETTING_BIT(id) (1u << (id))

/* OOMScoreAdj=: the range of /proc/PID/oom_score_adj. */
#define OOM_SCORE_ADJ_MIN (-1000)
#define OOM_SCORE_ADJ_MAX 1000

/* The two settings that make up one I/O priority (ioprio_set(2)). */
#define SETTINGS_IO_MASK (SETTING_BIT(SETTING_IO_CLASS) | SETTING_BIT(SETTING_IO_NICE))
/* Settings a [Rule]/[Profile] or SetTask may carry. */
#define SETTINGS_TASK_MASK                                                                     \
        (SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_SLICE) |                      \
         SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_POLICY) |                             \
         SETTING_BIT(SETTING_CORE_SCHED) |                                                     \
         SETTING_BIT(SETTING_UTIL_MIN) | SETTING_BIT(SETTING_UTIL_MAX) |                       \
         SETTING_BIT(SETTING_TIMER_SLACK) | SETTINGS_IO_MASK |                                 \
         SETTING_BIT(SETTING_OOM_SCORE_ADJ) | SETTING_BIT(SETTING_CPU_AFFINITY) |              \
         SETTING_BIT(SETTING_REALTIME_PRIORITY))
/* Group settings: in a [Unit] section they act on the unit's cgroup, in a
 * [Rule] or [Profile] on the scheduling group that holds the matched process
 * (lib/sched-group.h). */
#define SETTINGS_GROUP_MASK                                                                    \
        (SETTING_BIT(SETTING_CPU_WEIGHT) | SETTING_BIT(SETTING_CPU_IDLE) |                     \
         SETTING_BIT(SETTING_CPU_LATENCY_NICE) | SETTING_BIT(SETTING_GROUP_SCOPE))
/* Settings a [Rule] or [Profile] may carry. */
#define SETTINGS_RULE_MASK (SETTINGS_TASK_MASK | SETTINGS_GROUP_MASK)
/* Settings a [Unit] section may carry. */
#define SETTINGS_UNIT_MASK                                                                     \
        (SETTING_BIT(SETTING_LATENCY_NICE) | SETTING_BIT(SETTING_CPU_WEIGHT) |                 \
         SETTING_BIT(SETTING_CPU_IDLE) | SETTING_BIT(SETTING_UTIL_MIN) |                       \
         SETTING_BIT(SETTING_UTIL_MAX) | SETTING_BIT(SETTING_SLICE))

/* CoreSched=: the mode, and for "rule" whose cookie: the policy loader
 * (policy/parser.c) gives every rule's CoreSched=rule a group of that rule's
 * own, derived from its name, so that it survives in the state file and a
 * reload. Compared and copied whole with the other settings. On D-Bus
 * CoreSched is 's', the mode's name ("process", ...): the group stays here. */
typedef struct CoreSchedSetting {
        int32_t mode;   /* CoreSchedMode; first, as the D-Bus value is its name */
        uint32_t zero;  /* padding made explicit and kept 0 (settings are memcmp'd) */
        uint64_t group; /* CORE_SCHED_RULE: the rule's group (never 0), else 0 */
} CoreSchedSetting;

/* CPUAffinity=: a CPU list ("0-3,8"), or "cache": the CPUs of the largest
 * last-level cache (lib/cpu-list.h), found when the value is parsed. */
typedef struct CpuAffinitySetting {
        cpu_set_t cpus;
        uint32_t cache; /* 1: given as "cache" (and printed so) */
        uint32_t zero;  /* padding made explicit and kept 0 (settings are memcmp'd) */
} CpuAffinitySetting;

/* GroupScope=: whether the group settings of a rule act on the group that
 * holds the process, shared with whatever else is in it, or, where that
 * group holds processes no rule asked them for, on a systemd scope of the
 * process's own (daemon/groups/group-scope.h). */
typedef enum GroupScopeMode {
        GROUP_SCOPE_SHARED,
        GROUP_SCOPE_OWN,
        _GROUP_SCOPE_MAX,
} GroupScopeMode;

const char *group_scope_to_string(int mode); /* "shared", "own"; NULL if invalid */
int group_scope_from_string(const char *s);  /* -EINVAL if neither */

typedef struct Settings {
        uint32_t mask; /* SETTING_BIT(id) set for every present setting */
        int32_t latency_nice;
        uint64_t slice_ns;
        int32_t nice;
        int32_t policy;
        uint32_t util_min;
        uint32_t util_max;
        uint64_t timer_slack_ns;
        int32_t io_class;
        int32_t io_nice;
        int32_t oom_score_adj;
        CoreSchedSetting core_sched;
        uint32_t cpu_weight;
        int32_t cpu_latency_nice;
        int32_t group_scope; /* GroupScopeMode */
        CpuAffinitySetting cpu_affinity;
        bool cpu_idle;
        int32_t rt_priority; /* RealtimePriority: 1..99 */
} Settings;

/* The priority a real-time Policy= of S asks for: RealtimePriority=, 1 if
 * absent. */
static inline int settings_rt_priority(const Settings *s)
{
        return (s->mask & SETTING_BIT(SETTING_REALTIME_PRIORITY)) ? s->rt_priority : 1;
}

static inline bool settings_has(const Settings *s, SettingId id)
{
        return s->mask & SETTING_BIT(id);
}

/* "LatencyNice", "Slice", ... */
const char *setting_to_string(SettingId id);
/* Case-sensitive, as in the policy files; blanks around KEY are ignored.
 * -EINVAL if unknown. */
SettingId setting_from_string(const char *key);

/*
 * Parse VALUE for setting ID into S and set its bit. Leading and trailing
 * blanks are ignored. On error returns -EINVAL, S is unchanged, and
 * *ret_error (if not NULL) gets a message like
 *     expected an integer in -20..19, found "abc"
 * and *ret_column (if not NULL) the 0-based offset in VALUE where the
 * problem starts.
 */
int settings_parse(Settings *s, SettingId id, const char *value, char **ret_error,
                   unsigned *ret_column);

/* Parse "Key=Value" (as on the command line; blanks around Key and Value are
 * ignored). Same error contract. */
int settings_parse_assignment(Settings *s, const char *assignment, char **ret_error);

/* Every setting present in SRC overrides the one in DST. */
void settings_merge(Settings *dst, const Settings *src);
/* Both lack setting ID, or both have it with the same value. False for an
 * invalid ID. */
bool settings_equal_at(const Settings *x, const Settings *y, SettingId id);
/* The same settings with the same values (what is absent does not count). */
bool settings_equal(const Settings *x, const Settings *y);

/* The value of one setting in policy syntax ("-5", "0.1ms", "batch", "50%"). */
int setting_format(const Settings *s, SettingId id, char **ret);
/* "LatencyNice, Slice, Nice": the names of the settings of MASK in SettingId
 * order; NULL if out of memory. */
char *settings_names(uint32_t mask);
/* "LatencyNice=-5 Slice=0.1ms" in SettingId order; "" if empty. */
char *settings_to_string(const Settings *s);

/*
 * One setting as the D-Bus API carries it in an a{sv} (org.latnice.Daemon1(5)):
 * setting_bus_type() of each (a duration 't' in ns, a named value 's' such as
 * "other" or "realtime", an integer 'i' or 'u', a boolean 'b'). The members of
 * the union share one address, so &v.t serves as the value pointer of
 * sd_bus_message_read_basic()/append_basic() for every type but 's'.
 */
typedef struct SettingBusValue {
        char type;
        union {
                int32_t i;
                uint32_t u;
                uint64_t t;
                int b;
                const char *s; /* static, borrowed or OWNED */
        };
        char *owned; /* a text formatted for S: setting_bus_value_done() frees it */
} SettingBusValue;

void setting_bus_value_done(SettingBusValue *v);

/* The D-Bus type of ID's value, 0 for an invalid ID. */
char setting_bus_type(SettingId id);
/* The value of setting ID of S in that type. -EINVAL for an invalid ID,
 * -ENODATA when S does not have it. */
int setting_to_bus_value(const Settings *s, SettingId id, SettingBusValue *ret);

const char *sched_policy_to_string(int policy); /* "other", "batch", "idle", "fifo", ... */
int sched_policy_from_string(const char *s);    /* other|batch|idle|rr|fifo; -EINVAL otherwise */
bool sched_policy_is_rt(int policy);            /* SCHED_RR or SCHED_FIFO */

/* Added by the policy module: "yes"/"no" (also true/false, on/off, 1/0).
 * Returns 1, 0, or -EINVAL. */
int parse_boolean(const char *s);
