/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the ananicy importer (JSON-line reader and converter), fed
 * through ananicy_convert_buffers(), the same reading and writing code
 * latnicectl import-ananicy runs on a directory.
 *
 * The input is split at lines "%%": the first part is the content of
 * 00-types.types, the second of 10-fuzz.rules, the third of 00-cgroups.cgroups,
 * any further part of NN-extra.rules. An input without "%%" is tried both as
 * a .types and as a .rules file.
 *
 * Oracle: the converted policy must load without errors (warnings are fine),
 * and the statistics must add up.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/ananicy.h"
#include "lib/macro.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PARTS_MAX 8

static void convert(const AnanicyBuffer *files, size_t n)
{
        _cleanup_free_ char *text = NULL;
        AnanicyStats st = {};
        Diagnostics d = {};
        Policy *p = NULL;
        size_t text_size = 0;
        FILE *out;
        int r;

        out = open_memstream(&text, &text_size);
        if (!out)
                return;
        r = ananicy_convert_buffers(files, n, "fuzz", out, &st);
        if (fclose(out) != 0)
                return;
        if (r == -ENOMEM || r == -E2BIG)
                return;
        if (r == -ENOMSG) {
                /* nothing written, no rule and no type counted */
                if (text_size != 0 || st.rules != 0 || st.types != 0)
                        abort();
                return;
        }
        if (r < 0)
                abort();

        if (st.rules_renamed > st.rules || st.files > n || st.rules + st.types == 0)
                abort();

        if (policy_load_string("50-ananicy.policy", text, text_size, &p, &d) < 0) {
                diagnostics_done(&d);
                return; /* out of memory */
        }
        if (diagnostics_count(&d, DIAG_ERROR) > 0) {
                for (size_t i = 0; i < d.n; i++) {
                        _cleanup_free_ char *m = diagnostic_format(&d.items[i]);
                        fprintf(stderr, "%s\n", strna(m));
                }
                fprintf(stderr, "--- converted policy:\n%s---\n", text);
                abort();
        }
        policy_free(p);
        diagnostics_done(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const char *const names[PARTS_MAX] = {
                "00-types.types",    "10-fuzz.rules",     "00-cgroups.cgroups",
                "sub/20-extra.rules", "sub/30-extra.rules", "40-extra.types",
                "50-extra.rules",    "60-extra.rules",
        };
        AnanicyBuffer files[PARTS_MAX];
        const char *s = (const char *)data, *end = s + size;
        size_t n = 0;

        if (size > 256 * 1024)
                return 0;

        /* split at lines that are exactly "%%" */
        for (const char *part = s; n < PARTS_MAX;) {
                const char *cut = NULL;

                for (const char *q = part; q + 2 <= end; q++) {
                        q = memchr(q, '%', (size_t)(end - q));
                        if (!q || q + 2 > end)
                                break;
                        if (q[1] == '%' && (q == s || q[-1] == '\n') &&
                            (q + 2 == end || q[2] == '\n')) {
                                cut = q;
                                break;
                        }
                }
                if (!cut || n == PARTS_MAX - 1) {
                        files[n] = (AnanicyBuffer){ names[n], part, (size_t)(end - part) };
                        n++;
                        break;
                }
                files[n] = (AnanicyBuffer){ names[n], part, (size_t)(cut - part) };
                n++;
                part = cut + 2 < end ? cut + 3 : end;
        }

        if (n == 1) {
                /* one file: as types, then as rules */
                convert(files, 1);
                files[0].name = "10-fuzz.rules";
                convert(files, 1);
        } else
                convert(files, n);

        /* a name that is not a rule set file is skipped */
        files[0].name = "README.md";
        convert(files, 1);
        return 0;
}
