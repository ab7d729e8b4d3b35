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
#include <time.h>
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

/* ---- Reading a file that may be rewritten meanwhile ------------------ */

#define NSEC_PER_SEC 1000000000LL
#define NSEC_PER_MSEC 1000000LL
#define NSEC_PER_USEC 1000LL

static PolicyReadHook read_hook;
static void *read_hook_userdata;

void policy_file_read_set_hook(PolicyReadHook hook, void *userdata)
{
        read_hook = hook;
        read_hook_userdata = userdata;
}

typedef enum ReadOutcome {
        READ_SETTLED, /* one version, not modified lately */
        READ_CHANGED, /* changed while read, or replaced by another file */
        READ_RECENT,  /* one version, but modified so lately that a writer may be at it */
} ReadOutcome;

static int64_t clock_nsec(clockid_t clock)
{
        struct timespec ts;

        /* cannot fail for these clocks */
        (void)clock_gettime(clock, &ts);
        return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static bool timespec_equal(const struct timespec *a, const struct timespec *b)
{
        return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The same inode, with the same size and times: no write in between. */
static bool stat_same_version(const struct stat *a, const struct stat *b)
{
        return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
               timespec_equal(&a->st_mtim, &b->st_mtim) && timespec_equal(&a->st_ctim, &b->st_ctim);
}

/*
 * Nanoseconds until ST was last modified POLICY_READ_SETTLE_NSEC ago, 0 if
 * it was longer ago. A file modified this recently may be half written: the
 * empty file between the truncate and the write of a `truncate; write`, the
 * first lines of a file written in pieces. A modification time further in
 * the future than that (a clock set back) says nothing: then only the
 * comparison of before and after counts.
 */
static int64_t settle_left(const struct stat *st)
{
        struct timespec now;
        int64_t age;
        time_t secs;

        (void)clock_gettime(CLOCK_REALTIME, &now);
        /* the seconds first: a crafted mtime must not overflow the nanoseconds */
        if (__builtin_sub_overflow(now.tv_sec, st->st_mtim.tv_sec, &secs) || secs < -1 ||
            secs > 1)
                return 0;
        age = (int64_t)secs * NSEC_PER_SEC + now.tv_nsec - st->st_mtim.tv_nsec;
        if (age < -POLICY_READ_SETTLE_NSEC || age >= POLICY_READ_SETTLE_NSEC)
                return 0;
        return POLICY_READ_SETTLE_NSEC - age;
}

static int open_policy_file(const char *path, struct stat *ret_st)
{
        _cleanup_close_ int fd = -EBADF;

        /* O_NONBLOCK: open() of a FIFO without a writer would wait forever */
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (fstat(fd, ret_st) < 0)
                return -errno;
        if (S_ISDIR(ret_st->st_mode))
                return -EISDIR;
        if (!S_ISREG(ret_st->st_mode))
                return -EBADFD;
        if ((uint64_t)ret_st->st_size > POLICY_FILE_MAX)
                return -EFBIG;
        return TAKE_FD(fd);
}

/*
 * One attempt at reading PATH: a ReadOutcome, with the text in *RET only
 * for READ_SETTLED; *RET_ST is the file as read. Negative errno on errors.
 */
static int read_attempt(const char *path, unsigned attempt, struct stat *ret_st, char **ret,
                        size_t *ret_size)
{
        _cleanup_close_ int fd = -EBADF;
        _cleanup_free_ char *text = NULL;
        struct stat before, now;
        size_t size;
        int r;

        fd = open_policy_file(path, &before);
        if (fd < 0)
                return fd;
        if (read_hook)
                read_hook(path, fd, attempt, read_hook_userdata);
        r = read_full_fd(fd, POLICY_FILE_MAX, &text, &size);
        if (r == -EFBIG)
                return READ_CHANGED; /* grew past the limit while read: the next look says */
        if (r < 0)
                return r;
        /* A truncate sets the size first and mtime and ctime only when done
         * (ext4 frees the blocks in between): a stat() meanwhile sees the
         * new size, empty, with the old times. It holds the inode lock all
         * along, and ext4, btrfs and tmpfs take that lock for SEEK_DATA: so
         * this waits for a truncate (or a write) in progress, and the fstat()
         * after it sees its new times. */
        (void)lseek(fd, 0, SEEK_DATA);
        if (fstat(fd, ret_st) < 0)
                return -errno;
        /* a short (or long) read against st_size, or any write in between */
        if (!stat_same_version(&before, ret_st) || (uint64_t)before.st_size != size)
                return READ_CHANGED;
        /* renamed over meanwhile (an editor saving): read the file the path names now */
        if (stat(path, &now) < 0 || now.st_dev != ret_st->st_dev || now.st_ino != ret_st->st_ino)
                return READ_CHANGED;
        if (settle_left(ret_st) > 0)
                return READ_RECENT;
        *ret = TAKE_PTR(text);
        if (ret_size)
                *ret_size = size;
        return READ_SETTLED;
}

static void sleep_nsec(int64_t nsec)
{
        struct timespec ts = { .tv_sec = nsec / NSEC_PER_SEC, .tv_nsec = nsec % NSEC_PER_SEC };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

int policy_file_read(const char *path, char **ret, size_t *ret_size)
{
        int64_t start = clock_nsec(CLOCK_MONOTONIC), backoff = 250 * NSEC_PER_USEC;
        struct stat st, last = {};
        bool last_recent = false;

        for (unsigned attempt = 0;; attempt++) {
                bool aging;
                int r;

                r = read_attempt(path, attempt, &st, ret, ret_size);
                if (r < 0)
                        return r;
                if (r == READ_SETTLED)
                        return 0;
                /* The same version as last time only has to age (at most
                 * POLICY_READ_SETTLE_NSEC): the time limit is for changes. */
                aging = r == READ_RECENT && last_recent && stat_same_version(&last, &st);
                if (!aging && attempt + 1 >= POLICY_READ_CHANGE_MIN_READS &&
                    clock_nsec(CLOCK_MONOTONIC) - start >= POLICY_READ_CHANGE_MAX_NSEC)
                        return -ESTALE;
                last_recent = r == READ_RECENT;
                last = st;
                if (r == READ_RECENT) {
                        sleep_nsec(MAX(settle_left(&st), backoff));
                } else {
                        sleep_nsec(backoff);
                        backoff = MIN(2 * backoff, 4 * NSEC_PER_MSEC);
                }
        }
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

/* What READ_ERROR of policy_file_read(PATH) means, for "found ...". */
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

/* Take PARSED (a version without errors) as file IDX's rules and profiles. */
static int builder_accept(Builder *b, int idx, ParsedFile *parsed)
{
        int r;

        b->policy->files[idx].parsed = *parsed;
        *parsed = (ParsedFile){};
        r = policy_index_file(b->policy, idx);
        if (r < 0)
                return r;
        return register_profiles(b, idx);
}

/*
 * File IDX is rejected: use the version PREVIOUS had accepted, if any, with
 * a warning "expected EXPECTED, found FOUND: keeping the previous version".
 * 1 if it did, 0 if there is none (the file contributes nothing).
 */
static int builder_use_previous(Builder *b, int idx, const char *expected, const char *found)
{
        PolicyFile *f = &b->policy->files[idx];
        Diagnostics local = {};
        ParsedFile parsed = {};
        const PolicyFile *prev;
        int r;

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
                r = diagnostics_add(b->diags, DIAG_ERROR, f->path, 0, 0,
                                    "expected %s, found %s: file rejected, and its previous "
                                    "version no longer loads",
                                    expected, found);
                return r < 0 ? r : 1;
        }
        f->text = strdup(prev->text);
        if (!f->text) {
                parsed_file_done(&parsed);
                return -ENOMEM;
        }
        f->info.text = f->text;
        f->info.from_previous = true;
        r = builder_accept(b, idx, &parsed);
        if (r < 0)
                return r;
        r = diagnostics_add(b->diags, DIAG_WARNING, f->path, 0, 0,
                            "expected %s, found %s: keeping the previous version of %s", expected,
                            found, f->name);
        return r < 0 ? r : 1;
}

/*
 * File IDX kept changing while it was read (an editor or a script writing
 * it): what was read may be empty or cut, so it is not a version of the
 * file. Its previous version stays; without one the file is rejected.
 */
static int builder_add_unsettled(Builder *b, int idx)
{
        static const char expected[] = "a file that stays the same while it is read";
        int r;

        r = builder_use_previous(b, idx, expected, "it changed while being read");
        if (r != 0)
                return r < 0 ? r : 0;
        return diagnostics_add(b->diags, DIAG_ERROR, b->policy->files[idx].path, 0, 0,
                               "expected %s, found it changed while being read (for %lld ms)",
                               expected, POLICY_READ_CHANGE_MAX_NSEC / 1000000LL);
}

/* Parse TEXT (or report READ_ERROR) into *PARSED, and add the diagnostics to B's. */
static int builder_parse(Builder *b, int idx, const char *text, size_t size, int read_error,
                         ParsedFile *parsed)
{
        const char *path = b->policy->files[idx].path;
        Diagnostics local = {};
        int r;

        if (text) {
                r = policy_file_parse(path, text, size, b->profiles, parsed, &local);
        } else {
                _cleanup_free_ char *what = read_error_describe(path, read_error);

                r = what ? diagnostics_add(&local, DIAG_ERROR, path, 0, 0,
                                           "expected a readable regular file, found %s", what)
                         : -ENOMEM;
                parsed->n_errors = 1;
        }
        if (r >= 0)
                r = diagnostics_sort(&local);
        if (r >= 0)
                r = diagnostics_append(b->diags, &local);
        if (r < 0) {
                diagnostics_done(&local);
                parsed_file_done(parsed);
        }
        return r;
}

/*
 * Add one file. TEXT (taken) is its content, or NULL with READ_ERROR set
 * when it could not be read. MASKED: a /dev/null symlink.
 */
static int builder_add(Builder *b, char *name, char *path, char **overrides, bool masked,
                       char *text, size_t size, int read_error)
{
        _cleanup_free_ char *t = text;
        ParsedFile parsed = {};
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
        if (!t && read_error == -ESTALE)
                return builder_add_unsettled(b, idx);

        r = builder_parse(b, idx, t, size, read_error, &parsed);
        if (r < 0)
                return r;
        if (parsed.n_errors == 0) {
                f->text = TAKE_PTR(t);
                f->info.text = f->text;
                return builder_accept(b, idx, &parsed);
        }

        /* Rejected as a whole. */
        parsed_file_done(&parsed);
        r = builder_use_previous(b, idx, "a file without errors", "errors");
        return r < 0 ? r : 0;
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
                r = policy_file_read(path, &text, &size);
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
