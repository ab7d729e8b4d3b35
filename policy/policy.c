/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Policy object: ownership and introspection of a loaded policy.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/core-sched.h"
#include "lib/macro.h"
#include "policy/policy-internal.h"

int policy_new(Policy **ret)
{
        Policy *p = calloc(1, sizeof(*p));

        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

Policy *policy_free(Policy *p)
{
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_files; i++) {
                PolicyFile *f = &p->files[i];

                free(f->name);
                free(f->path);
                strv_free(f->overrides);
                free(f->text);
                parsed_file_done(&f->parsed);
        }
        free(p->files);
        free(p->rules);
        free(p->profiles);
        free(p->units);
        matcher_free(p->matcher);
        free(p);
        return NULL;
}

int policy_add_file(Policy *p, char *name, char *path, char **overrides)
{
        PolicyFile *files;

        files = reallocarray(p->files, p->n_files + 1, sizeof(PolicyFile));
        if (!files)
                return -ENOMEM;
        p->files = files;
        /* info points into the entry itself: re-point every entry after a move */
        files[p->n_files] = (PolicyFile){ .name = name, .path = path, .overrides = overrides };
        p->n_files++;
        for (size_t i = 0; i < p->n_files; i++) {
                files[i].info.name = files[i].name;
                files[i].info.path = files[i].path;
                files[i].info.overrides = files[i].overrides;
                files[i].info.text = files[i].text;
        }
        return (int)(p->n_files - 1);
}

static int append_views(void ***array, size_t *n, void *items, size_t n_items, size_t size)
{
        void **a;

        if (n_items == 0)
                return 0;
        a = reallocarray(*array, *n + n_items, sizeof(void *));
        if (!a)
                return -ENOMEM;
        for (size_t i = 0; i < n_items; i++)
                a[*n + i] = (char *)items + i * size;
        *array = a;
        *n += n_items;
        return 0;
}

int policy_index_file(Policy *p, size_t i)
{
        ParsedFile *pf = &p->files[i].parsed;
        int r;

        r = append_views((void ***)&p->rules, &p->n_rules, pf->rules, pf->n_rules, sizeof(Rule));
        if (r < 0)
                return r;
        r = append_views((void ***)&p->profiles, &p->n_profiles, pf->profiles, pf->n_profiles,
                         sizeof(Profile));
        if (r < 0)
                return r;
        r = append_views((void ***)&p->units, &p->n_units, pf->units, pf->n_units,
                         sizeof(UnitSection));
        if (r < 0)
                return r;
        for (size_t j = 0; j < pf->n_rules; j++) {
                if (pf->rules[j].uses_thread)
                        p->has_thread_rules = true;
                p->used_keys |= expr_keys(pf->rules[j].match);
        }
        return 0;
}

size_t policy_n_files(const Policy *p)
{
        return p ? p->n_files : 0;
}

const PolicyFileInfo *policy_file(const Policy *p, size_t i)
{
        if (!p || i >= p->n_files)
                return NULL;
        return &p->files[i].info;
}

size_t policy_n_rules(const Policy *p)
{
        return p ? p->n_rules : 0;
}

size_t policy_n_profiles(const Policy *p)
{
        return p ? p->n_profiles : 0;
}

size_t policy_n_units(const Policy *p)
{
        return p ? p->n_units : 0;
}

bool policy_has_thread_rules(const Policy *p)
{
        return p && p->has_thread_rules;
}

uint32_t policy_used_keys(const Policy *p)
{
        return p ? p->used_keys : 0;
}

static int add_durations(const Expr *e, uint64_t **list, size_t *n)
{
        uint64_t *l;
        int r;

        if (!e)
                return 0;
        if (e->type != EXPR_PREDICATE) {
                r = add_durations(e->left, list, n);
                return r < 0 ? r : add_durations(e->right, list, n);
        }
        if (!match_key_info(e->key) || !match_key_info(e->key)->duration)
                return 0;
        for (size_t i = 0; i < *n; i++)
                if ((*list)[i] == e->duration.usec)
                        return 0;
        l = reallocarray(*list, *n + 1, sizeof(**list));
        if (!l)
                return -ENOMEM;
        *list = l;
        l[(*n)++] = e->duration.usec;
        return 0;
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

        return x < y ? -1 : x > y;
}

int policy_durations(const Policy *p, uint64_t **ret, size_t *ret_n)
{
        _cleanup_free_ uint64_t *list = NULL;
        size_t n = 0;
        int r;

        for (size_t i = 0; p && i < p->n_rules; i++) {
                r = add_durations(p->rules[i]->match, &list, &n);
                if (r < 0)
                        return r;
        }
        if (n > 1)
                qsort(list, n, sizeof(*list), cmp_u64);
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

ProcReadPlan policy_read_plan(const Policy *p)
{
        ProcReadPlan plan;

        if (!p)
                return 0;
        plan = match_keys_read_plan(p->used_keys);
        if (p->n_units > 0)
                plan |= PROC_READ_CGROUP;
        /* CoreSched=pod: the pod comes from the cgroup. */
        for (size_t i = 0; i < p->n_rules && !(plan & PROC_READ_CGROUP); i++)
                if (settings_has(&p->rules[i]->settings, SETTING_CORE_SCHED) &&
                    p->rules[i]->settings.core_sched.mode == CORE_SCHED_POD)
                        plan |= PROC_READ_CGROUP;
        return plan;
}

const UnitSection *policy_unit(const Policy *p, size_t i)
{
        if (!p || i >= p->n_units)
                return NULL;
        return p->units[i];
}
