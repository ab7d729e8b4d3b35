/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loader: policy files and drop-in directories.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/hashmap.h"
#include "lib/macro.h"
#include "lib/util.h"
#include "policy/diagnostic.h"
#include "policy/loader.h"
#include "policy/policy-internal.h"

int path_is_masked(const char *path)
{
        _cleanup_free_ char *target = NULL;
        struct stat st;
        ssize_t n;

        if (lstat(path, &st) < 0)
                return -errno;
        if (S_ISLNK(st.st_mode)) {
                target = malloc((size_t)PATH_MAX);
                if (!target)
                        return -ENOMEM;
                n = readlink(path, target, PATH_MAX - 1);
                if (n >= 0) {
                        target[n] = 0;
                        if (streq(target, "/dev/null"))
                                return 1;
                }
                if (stat(path, &st) < 0)
                        return 0; /* dangling: reading it will report the error */
        }
        return S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

int read_policy_file(const char *path, char **ret, size_t *ret_size)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        /* O_NONBLOCK: open() of a FIFO without a writer would wait forever */
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if ((uint64_t)st.st_size > POLICY_FILE_MAX)
                return -EFBIG;
        return read_full_fd(fd, POLICY_FILE_MAX, ret, ret_size);
}

static const char *file_type_name(mode_t mode)
{
        switch (mode & S_IFMT) {
        case S_IFIFO:
                return "a FIFO";
        case S_IFCHR:
                return "a character device";
        case S_IFBLK:
                return "a block device";
        case S_IFSOCK:
                return "a socket";
        case S_IFDIR:
                return "a directory";
        }
        return "not a regular file";
}

