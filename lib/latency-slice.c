/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The EEVDF base slice and the latency-nice -> slice mapping (see
 * latency-slice.h).
 */
#include <unistd.h>

#include "lib/latency-slice.h"
#include "lib/macro.h"
#include "lib/util.h"

const int sched_prio_to_weight[40] = {
        /* -20 */ 88761, 71755, 56483, 46273, 36291,
        /* -15 */ 29154, 23254, 18705, 14949, 11916,
        /* -10 */ 9548,  7620,  6100,  4904,  3906,
        /*  -5 */ 3121,  2501,  1991,  1586,  1277,
        /*   0 */ 1024,  820,   655,   526,   423,
        /*   5 */ 335,   272,   215,   172,   137,
        /*  10 */ 110,   87,    70,    56,    45,
        /*  15 */ 36,    29,    23,    18,    15,
};

#define SLICE_MIN_NS 100000ULL     /* 0.1 ms, the kernel's clamp */
#define SLICE_MAX_NS 100000000ULL  /* 100 ms */

uint64_t latency_nice_to_slice(int latency_nice, uint64_t base_slice_ns)
{
        uint64_t slice;

        if (latency_nice == 0)
                return 0;
        latency_nice = CLAMP(latency_nice, -20, 19);
        slice = base_slice_ns * 1024 / (uint64_t) sched_prio_to_weight[latency_nice + 20];
        return CLAMP(slice, SLICE_MIN_NS, SLICE_MAX_NS);
}

uint64_t base_slice_default(unsigned ncpus)
{
        unsigned n = MIN(MAX(ncpus, 1u), 8u), log2 = 0;

        /* SCHED_TUNABLESCALING_LOG: factor = 1 + ilog2(min(ncpus, 8)) */
        while (n >>= 1)
                log2++;
        return 700000ULL * (1 + log2);
}

uint64_t base_slice_read(bool *ret_from_debugfs)
{
        _cleanup_free_ char *s = NULL;
        uint64_t v;
        long n;

        if (read_one_line_file("/sys/kernel/debug/sched/base_slice_ns", &s) >= 0 &&
            safe_atou64(s, &v) >= 0 && v > 0) {
                if (ret_from_debugfs)
                        *ret_from_debugfs = true;
                return v;
        }
        if (ret_from_debugfs)
                *ret_from_debugfs = false;
        n = sysconf(_SC_NPROCESSORS_ONLN);
        return base_slice_default(n > 0 ? (unsigned) n : 1);
}
