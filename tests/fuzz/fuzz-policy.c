/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the policy loader (policy_load_string) and the matcher
 * (policy_match, fast and traced, and policy_match_unit) on a fixed snapshot,
 * as another thread and as the main thread, as the process as a whole, and
 * once more with a 64 KiB command line and argv[0]; the spans of its
 * duration predicates (unfocused:>5min; policy_durations()), each of them
 * matched just before and at its span.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/macro.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const TaskNames ancestors[] = {
                { .comm = "bash", .argv0 = "bash", .exe = "bash" },
                { .comm = "systemd", .argv0 = "systemd", .exe = "systemd" },
        };
        TaskSnapshot task = {
                .pid = 42,
                .tid = 43,
                .names = { .comm = "pipewire", .argv0 = "pipewire", .exe = "pipewire" },
                .exe_path = "/usr/bin/pipewire",
                .cmdline = "/usr/bin/pipewire --verbose",
                .uid = 1000,
                .gid = 1000,
                .user = "alice",
                .group = "alice",
                .cgroup = "/user.slice/user-1000.slice/user@1000.service/pipewire.service",
                .unit = "pipewire.service",
                .thread = "data-loop.0",
                .env = "HOME=/home/alice\0GAME=portal 2\0EMPTY=\0GAME=other",
                .env_size = sizeof("HOME=/home/alice\0GAME=portal 2\0EMPTY=\0GAME=other") - 1,
                .ancestors = ancestors,
                .n_ancestors = 2,
                .focused = "no",
                .unfocused_usec = 90 * UINT64_C(1000000),
        };
        uint64_t *spans = NULL;
        size_t n_spans = 0;
        static char long_value[64 * 1024];
        Diagnostics d = {};
        Policy *p = NULL;
        MatchResult fast, slow;
        MatchTrace trace = {};
        Settings s;

        if (size > 1024 * 1024)
                return 0;
        if (!long_value[0])
                memset(long_value, 'a', sizeof(long_value) - 1);
        if (policy_load_string("fuzz.policy", (const char *)data, size, &p, &d) < 0) {
                diagnostics_done(&d);
                return 0;
        }
        for (size_t i = 0; i < d.n; i++)
                free(diagnostic_format(&d.items[i]));

        if (policy_match(p, &task, &fast, NULL) < 0)
                abort();
        if (policy_match(p, &task, &slow, &trace) == 0) {
                /* the index must agree with evaluating every rule */
                if (fast.n_matched != slow.n_matched || fast.settings.mask != slow.settings.mask ||
                    fast.thread_dependent != slow.thread_dependent)
                        abort();
                match_trace_done(&trace);
        }
        /* the same thread as the process's main thread (main-thread:yes) */
        task.tid = task.pid;
        if (policy_match(p, &task, &fast, NULL) < 0 ||
            policy_match(p, &task, &slow, &trace) < 0)
                abort();
        if (fast.n_matched != slow.n_matched || fast.settings.mask != slow.settings.mask ||
            fast.thread_dependent != slow.thread_dependent)
                abort();
        match_trace_done(&trace);
        task.thread = NULL;
        (void)policy_match(p, &task, &fast, NULL);
        if (policy_durations(p, &spans, &n_spans) < 0)
                abort();
        for (size_t i = 0; i < n_spans; i++) {
                /* sorted, each once, within the grammar's bounds */
                if ((i > 0 && spans[i] <= spans[i - 1]) || spans[i] < UINT64_C(1000000) ||
                    spans[i] > UINT64_C(86400000000))
                        abort();
                task.unfocused_usec = spans[i] - 1;
                (void)policy_match(p, &task, &fast, NULL);
                task.unfocused_usec = spans[i];
                (void)policy_match(p, &task, &fast, NULL);
        }
        free(spans);
        /* the longest values lib/proc reads (64 KiB): regexes must stay fast on them */
        task.cmdline = long_value;
        task.names.argv0 = long_value;
        (void)policy_match(p, &task, &fast, NULL);
        (void)policy_match_unit(p, "pipewire.service", &s);
        for (size_t i = 0; i < policy_n_files(p); i++)
                (void)policy_file(p, i);

        policy_free(p);
        diagnostics_done(&d);
        return 0;
}
