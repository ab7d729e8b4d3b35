/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy: the loaded, compiled latnice policy, and its public API.
 *
 * This is the only header of policy/ that daemon/ and cli/ include. The
 * module knows no process, syscall or bus: it reads policy files and
 * matches TaskSnapshots handed to it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/proc.h"
#include "lib/settings.h"
#include "lib/task.h"

typedef struct Policy Policy;

/* ---- Diagnostics ---------------------------------------------------- */

typedef enum DiagLevel {
        DIAG_ERROR,
        DIAG_WARNING,
} DiagLevel;

typedef struct Diagnostic {
        DiagLevel level;
        char *file;      /* path as given to the loader */
        unsigned line;   /* 1-based; 0 if the diagnostic is about the whole file */
        unsigned column; /* 1-based; 0 if about the whole line or file */
        char *message;   /* "expected ..., found ...", no trailing period or newline */
} Diagnostic;

typedef struct Diagnostics {
        Diagnostic *items;
        size_t n;
} Diagnostics;

void diagnostics_done(Diagnostics *d);
size_t diagnostics_count(const Diagnostics *d, DiagLevel level);
/* "file:line:column: error: message" (line/column left out when 0). */
char *diagnostic_format(const Diagnostic *d);

/* ---- Loading -------------------------------------------------------- */

/*
 * Load every *.policy file of DIRS (NULL-terminated, lowest priority first:
 * vendor, runtime, admin). A file overrides the file of the same name in
 * earlier directories; a symlink to /dev/null masks it. Files are read in
 * lexical order of their name. Missing directories are fine.
 *
 * A file with an error is rejected as a whole: if PREVIOUS (may be NULL)
 * had accepted a file of the same name, that previous version is used
 * again (and a warning says so); otherwise the file contributes nothing.
 *
 * Returns 0 on success even when files were rejected (see DIAGS), negative
 * errno only for resource failures. *ret is never NULL on success.
 */
int policy_load(char *const *dirs, const Policy *previous, Policy **ret, Diagnostics *diags);

/* Load exactly these files, in this order (latnicectl check FILE...). */
int policy_load_files(char *const *paths, Policy **ret, Diagnostics *diags);

/* Load one file's text (tests, fuzzing). FILENAME is used in diagnostics. */
int policy_load_string(const char *filename, const char *text, size_t size, Policy **ret,
                       Diagnostics *diags);

Policy *policy_free(Policy *p);
static inline void policy_freep(Policy **p)
{
        if (*p)
                policy_free(*p);
}

/* ---- Introspection (cat-policy, status) ----------------------------- */

typedef struct PolicyFileInfo {
        const char *name;       /* "50-audio.policy" */
        const char *path;       /* the file in effect */
        char *const *overrides; /* NULL-terminated: paths of same-named files it hides */
        bool masked;            /* the file in effect is a /dev/null symlink */
        bool rejected;          /* had errors; PREVIOUS version in use if from_previous */
        bool from_previous;     /* content is the last good version of a rejected file */
        const char *text;       /* the text in effect (NULL if masked or rejected) */
} PolicyFileInfo;

size_t policy_n_files(const Policy *p);
const PolicyFileInfo *policy_file(const Policy *p, size_t i);
size_t policy_n_rules(const Policy *p);
size_t policy_n_profiles(const Policy *p);
size_t policy_n_units(const Policy *p);
/* true if some rule uses a per-thread key (thread:, main-thread:): then
 * threads must be matched one by one */
bool policy_has_thread_rules(const Policy *p);

/* The POLICY_KEY() bits (policy/keys.h) of every key that appears in a
 * predicate of some rule's Match= expression (negated or not), computed
 * when the policy is loaded. 0 for a NULL policy. */
uint32_t policy_used_keys(const Policy *p);

/*
 * The spans of every duration predicate (policy/keys.h, MatchKeyInfo.duration;
 * unfocused:>5min) of P's rules, in µs, sorted, each once, in *RET (freed by
 * the caller; NULL when there are none) and their number in *RET_N. A
 * process's match on such a key can change when one of these spans has
 * passed since its fact's time. 0, or -ENOMEM.
 */
int policy_durations(const Policy *p, uint64_t **ret, size_t *ret_n);

/*
 * What to read of a process to match it against P (lib/proc.h, PROC_READ_*):
 * what the keys its rules use need (policy/keys.c), and the cgroup when it
 * has [Unit] sections (the per-task fallback needs it). A key that appears
 * nowhere cannot change any match result, so its value need not be read.
 * PROC_READ_STAT only where the parent is followed; PROC_READ_THREAD when
 * threads are matched by name (each thread's, not the process's);
 * PROC_READ_COMM when a rename of the process may change a match. 0 for a
 * NULL policy.
 */
ProcReadPlan policy_read_plan(const Policy *p);

/* ---- Matching tasks ------------------------------------------------- */

typedef struct MatchResult {
        Settings settings;  /* merged settings of every matching rule */
        size_t n_matched;   /* number of matching rules */
        const char *rule;   /* name of the last matching rule (owned by the policy), or NULL */
        /* A predicate on a per-thread key (thread:, main-thread:; keys.h)
         * took part in the decision: the result may differ for other threads
         * of the same process. */
        bool thread_dependent;
        /* SETTING_BIT()s whose value came from a rule with RequireTrustedExe=no:
         * boosts that need no trusted executable (policy/boost.h). */
        uint32_t untrusted_ok;
} MatchResult;

typedef enum RuleVerdict {
        RULE_MATCHED,
        RULE_NOT_MATCHED,
        RULE_SKIPPED_FINAL, /* an earlier matching rule had Final=yes */
} RuleVerdict;

/* "matched", "not-matched", "skipped-final" (Explain, latnicectl explain);
 * "unknown" for anything else. */
const char *rule_verdict_to_string(RuleVerdict v);

typedef struct RuleTrace {
        const char *rule; /* rule name (owned by the policy) */
        const char *file; /* path of its file */
        unsigned line;    /* line of its [Rule] header */
        RuleVerdict verdict;
        /* The predicate that decided, in source syntax ("name:pipewire",
         * "!cmdline:*rdd*"), or NULL when skipped. Owned by the trace. */
        char *decider;
        Settings settings; /* what the rule contributes (profile included) */
} RuleTrace;

typedef struct MatchTrace {
        RuleTrace *rules;
        size_t n;
} MatchTrace;

void match_trace_done(MatchTrace *t);

/*
 * Match TASK against every rule. Exact-name predicates are looked up in a
 * hash index, so the cost does not grow with the number of name rules.
 * If TRACE is not NULL, every rule is evaluated (slow path) and reported.
 * Returns 0, or -ENOMEM (trace only).
 */
int policy_match(const Policy *p, const TaskSnapshot *task, MatchResult *ret, MatchTrace *trace);

/* ---- [Unit GLOB] sections ------------------------------------------- */

typedef struct UnitSection {
        const char *glob; /* "pipewire.service", "*.scope" */
        const char *file;
        unsigned line;
        Settings settings;
} UnitSection;

const UnitSection *policy_unit(const Policy *p, size_t i);
/* Merged settings of every [Unit] section whose glob matches UNIT, in file order.
 * Returns true if any matched. */
bool policy_match_unit(const Policy *p, const char *unit, Settings *ret);