/* What READ_ERROR of read_policy_file(PATH) means, for "found ...". */
static char *read_error_describe(const char *path, int read_error)
{
        struct stat st;

        /* stat() does not open, so it cannot block on a FIFO */
        if (read_error == -EBADFD && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
                return strdup(file_type_name(st.st_mode));
        return strdup(strerror(-read_error));
}

/* ---- Building a policy, file by file -------------------------------- */

typedef struct Builder {
        Policy *policy;
        const Policy *previous;
        Hashmap *profiles; /* name -> Profile*, of the files accepted so far */
        Diagnostics *diags;
} Builder;

static const PolicyFile *previous_file(const Policy *previous, const char *name)
{
        for (size_t i = 0; previous && i < previous->n_files; i++) {
                const PolicyFile *f = &previous->files[i];

                if (streq(f->name, name) && f->text && !f->info.masked)
                        return f;
        }
        return NULL;
}

static int register_profiles(Builder *b, size_t i)
{
        ParsedFile *pf = &b->policy->files[i].parsed;
        int r;

        for (size_t j = 0; j < pf->n_profiles; j++) {
                Profile *prof = &pf->profiles[j];
                const Profile *old = hashmap_get(b->profiles, prof->name);

                if (old) {
                        r = diagnostics_add(b->diags, DIAG_WARNING, prof->file, prof->line, 1,
                                            "expected a unique profile name, found \"%s\" again "
                                            "(it replaces %s:%u for the files from here on)",
                                            prof->name, old->file, old->line);
                        if (r < 0)
                                return r;
                }
                r = hashmap_replace(b->profiles, prof->name, prof);
                if (r < 0)
                        return r;
        }
        return 0;
}

/*
 * Add one file. TEXT (taken) is its content, or NULL with READ_ERROR set
 * when it could not be read. MASKED: a /dev/null symlink.
 */
static int builder_add(Builder *b, char *name, char *path, char **overrides, bool masked,
                       char *text, size_t size, int read_error)
{
        _cleanup_free_ char *t = text;
        Diagnostics local = {};
        ParsedFile parsed = {};
        const PolicyFile *prev;
        PolicyFile *f;
        int idx, r;

        idx = policy_add_file(b->policy, name, path, overrides);
        if (idx < 0) {
                free(name);
                free(path);
                strv_free(overrides);
                return idx;
        }
        f = &b->policy->files[idx];
        if (masked) {
                f->info.masked = true;
                return 0;
        }

        if (t) {
                r = policy_file_parse(f->path, t, size, b->profiles, &parsed, &local);
                if (r < 0) {
                        diagnostics_done(&local);
                        return r;
                }
        } else {
                _cleanup_free_ char *what = read_error_describe(f->path, read_error);

                if (!what)
                        return -ENOMEM;
                r = diagnostics_add(&local, DIAG_ERROR, f->path, 0, 0,
                                    "expected a readable regular file, found %s", what);
                if (r < 0)
                        return r;
                parsed.n_errors = 1;
        }
        r = diagnostics_sort(&local);
        if (r >= 0)
                r = diagnostics_append(b->diags, &local);
        if (r < 0) {
                diagnostics_done(&local);
                parsed_file_done(&parsed);
                return r;
        }

        if (parsed.n_errors == 0) {
                f->parsed = parsed;
                f->text = TAKE_PTR(t);
                f->info.text = f->text;
                r = policy_index_file(b->policy, idx);
                if (r < 0)
                        return r;
                return register_profiles(b, idx);
        }

        /* Rejected as a whole. */
        parsed_file_done(&parsed);
        f->info.rejected = true;
        prev = previous_file(b->previous, f->name);
        if (!prev)
                return 0;

        r = policy_file_parse(f->path, prev->text, strlen(prev->text), b->profiles, &parsed,
                              &local);
        diagnostics_done(&local); /* reported when that version was loaded */
        if (r < 0)
                return r;
        if (parsed.n_errors > 0) {
                parsed_file_done(&parsed);
                return diagnostics_add(b->diags, DIAG_ERROR, f->path, 0, 0,
                                       "expected a file without errors, found errors: file "
                                       "rejected, and its previous version no longer loads");
        }
        f->text = strdup(prev->text);
        if (!f->text) {
                parsed_file_done(&parsed);
                return -ENOMEM;
        }
        f->info.text = f->text;
        f->info.from_previous = true;
        f->parsed = parsed;
        r = policy_index_file(b->policy, idx);
        if (r < 0)
                return r;
        r = register_profiles(b, idx);
        if (r < 0)
                return r;
        return diagnostics_add(b->diags, DIAG_WARNING, f->path, 0, 0,
                               "expected a file without errors, found errors: keeping the "
                               "previous version of %s",
                               f->name);
}

/* Duplicate rule names across files, and rules shadowed by an earlier Final rule. */
static int check_rules(Builder *b)
{
        _cleanup_(hashmap_freep) Hashmap *names = NULL, *final_exprs = NULL,
                                         *final_names = NULL;
        Policy *p = b->policy;
        int r;

        r = hashmap_new(&names);
        if (r < 0)
                return r;
        r = hashmap_new(&final_exprs);
        if (r < 0)
                return r;
        r = hashmap_new(&final_names);
        if (r < 0)
                return r;

        for (size_t i = 0; i < p->n_rules; i++) {
                Rule *rule = p->rules[i];
                const Rule *first = hashmap_get(names, rule->name), *shadow = NULL;
                _cleanup_free_ char *canon = NULL;
                _cleanup_strv_free_ char **req = NULL, **disj = NULL;

                if (first) {
                        r = diagnostics_add(b->diags, DIAG_WARNING, rule->file, rule->line, 1,
                                            "expected a unique rule name, found \"%s\" again "
                                            "(first at %s:%u)",
                                            rule->name, first->file, first->line);
                        if (r < 0)
                                return r;
                } else {
                        r = hashmap_put(names, rule->name, rule);
                        if (r < 0)
                                return r;
                }

                if (hashmap_size(final_exprs) > 0 || rule->final) {
                        canon = expr_to_string(rule->match);
                        if (!canon)
                                return -ENOMEM;
                        shadow = hashmap_get(final_exprs, canon);
                }
                if (!shadow && hashmap_size(final_names) > 0) {
                        r = expr_required_names(rule->match, &req);
                        if (r < 0)
                                return r;
                        if (r > 0) {
                                for (char **n = req; *n; n++) {
                                        const Rule *s = hashmap_get(final_names, *n);

                                        if (!s) {
                                                shadow = NULL;
                                                break;
                                        }
                                        if (!shadow)
                                                shadow = s;
                                }
                        }
                }
                if (shadow) {
                        r = diagnostics_add(b->diags, DIAG_WARNING, rule->file, rule->line, 1,
                                            "expected a rule that can apply, found rule \"%s\" "
                                            "shadowed by the earlier rule \"%s\" (%s:%u) with "
                                            "Final=yes",
                                            rule->name, shadow->name, shadow->file, shadow->line);
                        if (r < 0)
                                return r;
                }

                if (!rule->final)
                        continue;
                if (!hashmap_get(final_exprs, canon)) {
                        r = hashmap_put(final_exprs, canon, rule);
                        if (r < 0)
                                return r;
                }
                r = expr_name_disjunction(rule->match, &disj);
                if (r < 0)
                        return r;
                for (char **n = r > 0 ? disj : NULL; n && *n; n++)
                        if (!hashmap_get(final_names, *n)) {
                                r = hashmap_put(final_names, *n, rule);
                                if (r < 0)
                                        return r;
                        }
        }
        return 0;
}

static int builder_finish(Builder *b, Policy **ret)
{
        int r;

        r = check_rules(b);
        if (r < 0)
                return r;
        r = matcher_new(b->policy->rules, b->policy->n_rules, &b->policy->matcher);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(b->policy);
        return 0;
}

static void builder_done(Builder *b)
{
        policy_free(b->policy);
        hashmap_free(b->profiles);
}

static int builder_init(Builder *b, const Policy *previous, Diagnostics *diags)
{
        int r;

        *b = (Builder){ .previous = previous, .diags = diags };
        r = policy_new(&b->policy);
        if (r < 0)
                return r;
        return hashmap_new(&b->profiles);
}

static char *base_name(const char *path)
{
        const char *s = strrchr(path, '/');

        return strdup(s ? s + 1 : path);
}

static int builder_add_path(Builder *b, char *name, const char *path, char **overrides)
{
        _cleanup_free_ char *p = strdup(path);
        char *text = NULL;
        size_t size = 0;
        int masked, r = 0;

        if (!p) {
                free(name);
                strv_free(overrides);
                return -ENOMEM;
        }
        masked = path_is_masked(path);
        if (masked <= 0) {
                r = read_policy_file(path, &text, &size);
                if (r == -ENOMEM) {
                        free(name);
                        strv_free(overrides);
                        return r;
                }
        }
        return builder_add(b, name, TAKE_PTR(p), overrides, masked > 0, text, size, r);
}

int policy_load_string(const char *filename, const char *text, size_t size, Policy **ret,
                       Diagnostics *diags)
{
        _cleanup_(builder_done) Builder b = {};
        char *name, *path, *copy;
        int r;

        if (!filename || (!text && size > 0) || !ret)
                return -EINVAL;
        r = builder_init(&b, NULL, diags);
        if (r < 0)
                return r;
        name = base_name(filename);
        path = strdup(filename);
        copy = malloc(size + 1);
        if (!name || !path || !copy) {
                free(name);
                free(path);
                free(copy);
                return -ENOMEM;
        }
        if (size > 0)
                memcpy(copy, text, size);
        copy[size] = 0;
        r = builder_add(&b, name, path, NULL, false, copy, size, 0);
        if (r < 0)
                return r;
        return builder_finish(&b, ret);
}

int policy_load_files(char *const *paths, Policy **ret, Diagnostics *diags)
{
        _cleanup_(builder_done) Builder b = {};
        int r;

        if (!ret)
                return -EINVAL;
        r = builder_init(&b, NULL, diags);
        if (r < 0)
                return r;
        for (size_t i = 0; paths && paths[i]; i++) {
                char *name = base_name(paths[i]);

                if (!name)
                        return -ENOMEM;
                r = builder_add_path(&b, name, paths[i], NULL);
                if (r < 0)
                        return r;
        }
        return builder_finish(&b, ret);
}

/* ---- Directories ---------------------------------------------------- */

typedef struct Candidate {
        char *name;
        char *path;
        char **overrides;
} Candidate;

static int candidate_compare(const void *a, const void *b)
{
        return strcmp(((const Candidate *)a)->name, ((const Candidate *)b)->name);
}

static bool is_policy_name(const char *n)
{
        size_t l = strlen(n);

        return n[0] != '.' && l > 7 && streq(n + l - 7, ".policy");
}

static void candidates_free(Candidate *c, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                free(c[i].name);
                free(c[i].path);
                strv_free(c[i].overrides);
        }
        free(c);
}

