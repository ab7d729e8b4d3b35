/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Secure path: a directory and a file in it that nobody but latniced's own
 * user can change, for the state file (state-file.h), which a root latniced
 * trusts to give back attributes after a crash.
 *
 * A directory is safe when it is owned by latniced's user (root) and not
 * writable by group or others; each of its ancestors is owned by that user
 * or by root and, when writable by group or others, sticky (as /tmp: others
 * cannot rename or remove what they do not own there). The walk goes up
 * through ".." from the opened directory, so it checks the directory that
 * was opened, not a path that could change since. A file is safe when it is
 * owned by latniced's user and not writable by group or others; it is
 * checked on the opened descriptor (fstat), never on the path.
 *
 * Every refusal says which path and why, in *RET_WHY (owned), for the
 * caller to report.
 */
#pragma once

#include <sys/stat.h>

/* Open directory DIR (O_PATH) into *RET_FD after checking it and its
 * ancestors. 0; -EPERM with *RET_WHY set when it is not safe; -ENOMEM; or
 * the errno of an open or fstat (*RET_WHY then names the path too). */
int secure_dir_open(const char *dir, int *ret_fd, char **ret_why);

/* Whether the regular file ST (from fstat of its open descriptor; PATH for
 * the message) may be trusted. 0, or -EPERM with *RET_WHY set; -ENOMEM. */
int secure_file_check(const struct stat *st, const char *path, char **ret_why);
