/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Regex guards: the checks a policy's extended regular expressions pass
 * before regcomp(). glibc compiles and matches EREs without backtracking,
 * except where a pattern makes it copy or recurse: bounded repetitions,
 * '+', back-references. These tell such patterns apart without compiling
 * them.
 */
#pragma once

#include <stddef.h>
#include <sys/types.h>

/*
 * An estimate of how large glibc's regcomp() makes RE (see regex_cost() in
 * regex-guard.c), saturated at REGEX_COST_MAX; *ret_copies gets the copies
 * that bounded repetitions add, which have a limit of their own,
 * REGEX_REPEAT_MAX.
 */
#define REGEX_COST_MAX 20000
#define REGEX_REPEAT_MAX 64
size_t regex_cost(const char *re, size_t *ret_copies);

/* The index of the backslash of the first back-reference (\1 to \9) in
 * RE, or -1. */
ssize_t regex_find_backref(const char *re);