static int collect_dir(const char *dir, Hashmap *byname, Candidate **c, size_t *n,
                       Diagnostics *diags)
{
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;
        int r;

        d = opendir(dir);
        if (!d) {
                struct stat st;

                /* a directory that does not exist is fine: each is optional */
                if (errno == ENOTDIR && stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
                        return diagnostics_add(diags, DIAG_ERROR, dir, 0, 0,
                                               "expected a policy directory, found %s",
                                               S_ISREG(st.st_mode) ? "a regular file"
                                                                   : file_type_name(st.st_mode));
                if (errno == ENOENT || errno == ENOTDIR)
                        return 0;
                return diagnostics_add(diags, DIAG_ERROR, dir, 0, 0,
                                       "expected a readable directory, found %s", strerror(errno));
        }
        for (;;) {
                _cleanup_free_ char *path = NULL;
                struct stat st;
                void *v;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno != 0)
                                return diagnostics_add(diags, DIAG_ERROR, dir, 0, 0,
                                                       "expected a readable directory, found %s",
                                                       strerror(errno));
                        break;
                }
                if (!is_policy_name(de->d_name))
                        continue;
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
                        path = NULL;
                        return -ENOMEM;
                }
                /* skip directories; dangling links and other oddities are reported on read */
                if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
                        continue;

                v = hashmap_get(byname, de->d_name);
                if (v) {
                        Candidate *old = &(*c)[(uintptr_t)v - 1];
                        size_t k = 0;
                        char **o;

                        while (old->overrides && old->overrides[k])
                                k++;
                        o = reallocarray(old->overrides, k + 2, sizeof(char *));
                        if (!o)
                                return -ENOMEM;
                        o[k] = old->path;
                        o[k + 1] = NULL;
                        old->overrides = o;
                        old->path = TAKE_PTR(path);
                } else {
                        Candidate *a = reallocarray(*c, *n + 1, sizeof(Candidate));
                        char *name;

                        if (!a)
                                return -ENOMEM;
                        *c = a;
                        name = strdup(de->d_name);
                        if (!name)
                                return -ENOMEM;
                        a[*n] = (Candidate){ .name = name, .path = TAKE_PTR(path) };
                        (*n)++;
                        r = hashmap_put(byname, name, (void *)(uintptr_t)*n);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

int policy_load(char *const *dirs, const Policy *previous, Policy **ret, Diagnostics *diags)
{
        _cleanup_(builder_done) Builder b = {};
        _cleanup_(hashmap_freep) Hashmap *byname = NULL;
        Candidate *c = NULL;
        size_t n = 0, i;
        int r;

        if (!ret)
                return -EINVAL;
        r = builder_init(&b, previous, diags);
        if (r < 0)
                return r;
        r = hashmap_new(&byname);
        if (r < 0)
                return r;
        for (size_t d = 0; dirs && dirs[d]; d++) {
                r = collect_dir(dirs[d], byname, &c, &n, diags);
                if (r < 0)
                        goto fail;
        }
        if (n > 0)
                qsort(c, n, sizeof(Candidate), candidate_compare);

        for (i = 0; i < n; i++) {
                r = builder_add_path(&b, TAKE_PTR(c[i].name), c[i].path, TAKE_PTR(c[i].overrides));
                if (r < 0)
                        goto fail;
        }
        candidates_free(c, n);
        return builder_finish(&b, ret);
fail:
        candidates_free(c, n);
        return r;
}
