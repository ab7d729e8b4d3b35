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

/*
 * Repetitions of repetitions. glibc's regcomp() computes the epsilon
 * closures of the NFA recursively, and a repetition whose operand holds
 * another ("((a+)*)+") multiplies that work: at 7 such levels a 20-byte
 * pattern takes milliseconds to compile, at 9 half a minute.
 * *RET_DEPTH: how deeply repetitions nest (a+ is 1, (a+)* 2, a+(b+)* 2),
 * which REGEX_NEST_MAX bounds. Two repetition operators in a row ("a+*",
 * "a{2}?") are worse still, and POSIX leaves their meaning undefined:
 * -EINVAL, with *RET_STACKED the index of the second. -E2BIG: groups
 * nested deeper than the parser allows expressions to be.
 */
#define REGEX_NEST_MAX 4
int regex_repeats(const char *re, size_t *ret_depth, ssize_t *ret_stacked);
