/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Invariants: what the code relies on, stated where it relies on it
 * (dbus-broker's c_assert). ln_assert(EXPR) is checked unless NDEBUG is
 * defined, as assert() is: meson's default (b_ndebug=false) checks them in
 * every build, the unit tests included (tests/unit/meson.build warns when a
 * configuration would compile them out). A failed one says which, where,
 * and aborts: it is a bug in latnice, never bad input or a task's doing
 * (those are errors the caller handles). EXPR must have no side effects:
 * with NDEBUG it is not evaluated.
 */
#pragma once

#include "lib/macro.h"

_noreturn_ void ln_assert_failed(const char *expr, const char *file, int line, const char *func);

#ifdef NDEBUG
#define ln_assert(expr)                                                                     \
        do {                                                                                \
                if (false)                                                                  \
                        (void)(expr);                                                       \
        } while (0)
#else
#define ln_assert(expr)                                                                     \
        do {                                                                                \
                if (_unlikely_(!(expr)))                                                    \
                        ln_assert_failed(#expr, __FILE__, __LINE__, __func__);              \
        } while (0)
#endif
