/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/kernel-note.h"
#include "lib/macro.h"
#include "lib/sched-effect.h"

const char *kernel_latency_note(bool eevdf_slice, bool latency_nice_syscall)
{
        if (eevdf_slice)
                return NULL;
        if (latency_nice_syscall)
                return "this kernel has no EEVDF slices (Linux 6.6 and later have them): "
                       "Slice= does nothing here; LatencyNice= acts through the kernel's own "
                       "latency nice, and Nice=, Policy=idle and the group settings act";
        return "this kernel has no EEVDF (Linux 6.6 and later have it; Debian 12's 6.1 has "
               "not): LatencyNice= and Slice= do nothing here; only Nice=, Policy=idle "
               "(SCHED_IDLE) and the group settings (CPUWeight=, CPUIdle=) act on the CPU";
}

char *kernel_sched_ext_note(const char *state, const char *ops)
{
        char *s;

        if (streq_ptr(state, "absent"))
                return strdup("absent (this kernel is built without sched_ext)");
        if (streq_ptr(state, "disabled"))
                return strdup("no BPF scheduler loaded");
        if (streq_ptr(state, "enabled") || streq_ptr(state, "enabling")) {
                if (asprintf(&s,
                             "%s, scheduler %s: it reads no slice and no latency nice, and group "
                             "weights only if it implements them, so latniced does not write "
                             "Slice=, LatencyNice=, CPUWeight=, CPUIdle= or CPULatencyNice=; "
                             "Nice= (kept within -%d..%d) and Policy=idle act",
                             state, ops ? ops : "unknown", SCHED_EXT_NICE_CAP,
                             SCHED_EXT_NICE_CAP) < 0)
                        return NULL;
                return s;
        }
        if (asprintf(&s, "%s (/sys/kernel/sched_ext/state)", state ? state : "unknown") < 0)
                return NULL;
        return s;
}
