/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Match keys: the registry, one row per key of a match expression
 * (name:, comm:, cmdline:, ...), in policy/keys.c.
 *
 * A row says everything the rest of policy/ asks of a key: its name in the
 * language, how a predicate on it is matched against a TaskSnapshot (the
 * snapshot accessor), whether it has one value or several, who chooses its
 * value (the trust model, policy/boost.h), which /proc reads it needs
 * (lib/proc.h, collected by policy_read_plan()), and, for a key with an
 * argument (env:NAME=glob), how that is split off the pattern. The lexer,
 * the parser, the matcher, the trusted view and the read plan loop over the
 * table, and no other code lists keys (what the trusted view does to names
 * and delegated cgroups it does to snapshot fields, policy/boost.c). A new
 * key is a row.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/proc.h"
#include "lib/task.h"

/*
 * A key is its row's index in the table. Named here are the keys that code
 * or tests refer to by name; a key nobody names (env) is a row only.
 */
typedef enum MatchKey {
        KEY_NAME,
        KEY_COMM,
        KEY_EXE,
        KEY_CMDLINE,
        KEY_USER,
        KEY_GROUP,
        KEY_CGROUP,
        KEY_UNIT,
        KEY_PARENT,
        KEY_ANCESTOR,
        KEY_THREAD,
        KEY_MAIN_THREAD,
        _KEY_INVALID = -1,
} MatchKey;

/* The number of rows (every key, named or not). */
#define _KEY_MAX ((MatchKey)match_key_count())

/* Who chooses the value of a key, as the trusted view (policy/boost.h,
 * task_snapshot_trusted_view()) sees it. */
typedef enum KeyTrust {
        /* The task's user cannot change it for a trusted executable: the
         * executable's path, the ids, its arguments (read by its own code),
         * the thread names (chosen by its own code). */
        KEY_TRUST_FIXED,
        /* Names (argv[0], a comm set with prctl()): the trusted view puts the
         * executable's own name in their place. */
        KEY_TRUST_NAMES,
        /* The user's own when delegated (below user@UID.service). */
        KEY_TRUST_DELEGATED,
        /* The user chooses it: a predicate on it is false in the trusted
         * view, so a rule matched on it grants no boost that rests on trust. */
        KEY_TRUST_USER,
} KeyTrust;

typedef struct Expr Expr;

typedef struct MatchKeyInfo {
        const char *name;
        /* Several values per task (name: argv[0], exe and comm; user: the
         * name and the id; ancestor: every ancestor): two different exact
         * patterns joined by && can both match. */
        bool multi;
        KeyTrust trust;
        /* PROC_READ_* bits a snapshot needs for this key (lib/proc.h). */
        ProcReadPlan reads;
        /* Exact patterns go into the matcher's name index (policy/match.h). */
        bool name_index;
        /* Longest value the kernel gives (0: no bound), for the "can never
         * match" warning, with what to use instead. */
        size_t max_length;
        const char *max_length_hint;
        /* The snapshot accessor: does predicate E match T's value(s)? */
        bool (*match)(const Expr *e, const TaskSnapshot *t);
        /* A key with an argument before its pattern: the number of bytes of
         * PATTERN (unescaped) that are the argument and its separator, in
         * *RET_SKIP; -EINVAL with a message in *RET_ERROR (and the byte of
         * PATTERN at fault in *RET_AT) when PATTERN does not have one. */
        int (*split_argument)(const char *pattern, size_t *ret_skip, char **ret_error,
                              size_t *ret_at);
        /* The pattern is a duration comparison (">5min", "<10s";
         * policy/duration.h), not a glob; no regex form. Its value is a
         * span of time that grows by itself: whoever matches the key must
         * evaluate again when a policy_durations() span has passed. */
        bool duration;
        /* The value is the thread's, not the process's (thread:,
         * main-thread:): a rule that uses the key is matched thread by
         * thread (TaskSnapshot.thread set), and while the process as a whole
         * is matched (TaskSnapshot.thread NULL) a predicate on it is false. */
        bool per_thread;
        /* The only values the key has ("yes", "no", NULL-terminated): a
         * pattern must be one of them as written; no glob, no regex. NULL:
         * any glob or regex. */
        const char *const *values;
} MatchKeyInfo;

size_t match_key_count(void);
/* The row of K; NULL if there is none. */
const MatchKeyInfo *match_key_info(MatchKey k);
const char *match_key_to_string(MatchKey k);
MatchKey match_key_from_string_n(const char *s, size_t n);
/* "name, comm, exe, ..." for messages */
const char *match_key_list(void);

/* Bit of key K in the bits of expr_keys() and policy_used_keys(). */
#define POLICY_KEY(k) (UINT32_C(1) << (k))

/* The PROC_READ_* bits of every key in KEYS (POLICY_KEY() bits). */
ProcReadPlan match_keys_read_plan(uint32_t keys);
/* Is any key in KEYS (POLICY_KEY() bits) a per-thread one? */
bool match_keys_per_thread(uint32_t keys);
