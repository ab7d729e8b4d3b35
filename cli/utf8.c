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
