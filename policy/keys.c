/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Match keys: the registry (see keys.h) and each key's snapshot accessor.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/duration.h"
#include "policy/keys.h"
#include "policy/match.h"
#include "policy/parser.h"

static bool match_names(const Expr *e, const TaskNames *n)
{
        return expr_match_value(e, n->argv0) || expr_match_value(e, n->exe) ||
               expr_match_value(e, n->comm);
}

/* A user or group: its name, or its number. */
static bool match_id(const Expr *e, const char *name, unsigned id)
{
        char buf[3 * sizeof(unsigned) + 1];

        if (expr_match_value(e, name))
                return true;
        snprintf(buf, sizeof(buf), "%u", id);
        return expr_match_value(e, buf);
}

static bool match_name(const Expr *e, const TaskSnapshot *t)
{
        return match_names(e, &t->names);
}

static bool match_comm(const Expr *e, const TaskSnapshot *t)
{
        return expr_match_value(e, t->names.comm);
}

static bool match_exe(const Expr *e, const TaskSnapshot *t)
{
        return expr_match_value(e, t->exe_path);
}

static bool match_cmdline(const Expr *e, const TaskSnapshot *t)
{
        return expr_match_value(e, t->cmdline);
}

static bool match_user(const Expr *e, const TaskSnapshot *t)
{
        return match_id(e, t->user, (unsigned)t->uid);
}

static bool match_group(const Expr *e, const TaskSnapshot *t)
{
        return match_id(e, t->group, (unsigned)t->gid);
}

static bool match_cgroup(const Expr *e, const TaskSnapshot *t)
{
        return expr_match_value(e, t->cgroup);
}

static bool match_unit(const Expr *e, const TaskSnapshot *t)
{
        return expr_match_value(e, t->unit);
}

static bool match_pod(const Expr *e, const TaskSnapshot *t)
{
        return expr_match_value(e, t->pod);
}

static bool match_parent(const Expr *e, const TaskSnapshot *t)
{
        return t->ancestors && t->n_ancestors > 0 && match_names(e, &t->ancestors[0]);
}

static bool match_ancestor(const Expr *e, const TaskSnapshot *t)
{
        for (size_t i = 0; t->ancestors && i < t->n_ancestors; i++)
                if (match_names(e, &t->ancestors[i]))
                        return true;
        return false;
}

static bool match_thread(const Expr *e, const TaskSnapshot *t)
{
        return expr_match_value(e, t->thread);
}

/* main-thread:yes for the thread whose id is the process's (the one the
 * process started with, or the one that called execve() last), main-thread:no
 * for every other; per thread only, like thread: */
static bool match_main_thread(const Expr *e, const TaskSnapshot *t)
{
        return t->thread && expr_match_value(e, t->tid == t->pid ? "yes" : "no");
}

static bool match_focused(const Expr *e, const TaskSnapshot *t)
{
        return expr_match_value(e, t->focused);
}

/* unfocused:>5min, unfocused:<10s: how long the process has been
 * unfocused, while it is (focused:no) */
static bool match_unfocused(const Expr *e, const TaskSnapshot *t)
{
        return t->focused && streq(t->focused, "no") &&
               duration_compare_match(&e->duration, t->unfocused_usec);
}

static bool match_audio(const Expr *e, const TaskSnapshot *t)
{
        return expr_match_value(e, t->audio);
}

/* env:NAME=glob: the value of NAME, the first entry of that name as getenv()
 * finds it; the argument is "NAME=" (split_env()). */
static bool match_env(const Expr *e, const TaskSnapshot *t)
{
        size_t n = strlen(e->argument);
        const char *p = t->env, *end = t->env + t->env_size;

        if (!p)
                return false;
        while (p < end) {
                const char *z = memchr(p, 0, (size_t)(end - p));

                /* the snapshot has a NUL after its last entry */
                if ((size_t)(end - p) >= n && memcmp(p, e->argument, n) == 0)
                        return expr_match_value(e, p + n);
                if (!z)
                        break;
                p = z + 1;
        }
        return false;
}

static bool is_name_char(char c, bool first)
{
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
               (!first && c >= '0' && c <= '9');
}

/* "NAME=pattern": NAME as the shell takes it (letters, digits, '_', not a
 * digit first). */
