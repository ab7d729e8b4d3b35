/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latnicectl kernel: what the running kernel supports, and the
 * latency-nice -> slice table for this machine's base slice.
 */
#include <inttypes.h>
#include <langinfo.h>

#include "cli/cli.h"
#include "cli/format.h"
#include "cli/json.h"
#include "cli/kernel-note.h"
#include "cli/table-fit.h"
#include "cli/table.h"
#include "lib/macro.h"
#include "lib/namespace.h"
#include "lib/probe.h"
#include "lib/sched-effect.h"
#include "lib/sched-info.h"
#include "lib/strv.h"
#include "lib/util.h"

static const char *autogroup_string(int a)
{
        return a > 0 ? "on" : a == 0 ? "off" : "unsupported";
}

/* SMT as the kernel reports it, for people: "on", "off (forceoff)", ... */
static const char *smt_string(const CoreSchedSupport *c)
{
        if (!c->smt_control)
                return c->smt_active > 0 ? "active" : c->smt_active == 0 ? "inactive" : "unknown";
        return c->smt_control;
}

/* The setting names of MASK as a JSON array ("Nice", ...). */
static void json_settings(JsonWriter *w, const char *key, uint32_t mask)
{
        json_key(w, key);
        json_begin_array(w);
        for (int id = 0; id < _SETTING_MAX; id++)
                if (mask & SETTING_BIT(id))
                        json_string(w, setting_to_string(id));
        json_end_array(w);
}

static void print_json(const KernelFeatures *k, const SchedInfo *si)
{
        _cleanup_free_ char *preempt = sched_info_preempt_describe(si);
        uint32_t acts = sched_effect_mask(k, scx_state_active(si->scx));
        JsonWriter w;

        json_writer_init(&w, stdout);
        json_begin_object(&w);
        json_kv_string(&w, "kernel_release", k->release);
        json_kv_string(&w, "latency_nice_backend", latency_backend_to_string(k->best_backend));
        json_kv_bool(&w, "latency_nice_syscall", k->latency_nice_syscall);
        json_kv_bool(&w, "latency_nice_cgroup", k->latency_nice_cgroup);
        json_kv_bool(&w, "eevdf_slice", k->eevdf_slice);
        json_kv_string(&w, "latency_note",
                       kernel_latency_note(k->eevdf_slice, k->latency_nice_syscall));
        json_kv_bool(&w, "uclamp_task", k->uclamp_task);
        json_kv_bool(&w, "uclamp_cgroup", k->uclamp_cgroup);
        json_kv_bool(&w, "cgroup2_cpu", k->cgroup2_cpu);
        json_kv_string(&w, "cgroup_root", k->cgroup_root[0] ? k->cgroup_root : NULL);
        json_kv_bool(&w, "sched_ext_active", k->sched_ext_active);
        json_kv_string(&w, "sched_ext_state", scx_state_to_string(si->scx));
        json_kv_string(&w, "sched_ext_scheduler", si->scx_ops);
        json_kv_string(&w, "preemption_model", preempt_model_to_string(si->preempt));
        json_kv_string(&w, "preemption", preempt);
        json_key(&w, "hz");
        if (si->hz)
                json_uint(&w, si->hz);
        else
                json_null(&w);
        json_settings(&w, "settings_in_effect", acts);
        json_settings(&w, "settings_without_effect",
                      SETTINGS_RULE_MASK & ~SETTING_BIT(SETTING_GROUP_SCOPE) & ~acts);
        json_kv_string(&w, "autogroup", autogroup_string(k->autogroup));
        json_kv_bool(&w, "core_scheduling", k->core_sched.status == CORE_SCHED_OK);
        json_kv_string(&w, "core_scheduling_status", core_sched_status_to_string(&k->core_sched));
        json_kv_string(&w, "smt_control", k->core_sched.smt_control);
        json_kv_uint(&w, "ncpus", k->ncpus);
        json_kv_uint(&w, "base_slice_ns", k->base_slice_ns);
        json_kv_string(&w, "base_slice_source", k->base_slice_from_debugfs ? "debugfs" : "computed");
        {
                NamespaceCheck ns = {};
                int r = namespace_check(&ns);

                /* true, false, or null when /proc/self/ns cannot be read */
                json_key(&w, "initial_namespaces");
                if (r < 0)
                        json_null(&w);
                else
                        json_bool(&w, r > 0);
                json_kv_string(&w, "namespace_problem", ns.which);
                json_kv_string(&w, "namespace_fix", ns.fix);
        }
        json_key(&w, "latency_nice_table");
        json_begin_array(&w);
        for (int ln = -20; ln <= 19; ln++) {
                json_begin_object(&w);
                json_kv_int(&w, "latency_nice", ln);
                json_kv_uint(&w, "weight", (uint64_t)sched_prio_to_weight[ln + 20]);
                json_kv_uint(&w, "slice_ns", latency_nice_to_slice(ln, k->base_slice_ns));
                json_end_object(&w);
        }
        json_end_array(&w);
        json_end_object(&w);
        (void)json_writer_finish(&w);
}

