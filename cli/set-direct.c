/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl set without latniced: the settings are applied to every thread
 * of the process here, as renice(1), chrt -p and uclampset -p do. No one
 * records the previous values, so the user is told that nothing will
 * restore them.
 */
#include "cli/cli.h"
#include "cli/json.h"
#include "lib/macro.h"
#include "lib/probe.h"
#include "lib/proc.h"
#include "lib/settings.h"
#include "lib/thread-settings.h"

/* Every thread of PID that still exists; the first error if none took them. */
static int apply_threads(const ApplyContext *ctx, const CliOptions *o, pid_t pid,
                         const Settings *s, size_t *ret_done, uint32_t *ret_unsupported)
{
        _cleanup_free_ pid_t *tids = NULL;
        size_t n = 0, done = 0;
        uint32_t unsupported = 0;
        int r, first_error = 0;

        ApplyContext c = *ctx;

        r = proc_threads(o->proc_root, pid, &tids, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                SchedState before;
                uint32_t applied = 0, u = 0;

                r = settings_apply_tid(&c, tids[i], s, &before, &applied, &u);
                if (errno_is_gone(r))
                        continue; /* the thread exited meanwhile */
                if (r < 0) {
                        if (first_error == 0)
                                first_error = r;
                        continue;
                }
                /* CoreSched: the first thread's new cookie is the others'. */
                if ((applied & SETTING_BIT(SETTING_CORE_SCHED)) && c.core_source == 0)
                        c.core_source = tids[i];
                unsupported |= u;
                done++;
        }
        if (done == 0)
                return first_error < 0 ? first_error : -ESRCH;
        *ret_done = done;
        *ret_unsupported = unsupported;
        return 0;
}

static int print_done(const CliOptions *o, pid_t pid, const Settings *s, size_t threads)
{
        _cleanup_free_ char *str = settings_to_string(s);

        if (o->json) {
                JsonWriter w;

                json_writer_init(&w, stdout);
                json_writer_set_pretty(&w, false); /* one line, as set through latniced */
                json_begin_object(&w);
                json_kv_uint(&w, "pid", (uint64_t)pid);
                json_kv_string(&w, "settings", str ? str : "");
                json_kv_bool(&w, "direct", true);
                json_kv_uint(&w, "threads", threads);
                json_end_object(&w);
                return json_writer_finish(&w) < 0 ? cli_error("failed to write the output")
                                                   : CLI_EXIT_SUCCESS;
        }
        if (!o->quiet)
                printf("pid %d: %s (%zu thread%s)\n", (int)pid, str ? str : "set", threads,
                       threads == 1 ? "" : "s");
        return fflush(stdout) == 0 ? CLI_EXIT_SUCCESS : cli_error("failed to write the output");
}

int cli_set_direct(const CliOptions *o, pid_t pid, const Settings *s, bool daemon_off_bus)
{
        _cleanup_(proc_task_freep) ProcTask *p = NULL;
        KernelFeatures k;
        ApplyContext ctx;
        uint32_t unsupported = 0;
        size_t done = 0;
        int r;

        r = proc_task_read(o->proc_root, pid, 0, PROC_READ_STAT | PROC_READ_IDS,
                           &p);
        if (errno_is_gone(r))
                return cli_error("no process with PID %d", (int)pid);
        if (r < 0) {
                errno = -r;
                return cli_error("failed to read process %d: %m", (int)pid);
        }
        if (p->kernel_thread)
                return cli_error("%d is a kernel thread; latnice never changes those", (int)pid);

        r = cli_apply_context(o, &k, &ctx);
        if (r != 0)
                return r;
        r = apply_threads(&ctx, o, pid, s, &done, &unsupported);
        if (errno_is_gone(r))
                return cli_error("no process with PID %d", (int)pid);
        if (r == -EPERM || r == -EACCES)
                return cli_error("not allowed to set these attributes of process %d (another "
                                 "user's process, raising priority or lowering latency nice "
                                 "needs root or CAP_SYS_NICE)",
                                 (int)pid);
        if (r == -EBUSY)
                return cli_error("process %d runs under a real-time or deadline policy; latnice "
                                 "never changes such tasks",
                                 (int)pid);
        if (r < 0) {
                errno = -r;
                return cli_error("failed to apply the settings to process %d: %m", (int)pid);
        }
        fprintf(stderr, "latnicectl: warning: latniced is not %s: applied to process %d "
                        "directly; nothing will restore its previous values\n",
                daemon_off_bus ? "on the system bus" : "running", (int)pid);
        if (unsupported)
                cli_warn_unsupported(unsupported, &k);
        return print_done(o, pid, s, done);
}
