/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Task attribute registry: one descriptor per attribute a rule, a profile
 * or SetTask sets on a thread (Nice, Policy, Slice, LatencyNice, ...). A
 * descriptor holds everything the rest of latnice needs to know about its
 * attribute: how it is parsed and printed, read into a SchedState, written,
 * restored, how a change by someone else is recognised, whether a value is
 * a boost, how `latnicectl get` shows it and how the state file keeps it.
 * The applier (lib/thread-settings.c, daemon/apply/apply.c), bus-auth, the boost
 * rules, the CLI and the state file loop over the registry; a new attribute
 * is a descriptor here (lib/task-attr.c) and its value in Settings and
 * SchedState.
 *
 * Attributes written by one system call form a writer group (GROUP, the
 * SETTING_BITs that share it): Policy, Nice and Slice go in one
 * sched_setattr() (or setpriority()), written by lib/thread-settings.c
 * (ATTR_GROUP_FAIR); UtilMin and UtilMax in one sched_setattr(), IOClass and
 * IONice in one ioprio_set(): their descriptors' write() and restore() take
 * the whole group.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/kernel-ops.h"
#include "lib/probe.h"
#include "lib/sched.h"
#include "lib/setting-field.h"
#include "lib/settings.h"

/* The group written by lib/thread-settings.c's fair writer. */
#define ATTR_GROUP_FAIR                                                                        \
        (SETTING_BIT(SETTING_POLICY) | SETTING_BIT(SETTING_NICE) | SETTING_BIT(SETTING_SLICE) | \
         SETTING_BIT(SETTING_REALTIME_PRIORITY))

/* Where an attribute is read and written. */
typedef struct AttrIo {
        const KernelOps *k;     /* never NULL */
        const char *proc_root;  /* NULL: "/proc" */
        pid_t tid;
        LatencyBackend backend; /* LatencyNice: written here only with the real knob */
        pid_t core_source;      /* CoreSched: see ApplyContext */
        int nice;               /* the nice the thread is getting (IONice follows it) */
} AttrIo;

/* What write() may return besides 0 (done) and a negative errno. */
#define ATTR_WRITE_ELSEWHERE 1 /* nothing to do here: the fair writer did it */

/* How `latnicectl get` shows an attribute of a thread. */
typedef enum AttrShow {
        ATTR_SHOW_NONE,     /* not shown on its own (in another column) */
        ATTR_SHOW_DURATION, /* a number of ns */
        ATTR_SHOW_TEXT,     /* a text */
} AttrShow;

/* One member of SchedState in an attribute's state file entry
 * (daemon/state/state-attr.h): its bytes as they are in memory, and the
 * range a value read back must be in. */
typedef struct AttrStateMember {
        uint16_t offset, size; /* size 0: no member (the end of the list) */
        bool is_signed;
        bool trim;        /* its trailing zero bytes are left out (a CPU set) */
        int64_t min, max; /* both 0: any value */
} AttrStateMember;

#define _ATTR_STATE_AT(m)                                                                      \
        .offset = offsetof(SchedState, m), .size = sizeof(((SchedState *)NULL)->m)
/* An integer (or bool) member in MIN..MAX, any value if both are 0. */
#define ATTR_STATE_INT(m, lo, hi)                                                              \
        { _ATTR_STATE_AT(m), .is_signed = (__typeof__(((SchedState *)NULL)->m))-1 < 1,         \
          .min = (lo), .max = (hi) }
/* A member kept up to its last non-zero byte. */
#define ATTR_STATE_TRIMMED(m) { _ATTR_STATE_AT(m), .trim = true }

/* How the state file keeps an attribute: its entry's tag (the file's own,
 * never reused or renumbered; not the SettingId, which may be reordered),
 * the version of its payload (an entry of another version is skipped like
 * an unknown tag), the SchedState members its original and expected
 * values are, in this order, and what a setting read back must be besides
 * task_attr_valid() (a named value; NULL: nothing more). */
typedef struct AttrState {
        uint16_t tag;
        uint8_t version;
        AttrStateMember members[3];
        bool (*setting_ok)(const Settings *s);
} AttrState;

