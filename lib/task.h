/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Task snapshot: what the policy matcher sees of one process or thread.
 *
 * Pure data, borrowed pointers: whoever builds a snapshot (lib/proc.c from
 * /proc, a test from literals, the fuzzer from bytes) owns the strings.
 * NULL means "unknown" (no permission, kernel thread, task gone); a
 * predicate on an unknown field does not match.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct TaskNames {
        const char *comm;  /* kernel comm (at most 15 bytes), never NULL in a snapshot */
        const char *argv0; /* basename of argv[0], NULL when unknown */
        const char *exe;   /* basename of /proc/PID/exe, NULL when unknown */
} TaskNames;

typedef struct TaskSnapshot {
        pid_t pid; /* thread group id */
        pid_t tid; /* thread id; == pid for the main thread */

        TaskNames names;      /* the process ("name" and "comm" keys) */
        const char *exe_path; /* full path of /proc/PID/exe ("exe" key) */
        const char *cmdline;  /* argv joined by single spaces ("cmdline" key) */
        /* The environment ("env" key): ENV_SIZE bytes of "NAME=value" entries,
         * each ended by a NUL, and a NUL after them. */
        const char *env;
        size_t env_size;

        uid_t uid; /* real uid */
        gid_t gid; /* real gid */
        const char *user;  /* name of uid, NULL if it has none */
        const char *group; /* name of gid, NULL if it has none */

        const char *cgroup; /* cgroup v2 path, "/user.slice/..." */
        const char *unit;   /* systemd unit (system or user), NULL if none */
        const char *pod;    /* Kubernetes pod, "QOS/UID/ID" (lib/kube-pod.h), NULL if none */

        /* Thread name (comm of tid). NULL: the process as a whole is being
         * matched and any predicate on a per-thread key ("thread:",
         * "main-thread:" of tid == pid; policy/keys.h) is false. */
        const char *thread;

        /* Whether the process has the user's focus ("focused" key): "yes",
         * "no", or NULL when unknown. Not from /proc: latniced's focus store
         * (daemon/desktop/focus.h) fills it in, latnicectl asks latniced. */
        const char *focused;
        /* While focused is "no": for how long, in µs ("unfocused" key). */
        uint64_t unfocused_usec;

        /* Whether the process has an audio stream running ("audio" key):
         * "playing", "no" (its user's PipeWire is followed and it plays
         * nothing), or NULL when unknown. Not from /proc: latniced's audio
         * store (daemon/desktop/audio.h) fills it in. */
        const char *audio;

        /* ancestors[0] is the parent, [1] the grandparent, ... up to init. */
        const TaskNames *ancestors;
        size_t n_ancestors;

        /* The trusted view (policy/boost.h): a predicate on a key whose value
         * the task's user chooses (policy/keys.h, KEY_TRUST_USER) is false. */
        bool trusted_view;
} TaskSnapshot;
