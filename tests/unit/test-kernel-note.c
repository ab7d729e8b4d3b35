/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: cli/kernel-note (what the latency settings do, from the
 * kernel probe's findings), for the kernels this machine is not.
 */
#include "cli/kernel-note.h"
#include "lib/macro.h"
#include "tests/unit/test-util.h"

int main(void)
{
        const char *n;

        /* EEVDF (6.6 and later), with or without the latency nice patches */
        check(kernel_latency_note(true, false) == NULL);
        check(kernel_latency_note(true, true) == NULL);
        /* Debian 12's 6.1: neither */
        n = kernel_latency_note(false, false);
        check(n && strstr(n, "no EEVDF") && strstr(n, "LatencyNice= and Slice= do nothing") &&
              strstr(n, "Nice=, Policy=idle (SCHED_IDLE) and the group settings"));
        /* CFS with the latency nice patch set: LatencyNice= acts, Slice= not */
        n = kernel_latency_note(false, true);
        check(n && strstr(n, "Slice= does nothing") &&
              strstr(n, "LatencyNice= acts through the kernel's own latency nice"));
        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("test-kernel-note: all checks passed\n");
        return 0;
}
