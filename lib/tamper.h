/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tampering: whether a process runs only its executable's own code, read
 * before latniced gives it a boost (policy/boost.h).
 *
 * A trusted executable (lib/trust.h) is no guarantee of what its process
 * does once another hand is in it:
 *   - a process being traced (TracerPid in PROC_ROOT/PID/status is not 0)
 *     runs whatever its tracer writes into it (gdb -p, then "call
 *     system()");
 *   - a process started with LD_PRELOAD, LD_LIBRARY_PATH or LD_AUDIT in its
 *     environment loads libraries its user chose, whose constructors run
 *     before its main().
 * The environment is read from PROC_ROOT/PID/environ, which waits for the
 * process's mmap_lock as cmdline does, so it is read the same bounded way
 * (proc_environ_read()); a read that is cut short or refused is a reason to
 * withhold. What is read is the environment as the process's memory holds it
 * now: a process can overwrite those strings after its start, so this is a
 * check of what was plainly asked for, not a proof.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The name of the first variable of the environ content BUF (SIZE bytes of
 * "NAME=value" strings separated by NUL bytes) that makes the dynamic loader
 * load code its user chose: LD_PRELOAD, LD_LIBRARY_PATH or LD_AUDIT, with a
 * value that is not empty. NULL if there is none. */
const char *environ_loader_variable(const char *buf, size_t size);

/* TracerPid of the status content BUF (SIZE bytes): 0 if not traced;
 * -ENODATA without such a line, -EIO if malformed. */
int status_tracer_pid(const char *buf, size_t size, pid_t *ret);

/*
 * Is PID (real uid UID, UINT32_MAX: unknown) tampered with, or can that not
 * be told? FRESH: it has just called exec (its environment may be read right
 * away; see proc_environ_read()). Returns 1 with *RET_REASON (if not NULL)
 * saying why ("it is being traced by pid 4242"), 0 if not, -ESRCH if it is
 * gone, -ENOMEM.
 */
int proc_tampered(const char *proc_root, pid_t pid, uint32_t uid, bool fresh, char **ret_reason);
