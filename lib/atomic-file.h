/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Atomic file replacement: write a temporary file in the target's
 * directory, fsync it, rename it over the target. A reader sees the old
 * file or the new one, never a part. Only a regular file is ever replaced:
 * rename() replaces whatever is at the path, so a device node, a FIFO, a
 * directory or a symbolic link there is refused, not replaced (run as root,
 * "-o /dev/null" would otherwise put a regular file in place of the device,
 * and a link would be replaced instead of its target written).
 */
#pragma once

#include <stdio.h>
#include <sys/types.h>

/*
 * Whether PATH may be replaced: 0 if it does not exist or is a regular
 * file (checked with lstat(), a symbolic link is not followed); -EEXIST,
 * with *RET_WHAT a description of what is there ("a symbolic link", "a
 * FIFO", ...), if it is something else; other negative errno if it cannot
 * be checked.
 */
int atomic_file_check_target(const char *path, const char **ret_what);

/* Fills F; returns 0 or a negative errno. */
typedef int (*atomic_file_fill_t)(FILE *f, void *userdata);

/*
 * Replace PATH by what FILL writes. The temporary file is
 * "DIR/.#latnice-TAG-XXXXXX" in PATH's directory (so the rename stays on one
 * file system; TAG tells whose a leftover is), opened O_CLOEXEC, given MODE,
 * flushed and fsync'ed, then renamed over PATH once PATH is checked with
 * atomic_file_check_target() (again: it may have changed meanwhile). On
 * failure the temporary file is removed and PATH is left as it was; FILL's
 * error is returned as is, -EEXIST (and *RET_WHAT) as from
 * atomic_file_check_target().
 */
int atomic_file_write(const char *path, const char *tag, mode_t mode, atomic_file_fill_t fill,
                      void *userdata, const char **ret_what);
