/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A failed ln_assert() (lib/invariant.h). */
#include <stdlib.h>

#include "lib/invariant.h"
#include "lib/log.h"

void ln_assert_failed(const char *expr, const char *file, int line, const char *func)
{
        log_internal(LOG_CRIT, 0, file, line, func,
                     "Assertion '%s' failed in %s(): a bug in latnice", expr, func);
        abort();
}
