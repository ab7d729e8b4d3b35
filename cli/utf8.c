/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdbool.h>

#include "cli/utf8.h"
#include "lib/macro.h"

size_t utf8_decode(const char *s, size_t n, uint32_t *ret_cp)
{
        const unsigned char *u = (const unsigned char *)s;
        uint32_t cp, min;
        size_t len;

        if (n == 0)
                return 0;
        if (u[0] < 0x80) {
                *ret_cp = u[0];
                return 1;
        }
        if ((u[0] & 0xe0) == 0xc0) {
                len = 2, cp = u[0] & 0x1f, min = 0x80;
        } else if ((u[0] & 0xf0) == 0xe0) {
                len = 3, cp = u[0] & 0x0f, min = 0x800;
        } else if ((u[0] & 0xf8) == 0xf0) {
                len = 4, cp = u[0] & 0x07, min = 0x10000;
        } else
                return 0;
        if (n < len)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((u[i] & 0xc0) != 0x80)
                        return 0;
                cp = (cp << 6) | (u[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                return 0;
        *ret_cp = cp;
        return len;
}

size_t utf8_encode(uint32_t cp, char buf[static 4])
{
        if (cp < 0x80) {
                buf[0] = (char)cp;
                return 1;
        }
        if (cp < 0x800) {
                buf[0] = (char)(0xc0 | (cp >> 6));
                buf[1] = (char)(0x80 | (cp & 0x3f));
                return 2;
        }
        if (cp >= 0xd800 && cp <= 0xdfff)
                return 0;
        if (cp < 0x10000) {
                buf[0] = (char)(0xe0 | (cp >> 12));
                buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
                buf[2] = (char)(0x80 | (cp & 0x3f));
                return 3;
        }
        if (cp <= 0x10ffff) {
                buf[0] = (char)(0xf0 | (cp >> 18));
                buf[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
                buf[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
                buf[3] = (char)(0x80 | (cp & 0x3f));
                return 4;
        }
        return 0;
}

int utf8_is_valid(const char *s, size_t n)
{
        uint32_t cp;

        for (size_t i = 0; i < n;) {
                size_t l = utf8_decode(s + i, n - i, &cp);
                if (l == 0)
                        return false;
                i += l;
        }
        return true;
}

typedef struct Range {
        uint32_t lo, hi;
} Range;

static const Range zero_width[] = {
        { 0x0300, 0x036f }, { 0x0483, 0x0489 }, { 0x0591, 0x05bd }, { 0x0610, 0x061a },
        { 0x064b, 0x065f }, { 0x0e31, 0x0e31 }, { 0x0e34, 0x0e3a }, { 0x0e47, 0x0e4e },
        { 0x1ab0, 0x1aff }, { 0x1dc0, 0x1dff }, { 0x200b, 0x200f }, { 0x202a, 0x202e },
        { 0x2060, 0x2064 }, { 0x20d0, 0x20ff }, { 0xfe00, 0xfe0f }, { 0xfe20, 0xfe2f },
        { 0xfeff, 0xfeff }, { 0xe0100, 0xe01ef },
};

static const Range wide[] = {
        { 0x1100, 0x115f },   { 0x231a, 0x231b },   { 0x2329, 0x232a },   { 0x23e9, 0x23ec },
        { 0x25fd, 0x25fe },   { 0x2614, 0x2615 },   { 0x2648, 0x2653 },   { 0x26a1, 0x26a1 },
        { 0x26bd, 0x26be },   { 0x26c4, 0x26c5 },   { 0x26d4, 0x26d4 },   { 0x26ea, 0x26ea },
        { 0x26f5, 0x26f5 },   { 0x26fa, 0x26fa },   { 0x26fd, 0x26fd },   { 0x2705, 0x2705 },
        { 0x270a, 0x270b },   { 0x2728, 0x2728 },   { 0x274c, 0x274c },   { 0x2753, 0x2755 },
        { 0x2795, 0x2797 },   { 0x2e80, 0x303e },   { 0x3041, 0x33ff },   { 0x3400, 0x4dbf },
        { 0x4e00, 0x9fff },   { 0xa000, 0xa4cf },   { 0xa960, 0xa97f },   { 0xac00, 0xd7a3 },
        { 0xf900, 0xfaff },   { 0xfe10, 0xfe19 },   { 0xfe30, 0xfe6f },   { 0xff00, 0xff60 },
        { 0xffe0, 0xffe6 },   { 0x1f004, 0x1f004 }, { 0x1f0cf, 0x1f0cf }, { 0x1f18e, 0x1f18e },
        { 0x1f191, 0x1f19a }, { 0x1f200, 0x1f251 }, { 0x1f300, 0x1f64f }, { 0x1f680, 0x1f6ff },
        { 0x1f7e0, 0x1f7eb }, { 0x1f900, 0x1f9ff }, { 0x1fa70, 0x1faff }, { 0x20000, 0x2fffd },
        { 0x30000, 0x3fffd },
};

static bool in_ranges(uint32_t cp, const Range *r, size_t n)
{
        size_t lo = 0, hi = n;

        while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (cp < r[mid].lo)
                        hi = mid;
                else if (cp > r[mid].hi)
                        lo = mid + 1;
                else
                        return true;
        }
        return false;
}

unsigned utf8_cp_width(uint32_t cp)
{
        if (cp < 0x300)
                return 1;
        if (in_ranges(cp, zero_width, ELEMENTSOF(zero_width)))
                return 0;
        if (in_ranges(cp, wide, ELEMENTSOF(wide)))
                return 2;
        return 1;
}
