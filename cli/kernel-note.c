/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stddef.h>

#include "cli/kernel-note.h"

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
