/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy object: what a loaded policy holds (private to policy/).
 */
#pragma once

#include "policy/match.h"
#include "policy/parser.h"
#include "policy/policy.h"

typedef struct PolicyFile {
        PolicyFileInfo info; /* points into the fields below */
        char *name;
        char *path;
        char **overrides;
        char *text;
        ParsedFile parsed; /* empty when masked or rejected without a previous version */
} PolicyFile;

struct Policy {
        PolicyFile *files;
        size_t n_files;

        /* Views into files[].parsed, in file order (stable: the arrays they
         * point into are never reallocated once parsed). */
        Rule **rules;
        size_t n_rules;
        Profile **profiles;
        size_t n_profiles;
        UnitSection **units;
        size_t n_units;

        bool has_thread_rules;
        uint32_t used_keys; /* POLICY_KEY() bits */
        Matcher *matcher;
};

int policy_new(Policy **ret);
/* Add a file entry (takes NAME, PATH, OVERRIDES). Returns its index or -ENOMEM. */
int policy_add_file(Policy *p, char *name, char *path, char **overrides);
/* Append the rules, profiles and units of files[i].parsed to the views. */
int policy_index_file(Policy *p, size_t i);