static int split_env(const char *pattern, size_t *ret_skip, char **ret_error, size_t *ret_at)
{
        const char *eq = strchr(pattern, '=');
        int r;

        *ret_at = 0;
        if (!eq)
                r = asprintf(ret_error, "expected env:NAME=pattern, found \"%.64s\" without '='",
                             pattern);
        else if (eq == pattern)
                r = asprintf(ret_error, "expected the name of an environment variable before "
                             "'=', found none");
        else {
                for (const char *c = pattern; c < eq; c++)
                        if (!is_name_char(*c, c == pattern)) {
                                *ret_at = (size_t)(c - pattern);
                                r = asprintf(ret_error,
                                             "expected the name of an environment variable "
                                             "(letters, digits and '_', not a digit first) "
                                             "before '=', found '%c' in \"%.*s\"",
                                             *c, (int)MIN((size_t)(eq - pattern), (size_t)64),
                                             pattern);
                                goto fail;
                        }
                *ret_skip = (size_t)(eq + 1 - pattern);
                return 0;
        }
fail:
        if (r < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

#define READ_NAMES (PROC_READ_COMM | PROC_READ_CMDLINE | PROC_READ_EXE)
#define READ_IDS (PROC_READ_IDS | PROC_READ_NAMES)
#define READ_ANCESTORS (PROC_READ_ANCESTORS | PROC_READ_STAT)

static const char *const yes_no[] = { "yes", "no", NULL };

static const MatchKeyInfo keys[] = {
        /* argv[0]'s, the exe's or the comm's basename */
        [KEY_NAME] = { .name = "name", .multi = true, .trust = KEY_TRUST_NAMES,
                       .reads = READ_NAMES, .name_index = true, .match = match_name },
        [KEY_COMM] = { .name = "comm", .trust = KEY_TRUST_NAMES, .reads = PROC_READ_COMM,
                       .max_length = 15, .max_length_hint = "name: matches longer names",
                       .match = match_comm },
        [KEY_EXE] = { .name = "exe", .reads = PROC_READ_EXE, .match = match_exe },
        [KEY_CMDLINE] = { .name = "cmdline", .reads = PROC_READ_CMDLINE,
                          .match = match_cmdline },
        [KEY_USER] = { .name = "user", .multi = true, .reads = READ_IDS, .match = match_user },
        [KEY_GROUP] = { .name = "group", .multi = true, .reads = READ_IDS,
                        .match = match_group },
        [KEY_CGROUP] = { .name = "cgroup", .trust = KEY_TRUST_DELEGATED,
                         .reads = PROC_READ_CGROUP, .match = match_cgroup },
        [KEY_UNIT] = { .name = "unit", .trust = KEY_TRUST_DELEGATED, .reads = PROC_READ_CGROUP,
                       .match = match_unit },
        [KEY_PARENT] = { .name = "parent", .multi = true, .trust = KEY_TRUST_USER,
                         .reads = READ_ANCESTORS, .match = match_parent },
        [KEY_ANCESTOR] = { .name = "ancestor", .multi = true, .trust = KEY_TRUST_USER,
                           .reads = READ_ANCESTORS, .match = match_ancestor },
        [KEY_THREAD] = { .name = "thread", .reads = PROC_READ_THREAD, .match = match_thread,
                         .per_thread = true },
        /* nothing to read: the caller that matches a thread knows its id */
        [KEY_MAIN_THREAD] = { .name = "main-thread", .match = match_main_thread,
                              .per_thread = true, .values = yes_no },
        /* keys that no code names: rows only */
        { .name = "env", .trust = KEY_TRUST_USER, .reads = PROC_READ_ENVIRON,
          .match = match_env, .split_argument = split_env },
        /* "yes" or "no": the focus store judges by the uid, the cgroup and
         * the parent (daemon/desktop/focus.h); the user chooses it (their compositor
         * or they themselves write the attribute and call SetFocus) */
        { .name = "focused", .trust = KEY_TRUST_USER,
          .reads = PROC_READ_IDS | PROC_READ_CGROUP | PROC_READ_STAT, .match = match_focused },
        /* the Kubernetes pod, "QOS/UID/ID" (lib/kube-pod.h), from the cgroup
         * v2 path or a v1 one; the kubelet (root) chooses it */
        { .name = "pod", .trust = KEY_TRUST_DELEGATED, .reads = PROC_READ_CGROUP,
          .match = match_pod },
        /* "playing" or "no": a PipeWire stream of the process is running
         * (daemon/desktop/audio.h); the user chooses it (they start and stop
         * their streams, their PipeWire names the process) */
        { .name = "audio", .trust = KEY_TRUST_USER, .reads = PROC_READ_IDS,
          .match = match_audio },
        /* ">5min", "<10s": for how long the process has been unfocused, from
         * the same store as "focused" (the time Mutter wrote, or when a
         * SetFocus call named another app); the user chooses it as they
         * choose the focus */
        { .name = "unfocused", .trust = KEY_TRUST_USER,
          .reads = PROC_READ_IDS | PROC_READ_CGROUP | PROC_READ_STAT,
          .match = match_unfocused, .duration = true },
};

/* POLICY_KEY() bits are a uint32_t. */
_Static_assert(ELEMENTSOF(keys) <= 32, "at most 32 match keys");

size_t match_key_count(void)
{
        return ELEMENTSOF(keys);
}

const MatchKeyInfo *match_key_info(MatchKey k)
{
        if (k < 0 || (size_t)k >= ELEMENTSOF(keys))
                return NULL;
        return &keys[k];
}

const char *match_key_to_string(MatchKey k)
{
        const MatchKeyInfo *i = match_key_info(k);

        return i ? i->name : NULL;
}

MatchKey match_key_from_string_n(const char *s, size_t n)
{
        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                if (strlen(keys[k].name) == n && memcmp(keys[k].name, s, n) == 0)
                        return (MatchKey)k;
        return _KEY_INVALID;
}

const char *match_key_list(void)
{
        static char list[32 * 20];

        if (list[0] == 0) {
                char *p = list;

                for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                        p += snprintf(p, (size_t)(list + sizeof(list) - p), "%s%s",
                                      k > 0 ? ", " : "", keys[k].name);
        }
        return list;
}

ProcReadPlan match_keys_read_plan(uint32_t used)
{
        ProcReadPlan plan = 0;

        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                if (used & POLICY_KEY(k))
                        plan |= keys[k].reads;
        return plan;
}

bool match_keys_per_thread(uint32_t used)
{
        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                if ((used & POLICY_KEY(k)) && keys[k].per_thread)
                        return true;
        return false;
}
