/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cookies: the Applier's side of CoreSched= (lib/core-sched.h has the
 * kernel's): whose core scheduling cookie a thread is to get, and whether
 * the cookie it has is latniced's at all.
 *
 * latniced never takes over a cookie someone else set (a sandbox, a
 * container runtime, the program itself): a thread with a cookie that no
 * entry of the task table carries keeps it, and CoreSched= is left out for
 * it. A cookie that is latniced's but not the thread's own (a child or a
 * thread created by a process latniced gave one inherits it) counts as no
 * cookie: the original of CoreSched= is therefore always "none", and a
 * restore takes latniced's cookie away.
 *
 * Which cookie: CoreSched=process, the one another thread of the process
 * already got from latniced (its main thread's, else any), or a new one;
 * CoreSched=rule, the one a living process of the same rule (the same
 * group, policy/parser.c) carries, or a new one. A thread that already has
 * the right one keeps it. The answer goes to ApplyContext.core_source.
 */
#pragma once

#include <stdint.h>

#include "daemon/apply/apply.h"

/*
 * Before T (whose state NOW was just read, cookie included) gets S: set
 * A->ctx.core_source, and in *EFF (a copy of S) leave CoreSched out when
 * T's cookie is someone else's. A new entry that inherited one of
 * latniced's cookies gets "none" as its original. No-op unless S has
 * CoreSched.
 */
void cookies_prepare(Applier *a, Task *t, const Settings *s, const SchedState *now,
                     Settings *eff);

/* After settings_apply_tid_from() on T: say once per Applier that the
 * kernel cannot do CoreSched= (UNSUPPORTED has it). */
void cookies_applied(Applier *a, const Task *t, uint32_t unsupported);