static const char *yes_no(bool b)
{
        return b ? "yes" : "no";
}

/* latniced refuses to start outside the initial namespaces (lib/namespace.h):
 * say so here too, where someone checks what this machine supports. */
static void print_namespaces(const CliOptions *o)
{
        NamespaceCheck ns;
        int r = namespace_check(&ns);

        if (r > 0)
                printf("Namespaces:               initial PID and user namespaces\n");
        else if (r == 0)
                printf("Namespaces:               %snot the host's %s namespace (%s:[%" PRIu64
                       "]): latniced cannot run here%s; %s.\n",
                       cli_color(o, "red"), ns.which, streq(ns.which, "PID") ? "pid" : "user",
                       ns.inode, cli_color(o, "reset"), ns.fix);
        else
                printf("Namespaces:               unknown (/proc/self/ns: %s)\n", strerror(-r));
}

void cli_print_latency_note(const CliOptions *o, bool eevdf_slice, bool latency_nice_syscall)
{
        const char *note = kernel_latency_note(eevdf_slice, latency_nice_syscall);
        _cleanup_free_ char *wrapped = NULL;

        if (!note)
                return;
        /* "Note:" and the sentence wrapped under the values (26 columns in) */
        wrapped = text_wrap(note, o->tty && o->columns > 46 ? o->columns - 26 : 54, false);
        printf("%sNote:%s", cli_color(o, "yellow"), cli_color(o, "reset"));
        for (const char *p = wrapped ? wrapped : note; p && *p;) {
                const char *nl = strchr(p, '\n');
                int n = nl ? (int)(nl - p) : (int)strlen(p);

                printf("%*s%.*s\n", p == (wrapped ? wrapped : note) ? 21 : 26, "", n, p);
                p = nl ? nl + 1 : NULL;
        }
}

int cli_namespace_note(int r)
{
        NamespaceCheck ns;

        if (namespace_check(&ns) == 0)
                fprintf(stderr, "latnicectl: this is not the host's %s namespace, latniced cannot "
                                "run here: %s.\n",
                        ns.which, ns.fix);
        return r;
}

/* A long value after a 26-column label, wrapped under itself. */
static void print_wrapped(const CliOptions *o, const char *label, const char *value)
{
        _cleanup_free_ char *wrapped =
                text_wrap(value, o->tty && o->columns > 46 ? o->columns - 26 : 54, false);
        const char *v = wrapped ? wrapped : value;

        printf("%-26s", label);
        for (const char *p = v; p && *p;) {
                const char *nl = strchr(p, '\n');
                int n = nl ? (int)(nl - p) : (int)strlen(p);

                printf("%*s%.*s\n", p == v ? 0 : 26, "", n, p);
                p = nl ? nl + 1 : NULL;
        }
}

int cli_print_scheduler(const CliOptions *o, const SchedInfo *si, const KernelFeatures *k)
{
        _cleanup_free_ char *preempt = sched_info_preempt_describe(si), *scx = NULL,
                            *acts = NULL, *not = NULL;
        uint32_t m = sched_effect_mask(k, scx_state_active(si->scx));

        scx = kernel_sched_ext_note(scx_state_to_string(si->scx), si->scx_ops);
        acts = sched_effect_names(m);
        not = sched_effect_names(SETTINGS_RULE_MASK & ~SETTING_BIT(SETTING_GROUP_SCOPE) & ~m);
        if (!preempt || !scx || !acts || !not)
                return -ENOMEM;
        printf("Preemption:               %s\n", preempt);
        if (si->hz)
                printf("HZ:                       %u (from %s)\n", si->hz, si->hz_source);
        else
                printf("HZ:                       unknown (no kernel config in /boot or "
                       "/proc/config.gz)\n");
        print_wrapped(o, "sched_ext:", scx);
        print_wrapped(o, "Settings that act:", *acts ? acts : "none");
        print_wrapped(o, "Settings that do not:", *not ? not : "none");
        return 0;
}

