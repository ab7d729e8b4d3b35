/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loader: policy files and drop-in directories.
 *
 * Collects *.policy files from the directories (later ones override
 * earlier ones by file name; a symlink to /dev/null masks), reads them in
 * lexical order of name, parses each with the profiles of the files before
 * it, rejects a file with errors as a whole (falling back to its previous
 * accepted text when asked), then checks the merged rules (duplicate names,
 * rules shadowed by an earlier Final rule) and builds the matcher. The
 * public entry points are policy_load*() in policy.h.
 */
#pragma once

#include <stddef.h>

/* Largest policy file we read, in bytes. */
#define POLICY_FILE_MAX (64u * 1024u * 1024u)

/* true if PATH is (a symlink to) /dev/null. */
int path_is_masked(const char *path);

/*
 * How long a policy file may keep changing while it is read before the
 * loader gives up on it, and how long ago it must have been modified last
 * to count as written whole, in nanoseconds. It is read at least
 * POLICY_READ_CHANGE_MIN_READS times before it is given up on, however
 * long those reads take: on a busy machine 50 ms may pass in one read.
 */
#define POLICY_READ_CHANGE_MAX_NSEC (50 * 1000 * 1000LL)
#define POLICY_READ_CHANGE_MIN_READS 4
#define POLICY_READ_SETTLE_NSEC (20 * 1000 * 1000LL)

/*
 * Read a whole policy file (at most POLICY_FILE_MAX bytes), NUL-terminated,
 * as one version: an editor or a script may be rewriting it in place. The
 * file is fstat()ed before and after the read; if the inode, size, mtime or
 * ctime changed, the read was short or long against st_size, the path now
 * names another file, or it was modified less than POLICY_READ_SETTLE_NSEC
 * ago (a `truncate; write` leaves it empty in between), it is read again,
 * with a short backoff. -ESTALE if it kept changing for
 * POLICY_READ_CHANGE_MAX_NSEC and POLICY_READ_CHANGE_MIN_READS reads; -EISDIR, -EBADFD (not a regular file),
 * -EFBIG, or the errno of open() or read() otherwise. An empty file that
 * stays empty is read as empty.
 */
int policy_file_read(const char *path, char **ret, size_t *ret_size);

/*
 * Tests only: called in every attempt of policy_file_read(), after the
 * first fstat() and before the read, with the open descriptor and the
 * attempt number from 0, so a test can change the file mid-read. NULL
 * (the default) for none. Not thread-safe: set it before loading.
 */
typedef void (*PolicyReadHook)(const char *path, int fd, unsigned attempt, void *userdata);
void policy_file_read_set_hook(PolicyReadHook hook, void *userdata);