typedef struct TaskAttr {
        SettingId id;
        SettingField field; /* name, D-Bus type, parse, format */
        const char *help;   /* the values, for --help: "1ns..100ms" */
        uint32_t group;     /* the SETTING_BITs written together with it (itself at least) */
        bool per_process;   /* one value per process: written through its main thread only */
        bool cpu;           /* a boost of it is one of CPU latency (a group is protected) */

        /* Read what sched_getattr() does not give into ST (the others of ST
         * untouched); NULL: sched_state_read_attr_ops() has it. An unreadable
         * value reads as 0; -ESRCH if the thread is gone. IN_FULL_READ: part
         * of sched_state_read_ops() (else read only when asked for). */
        int (*read)(const AttrIo *io, SchedState *st);
        bool in_full_read;
        /* Give the thread the value of S for the bits MASK (of GROUP) has,
         * BEFORE being its state; no system call when it has them. 0,
         * ATTR_WRITE_ELSEWHERE, -EOPNOTSUPP (the kernel cannot do it), or a
         * negative errno. NULL: the fair writer's. */
        int (*write)(const AttrIo *io, const SchedState *before, const Settings *s, uint32_t mask);
        /* Put back the value of ORIG (for the bits MASK of GROUP has).
         * -EOPNOTSUPP: nothing to put back here. NULL: the fair writer's. */
        int (*restore)(const AttrIo *io, const SchedState *orig, uint32_t mask);
        /* Does NOW differ from EXPECTED in it? */
        bool (*changed)(const SchedState *now, const SchedState *expected);
        /* Copy its value from SRC to DST. */
        void (*take)(SchedState *dst, const SchedState *src);
        /* After a write: what the thread has, without reading it again (the
         * kernel keeps it verbatim); NULL: it is read again. */
        void (*expect)(SchedState *expected, const Settings *s);

        /* Is the value of S a boost over REF, the state a task would have
         * without it? REF is the thread's own for an unprivileged SetTask, or
         * task_attr_boost_reference() for the rules (policy/boost.h). 1 with
         * *RET_WHY (if not NULL) saying what it would raise for thread TID,
         * 0 if not, -ENOMEM. NULL: never a boost. */
        int (*boost)(const Settings *s, const SchedState *ref, uint64_t base_slice_ns, pid_t tid,
                     char **ret_why);

        /* `latnicectl get`: the column, the JSON key and the value of ST (0:
         * unset, shown as nothing or null; 1: *RET_NS or *RET_TEXT set). */
        AttrShow show;
        const char *show_column, *show_key;
        int (*show_value)(const SchedState *st, uint64_t *ret_ns, char **ret_text);

        /* Its entry in the state file. */
        AttrState state;

} TaskAttr;

/* The descriptor of ID, NULL if ID is not a task attribute. */
const TaskAttr *task_attr(SettingId id);

#define TASK_ATTR_FOREACH(a)                                                                   \
        for (const TaskAttr *a = task_attr_first(); a; a = task_attr_next(a))
const TaskAttr *task_attr_first(void);
const TaskAttr *task_attr_next(const TaskAttr *a);

/* Is the value of A in S within the range its field parses (a value from
 * elsewhere than the parser, such as a test, may not be)? */
bool task_attr_valid(const TaskAttr *a, const Settings *s);

/* The state the rules measure boosts against (policy/boost.h): the default
 * of every attribute, and the lowest nice NICE_FLOOR of the task's user
 * (20: none) if it is below 0. */
void task_attr_boost_reference(int nice_floor, SchedState *ret);

/* Read the attributes of MASK that have a read() into ST, one read per
 * writer group. 0, or -ESRCH if the thread is gone. */
int task_attr_read(const AttrIo *io, uint32_t mask, SchedState *st);

/* The SETTING_BITs of the attributes that have a read() (FULL_READ_ONLY:
 * and IN_FULL_READ). */
uint32_t task_attr_extra_mask(bool full_read_only);
/* The SETTING_BITs of the attributes that are per process / say something
 * about CPU latency. */
uint32_t task_attr_process_mask(void);
uint32_t task_attr_cpu_mask(void);