static int print_text(const KernelFeatures *k, const SchedInfo *si, const CliOptions *o)
{
        _cleanup_free_ char *base = NULL;
        bool utf8 = streq(nl_langinfo(CODESET), "UTF-8");
        const char *backend = latency_backend_to_string(k->best_backend);
        int r;

        base = format_duration_ns(k->base_slice_ns, utf8);
        if (!base)
                return -ENOMEM;

        printf("Kernel:                   %s\n", k->release[0] ? k->release : "unknown");
        printf("Latency nice backend:     %s%s%s", cli_color(o, "bold"), backend,
               cli_color(o, "reset"));
        switch (k->best_backend) {
        case LATENCY_BACKEND_LATENCY_NICE:
                printf(" (the kernel's own latency nice)\n");
                break;
        case LATENCY_BACKEND_SLICE:
                printf(" (emulated with the EEVDF slice)\n");
                break;
        default:
                printf(" (latency nice has no effect on this kernel)\n");
        }
        cli_print_latency_note(o, k->eevdf_slice, k->latency_nice_syscall);
        printf("Latency nice (task):      %s\n", yes_no(k->latency_nice_syscall));
        printf("Latency nice (cgroup):    %s\n", yes_no(k->latency_nice_cgroup));
        printf("EEVDF slice:              %s\n", yes_no(k->eevdf_slice));
        printf("uclamp (task / cgroup):   %s / %s\n", yes_no(k->uclamp_task),
               yes_no(k->uclamp_cgroup));
        printf("cgroup v2 cpu controller: %s%s%s%s\n", yes_no(k->cgroup2_cpu),
               k->cgroup_root[0] ? " (" : "", k->cgroup_root, k->cgroup_root[0] ? ")" : "");
        r = cli_print_scheduler(o, si, k);
        if (r < 0)
                return r;
        printf("Core scheduling:          %s\n", core_sched_status_to_string(&k->core_sched));
        printf("SMT:                      %s\n", smt_string(&k->core_sched));
        printf("Autogroup:                %s%s\n", autogroup_string(k->autogroup),
               k->autogroup > 0 ? " (nice only competes inside a task's autogroup)" : "");
        printf("Base slice:               %s (%s, %u CPU%s)\n", base,
               k->base_slice_from_debugfs ? "from debugfs" : "computed", k->ncpus,
               k->ncpus == 1 ? "" : "s");
        print_namespaces(o);
        printf("\nLatency nice -> slice (slice = base slice * 1024 / weight, 0.1..100 ms):\n");

        /* three columns of (latency nice, slice): -20..-7, -6..7, 8..19 */
        printf("%s", cli_color(o, "bold"));
        for (int c = 0; c < 3; c++)
                printf("%s%4s %9s", c > 0 ? "    " : "", "LN", "SLICE");
        printf("%s\n", cli_color(o, "reset"));
        for (int row = 0; row < 14; row++) {
                for (int c = 0; c < 3; c++) {
                        _cleanup_free_ char *slice = NULL;
                        int v = -20 + c * 14 + row;
                        size_t w;

                        if (v > 19)
                                break;
                        slice = v == 0 ? strdup("base")
                                       : format_duration_ns(latency_nice_to_slice(v, k->base_slice_ns),
                                                            utf8);
                        if (!slice)
                                return -ENOMEM;
                        /* pad by display width: "µ" is two bytes, one cell */
                        w = cell_width(slice);
                        printf("%s%4d %*s%s", c > 0 ? "    " : "", v, (int)(w < 9 ? 9 - w : 0), "",
                               slice);
                }
                fputc('\n', stdout);
        }
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -EIO;
}

/* --machine: what a benchmark's result depends on, one "machine: " line
 * each (bench/machine.sh adds the CPU, virtualization and cgroup lines). */
static int print_machine(const KernelFeatures *k, const SchedInfo *si)
{
        _cleanup_free_ char *version = NULL, *preempt = sched_info_preempt_describe(si),
                            *acts = sched_effect_names(sched_effect_mask(k, scx_state_active(si->scx)));

        if (!preempt || !acts)
                return -ENOMEM;
        if (read_one_line_file("/proc/sys/kernel/version", &version) == -ENOMEM)
                return -ENOMEM;
        printf("machine: kernel: %s %s\n", k->release[0] ? k->release : "unknown",
               strempty(version));
        printf("machine: preemption: %s\n", preempt);
        if (si->hz)
                printf("machine: HZ: %u (from %s)\n", si->hz, si->hz_source);
        else
                printf("machine: HZ: unknown (no kernel config)\n");
        printf("machine: autogroup: %s\n", autogroup_string(si->autogroup));
        printf("machine: sched_ext: %s%s%s\n", scx_state_to_string(si->scx),
               si->scx_ops ? ", scheduler " : "", strempty(si->scx_ops));
        printf("machine: latnice settings that act: %s\n", *acts ? acts : "none");
        return fflush(stdout) == 0 && !ferror(stdout) ? 0 : -EIO;
}

int verb_kernel(int argc, char **argv, const CliOptions *o)
{
        _cleanup_free_ char **args = NULL;
        _cleanup_(sched_info_done) SchedInfo si = {};
        KernelFeatures k;
        size_t n;
        int r;

        r = cli_positional_args(argc, argv, "kernel", &args, &n);
        if (r != 0)
                return r;
        if (n > 0)
                return cli_usage_error("kernel takes no arguments, found '%s'", args[0]);

        r = kernel_probe(o->cgroup_root, &k);
        if (r >= 0)
                r = sched_info_read(NULL, &si);
        if (r < 0)
                return cli_error("failed to probe the kernel: out of memory");
        if (o->machine)
                r = print_machine(&k, &si);
        else if (o->json) {
                print_json(&k, &si);
                return ferror(stdout) ? CLI_EXIT_FAILURE : CLI_EXIT_SUCCESS;
        } else
                r = print_text(&k, &si, o);
        if (r == -ENOMEM)
                return cli_error("out of memory");
        if (r < 0)
                return cli_error("failed to write the output");
        return CLI_EXIT_SUCCESS;
}
