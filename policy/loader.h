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
/* Read a whole file (at most POLICY_FILE_MAX bytes), NUL-terminated. */
int read_policy_file(const char *path, char **ret, size_t *ret_size);
