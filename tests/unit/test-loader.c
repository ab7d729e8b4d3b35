/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for policy/loader.c: directories in temp dirs, override by name,
 * /dev/null masking, lexical order, rejected files and the previous
 * version, missing directories, profiles across files, cross-file warnings,
 * files rewritten while they are read (step by step through the read hook,
 * and a writer thread against 2,000 loads).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/macro.h"
#include "policy/keys.h"
#include "policy/loader.h"
#include "policy/policy.h"
#include "tests/unit/test-util.h"

static char root[] = "/tmp/test-loader-XXXXXX";

static char *path(const char *rel)
{
        char *p;

        if (asprintf(&p, "%s/%s", root, rel) < 0)
                abort();
        return p;
}

static void write_file(const char *rel, const char *text)
{
        _cleanup_free_ char *p = path(rel);
        FILE *f = fopen(p, "we");

        if (!f)
                abort();
        fputs(text, f);
        fclose(f);
}

static void dump(const Diagnostics *d)
{
        for (size_t i = 0; i < d->n; i++) {
                char *s = diagnostic_format(&d->items[i]);
                fprintf(stderr, "  diag: %s\n", s);
                free(s);
        }
}

static bool has_diag(const Diagnostics *d, DiagLevel level, const char *file_suffix,
                     unsigned line, const char *message)
{
        for (size_t i = 0; i < d->n; i++) {
                const Diagnostic *x = &d->items[i];
                size_t fl = strlen(x->file), sl = strlen(file_suffix);

                if (x->level == level && fl >= sl && streq(x->file + fl - sl, file_suffix) &&
                    x->line == line && streq(x->message, message))
                        return true;
        }
        dump(d);
        return false;
}

static const char *matched_rule(const Policy *p, const char *comm)
{
        TaskSnapshot t = { .names = { .comm = comm } };
        MatchResult m;

        if (policy_match(p, &t, &m, NULL) < 0)
                return NULL;
        return m.rule;
}

static void test_dirs(void)
{
        _cleanup_free_ char *vendor = path("usr"), *run = path("run"), *etc = path("etc"),
                            *missing = path("missing"), *masked = path("etc/30-masked.policy"),
                            *dir_entry = path("usr/40-dir.policy");
        char *dirs[] = { vendor, run, etc, missing, NULL };
        Diagnostics d = {};
        Policy *p = NULL, *p2 = NULL;
        const PolicyFileInfo *fi;

        check(mkdir(vendor, 0755) == 0);
        check(mkdir(run, 0755) == 0);
        check(mkdir(etc, 0755) == 0);
        check(mkdir(dir_entry, 0755) == 0);

        write_file("usr/10-base.policy", "[Profile low]\nNice = 10\n"
                                         "[Rule base]\nMatch = name:a || name:b\nNice = 1\n");
        write_file("usr/20-over.policy", "[Rule vendor-over]\nMatch = name:a\n");
        write_file("run/20-over.policy", "[Rule run-over]\nMatch = name:a\n");
        write_file("etc/20-over.policy", "[Rule etc-over]\nMatch = name:a\nProfile = low\n");
        write_file("usr/30-masked.policy", "[Rule masked]\nMatch = name:a\n");
        check(symlink("/dev/null", masked) == 0);
        write_file("run/05-early.policy", "[Rule early]\nMatch = name:b\n");
        write_file("usr/50-bad.policy", "[Rule bad]\nMatch = name:b\nNice = 99\n");
        write_file("usr/README", "[Rule ignored]\nMatch = name:b\n");
        write_file("usr/.hidden.policy", "[Rule hidden]\nMatch = name:b\n");

        check(policy_load(dirs, NULL, &p, &d) == 0);
        check(policy_n_files(p) == 5);
        /* lexical order of names, whatever the directory */
        check(streq(policy_file(p, 0)->name, "05-early.policy"));
        check(streq(policy_file(p, 1)->name, "10-base.policy"));
        fi = policy_file(p, 2);
        check(streq(fi->name, "20-over.policy"));
        check(strstr(fi->path, "/etc/20-over.policy"));
        check(fi->overrides && fi->overrides[0] && strstr(fi->overrides[0], "/usr/20-over.policy"));
        check(fi->overrides && fi->overrides[1] && strstr(fi->overrides[1], "/run/20-over.policy"));
        check(fi->overrides && !fi->overrides[2]);
        check(fi->text && strstr(fi->text, "etc-over"));
        fi = policy_file(p, 3);
        check(streq(fi->name, "30-masked.policy") && fi->masked && !fi->text);
        check(fi->overrides && fi->overrides[0] && !fi->overrides[1]);
        fi = policy_file(p, 4);
        check(streq(fi->name, "50-bad.policy") && fi->rejected && !fi->from_previous && !fi->text);
        check(has_diag(&d, DIAG_ERROR, "usr/50-bad.policy", 3,
                       "expected an integer in -20..19, found \"99\""));
        check(diagnostics_count(&d, DIAG_ERROR) == 1);

        /* rules: early, base, etc-over (profile from an earlier file) */
        check(policy_n_rules(p) == 3);
        check(streq_ptr(matched_rule(p, "a"), "etc-over"));
        check(streq_ptr(matched_rule(p, "b"), "base"));
        {
                TaskSnapshot t = { .names = { .comm = "a" } };
                MatchResult m;

                check(policy_match(p, &t, &m, NULL) == 0);
                check(m.n_matched == 2 && m.settings.nice == 10);
        }
        diagnostics_done(&d);

        /* Reload with the bad file fixed... */
        write_file("usr/50-bad.policy", "[Rule bad]\nMatch = name:b\nNice = 9\n");
        check(policy_load(dirs, p, &p2, &d) == 0);
        check(d.n == 0);
        check(streq_ptr(matched_rule(p2, "b"), "bad"));
        policy_free(p);
        p = TAKE_PTR(p2);

        /* ...then broken again: the previous accepted text is used */
        write_file("usr/50-bad.policy", "[Rule bad]\nMatch = name:b &&\n");
        check(policy_load(dirs, p, &p2, &d) == 0);
        fi = policy_file(p2, 4);
        check(fi->rejected && fi->from_previous && fi->text && strstr(fi->text, "Nice = 9"));
        check(streq_ptr(matched_rule(p2, "b"), "bad"));
        check(has_diag(&d, DIAG_ERROR, "usr/50-bad.policy", 2,
                       "expected a predicate, '!' or '(', found end of expression"));
        check(has_diag(&d, DIAG_WARNING, "usr/50-bad.policy", 0,
                       "expected a file without errors, found errors: keeping the previous "
                       "version of 50-bad.policy"));
        diagnostics_done(&d);

        /* and again from a policy that itself used the previous version */
        {
                Policy *p3 = NULL;

                check(policy_load(dirs, p2, &p3, &d) == 0);
                check(policy_file(p3, 4)->from_previous);
                check(strstr(policy_file(p3, 4)->text, "Nice = 9"));
                check(streq_ptr(matched_rule(p3, "b"), "bad"));
                policy_free(p3);
        }
        policy_free(p2);
        p2 = NULL;
        /* without PREVIOUS the file contributes nothing */
        diagnostics_done(&d);
        check(policy_load(dirs, NULL, &p2, &d) == 0);
        check(policy_file(p2, 4)->rejected && !policy_file(p2, 4)->from_previous);
        check(!streq_ptr(matched_rule(p2, "b"), "bad"));
        policy_free(p2);
        policy_free(p);
        diagnostics_done(&d);

        /* no directory at all: an empty policy */
        {
                char *none[] = { missing, NULL };

                check(policy_load(none, NULL, &p, &d) == 0);
                check(p && policy_n_files(p) == 0 && policy_n_rules(p) == 0 && d.n == 0);
                check(!matched_rule(p, "a"));
                policy_free(p);
        }
}

static void test_cross_file(void)
{
        _cleanup_free_ char *dir = path("x"), *f1 = path("x/10-a.policy"),
                            *f2 = path("x/20-b.policy"), *f3 = path("x/05-c.policy");
        char *dirs[] = { dir, NULL };
        Diagnostics d = {};
        Policy *p = NULL;

        check(mkdir(dir, 0755) == 0);
        write_file("x/10-a.policy", "[Profile p]\nNice = 1\n[Rule dup]\nMatch = name:a\n"
                                    "[Rule stop]\nMatch = name:s || name:t\nFinal = yes\n");
        write_file("x/20-b.policy", "[Rule dup]\nMatch = name:b\nProfile = p\n"
                                    "[Rule after-stop]\nMatch = name:t\n");
        /* sorts before 10-a: cannot use its profile */
        write_file("x/05-c.policy", "[Rule c]\nMatch = name:c\nProfile = p\n");
        check(policy_load(dirs, NULL, &p, &d) == 0);
        check(has_diag(&d, DIAG_ERROR, "05-c.policy", 3,
                       "expected the name of a [Profile] defined in this file or in a file that "
                       "sorts earlier, found \"p\""));
        {
                _cleanup_free_ char *m1 = NULL, *m2 = NULL;

                check(asprintf(&m1, "expected a unique rule name, found \"dup\" again (first at "
                                    "%s:3)", f1) > 0);
                check(asprintf(&m2, "expected a rule that can apply, found rule \"after-stop\" "
                                    "shadowed by the earlier rule \"stop\" (%s:5) with Final=yes",
                               f1) > 0);
                check(has_diag(&d, DIAG_WARNING, "20-b.policy", 1, m1));
                check(has_diag(&d, DIAG_WARNING, "20-b.policy", 4, m2));
        }
        check(policy_n_rules(p) == 4);
        policy_free(p);
        diagnostics_done(&d);

        /* load_files: exactly these, in this order */
        {
                char *files[] = { f2, f1, NULL };

                check(policy_load_files(files, &p, &d) == 0);
                check(policy_n_files(p) == 2 && streq(policy_file(p, 0)->name, "20-b.policy"));
                /* 20-b first: profile p is not defined yet */
                check(policy_file(p, 0)->rejected);
                check(policy_n_rules(p) == 2);
                policy_free(p);
                diagnostics_done(&d);
        }
        (void)f3;
}

/* policy_used_keys() over files: overridden, masked and rejected files count
 * for nothing, the previous version of a rejected file counts. */
static void test_used_keys(void)
{
        _cleanup_free_ char *low = path("k-low"), *high = path("k-high"),
                            *masked = path("k-high/30-masked.policy");
        char *dirs[] = { low, high, NULL };
        Diagnostics d = {};
        Policy *p = NULL, *p2 = NULL;

        check(mkdir(low, 0755) == 0);
        check(mkdir(high, 0755) == 0);
        write_file("k-low/10-names.policy", "[Rule a]\nMatch = name:a\n");
        write_file("k-low/20-over.policy", "[Rule over]\nMatch = user:root\n");
        write_file("k-high/20-over.policy", "[Rule over]\nMatch = comm:x\n");
        write_file("k-low/30-masked.policy", "[Rule m]\nMatch = cgroup:/x\n");
        check(symlink("/dev/null", masked) == 0);
        write_file("k-low/40-bad.policy", "[Rule bad]\nMatch = unit:x.service &&\n");

        check(policy_load(dirs, NULL, &p, &d) == 0);
        check(policy_file(p, 3)->rejected);
        check(policy_used_keys(p) == (POLICY_KEY(KEY_NAME) | POLICY_KEY(KEY_COMM)));
        diagnostics_done(&d);
        policy_free(p);

        write_file("k-low/40-bad.policy", "[Rule bad]\nMatch = unit:x.service\n");
        check(policy_load(dirs, NULL, &p, &d) == 0);
        check(policy_used_keys(p) ==
              (POLICY_KEY(KEY_NAME) | POLICY_KEY(KEY_COMM) | POLICY_KEY(KEY_UNIT)));
        diagnostics_done(&d);
        write_file("k-low/40-bad.policy", "[Rule bad]\nMatch = unit:x.service && ancestor:(\n");
        check(policy_load(dirs, p, &p2, &d) == 0);
        check(policy_file(p2, 3)->from_previous);
        check(policy_used_keys(p2) ==
              (POLICY_KEY(KEY_NAME) | POLICY_KEY(KEY_COMM) | POLICY_KEY(KEY_UNIT)));
        diagnostics_done(&d);
        policy_free(p2);
        policy_free(p);
}

/* A FIFO (or a symlink to one) named *.policy must not block the loader in
 * open(); a policy directory that is a file is an error. main() arms an
 * alarm, so a regression fails visibly instead of hanging. */
static void test_not_regular(void)
{
        _cleanup_free_ char *dir = path("fifo"), *fifo = path("fifo/10-fifo.policy"),
                            *link = path("fifo/20-link.policy"),
                            *null = path("fifo/30-null.policy"), *file = path("fifo/40-ok.policy");
        char *dirs[] = { dir, file, (char *)"/dev/zero", NULL };
        Diagnostics d = {};
        Policy *p = NULL;

        check(mkdir(dir, 0755) == 0);
        check(mkfifo(fifo, 0644) == 0);
        check(symlink(fifo, link) == 0);
        check(symlink("/dev/null", null) == 0);
        write_file("fifo/40-ok.policy", "[Rule ok]\nMatch = name:ok\n");

        check(policy_load(dirs, NULL, &p, &d) == 0);
        check(has_diag(&d, DIAG_ERROR, "10-fifo.policy", 0,
                       "expected a readable regular file, found a FIFO"));
        check(has_diag(&d, DIAG_ERROR, "20-link.policy", 0,
                       "expected a readable regular file, found a FIFO"));
        check(has_diag(&d, DIAG_ERROR, "40-ok.policy", 0,
                       "expected a policy directory, found a regular file"));
        check(has_diag(&d, DIAG_ERROR, "/dev/zero", 0,
                       "expected a policy directory, found a character device"));
        check(diagnostics_count(&d, DIAG_ERROR) == 4);
        check(policy_n_files(p) == 4);
        check(policy_file(p, 0)->rejected && policy_file(p, 1)->rejected);
        check(policy_file(p, 2)->masked); /* a /dev/null link stays the mask */
        check_streq(matched_rule(p, "ok"), "ok");
        policy_free(p);
        diagnostics_done(&d);

        /* latnicectl check FILE: the same, by name */
        {
                char *files[] = { fifo, NULL };

                check(policy_load_files(files, &p, &d) == 0);
                check(has_diag(&d, DIAG_ERROR, "10-fifo.policy", 0,
                               "expected a readable regular file, found a FIFO"));
                policy_free(p);
                diagnostics_done(&d);
        }
}

/* ---- Files rewritten while they are read ------------------------------ */

/* Two versions of one file, same rule count, different names. */
static const char version_a[] = "[Rule a1]\nMatch = name:a1\n"
                                "[Rule a2]\nMatch = name:a2\n"
                                "[Rule a3]\nMatch = name:a3\n";
static const char version_b[] = "[Rule b1]\nMatch = name:b1\nNice = 1\n"
                                "[Rule b2]\nMatch = name:b2\nNice = 2\n"
                                "[Rule b3]\nMatch = name:b3\nNice = 3\n";

/* Set the mtime of PATH an hour back: a file written long ago, settled. */
static void backdate(const char *p)
{
        struct timespec t[2];

        CHECK(clock_gettime(CLOCK_REALTIME, &t[0]) == 0);
        t[0].tv_sec -= 3600;
        t[1] = t[0];
        CHECK(utimensat(AT_FDCWD, p, t, 0) == 0);
}

/* Rewrite PATH in place, as `cat new > file` does (the same inode, if it exists). */
static void rewrite(const char *p, const char *text)
{
        _cleanup_close_ int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        CHECK(fd >= 0);
        CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
}

/* Which version's rules P has: 'a', 'b', or 0 for anything else (some lost). */
static char policy_version(const Policy *p)
{
        if (policy_n_rules(p) != 3)
                return 0;
        if (matched_rule(p, "a1") && matched_rule(p, "a2") && matched_rule(p, "a3"))
                return 'a';
        if (matched_rule(p, "b1") && matched_rule(p, "b2") && matched_rule(p, "b3"))
                return 'b';
        return 0;
}

/* Write the file REL (below the root) with TEXT, settled long ago. */
static void write_settled(const char *rel, const char *text)
{
        _cleanup_free_ char *p = path(rel);

        write_file(rel, text);
        backdate(p);
}

/* The directory NAME below the root, made here, with NAME/10-ab.policy
 * holding version A, settled: the file the read hooks rewrite. Returns the
 * directory's path, *RET_FILE the file's (both to free). */
static char *ab_dir(const char *name, char **ret_file)
{
        char *dir = path(name);
        _cleanup_free_ char *rel = NULL;

        CHECK(asprintf(&rel, "%s/10-ab.policy", name) > 0);
        check(mkdir(dir, 0755) == 0);
        write_settled(rel, version_a);
        *ret_file = path(rel);
        return dir;
}

typedef enum HookStep {
        STEP_NONE,
        STEP_TRUNCATE,    /* `truncate -s 0`, the first half of a rewrite */
        STEP_WRITE_B,     /* the second half: version B, then settled */
        STEP_REWRITE,     /* a complete rewrite, version A or B */
        STEP_RENAME_B,    /* an editor's save: version B renamed over the file */
        STEP_APPEND_REST, /* the rest of a file written in two pieces */
} HookStep;

typedef struct HookState {
        const char *path;    /* the file the hook acts on */
        HookStep steps[4];   /* by attempt; STEP_NONE after the last */
        HookStep every;      /* if not STEP_NONE, at every attempt instead */
        unsigned attempts;   /* reads of PATH */
        unsigned slow_ms;    /* each read of PATH takes this much longer */
        struct timespec first; /* CLOCK_REALTIME at the first attempt */
} HookState;

static void hook_step(HookState *h, HookStep step, unsigned attempt)
{
        _cleanup_free_ char *tmp = NULL;

        switch (step) {
        case STEP_NONE:
                break;
        case STEP_TRUNCATE:
                CHECK(truncate(h->path, 0) == 0);
                break;
        case STEP_WRITE_B:
                rewrite(h->path, version_b);
                backdate(h->path);
                break;
        case STEP_REWRITE:
                rewrite(h->path, attempt % 2 ? version_a : version_b);
                break;
        case STEP_RENAME_B:
                CHECK(asprintf(&tmp, "%s.tmp", h->path) > 0);
                rewrite(tmp, version_b);
                backdate(tmp);
                CHECK(rename(tmp, h->path) == 0);
                break;
        case STEP_APPEND_REST: {
                _cleanup_close_ int fd = open(h->path, O_WRONLY | O_APPEND | O_CLOEXEC);
                const char *rest = strstr(version_a, "[Rule a2]");

                CHECK(fd >= 0);
                CHECK(write(fd, rest, strlen(rest)) == (ssize_t)strlen(rest));
                backdate(h->path);
                break;
        }
        }
}

static void read_hook(const char *p, int fd, unsigned attempt, void *userdata)
{
        HookState *h = userdata;

        if (!streq(p, h->path))
                return;
        h->attempts++;
        if (attempt == 0)
                CHECK(clock_gettime(CLOCK_REALTIME, &h->first) == 0);
        if (h->slow_ms)
                CHECK(nanosleep(&(struct timespec){ .tv_nsec = h->slow_ms * 1000000L }, NULL) == 0);
        if (h->every != STEP_NONE)
                hook_step(h, h->every, attempt);
        else if (attempt < ELEMENTSOF(h->steps))
                hook_step(h, h->steps[attempt], attempt);
}

/* Load the directory DIR once with hook H, from PREVIOUS. */
static Policy *load_hooked(char *dir, HookState *h, const Policy *previous, Diagnostics *d)
{
        char *dirs[] = { dir, NULL };
        Policy *p = NULL;

        policy_file_read_set_hook(read_hook, h);
        CHECK(policy_load(dirs, previous, &p, d) == 0);
        policy_file_read_set_hook(NULL, NULL);
        return p;
}

/* A file emptied mid-read, then written: never taken as empty; also
 * replaced by a rename mid-read: the new file is the one read. */
static void test_read_rewritten(void)
{
        _cleanup_free_ char *file = NULL, *dir = ab_dir("rw", &file);
        HookState h = { .path = file, .steps = { STEP_TRUNCATE, STEP_WRITE_B } };
        Diagnostics d = {};
        Policy *p;

        p = load_hooked(dir, &h, NULL, &d);
        check(h.attempts == 3); /* empty: changed; B written: changed; B */
        check(policy_version(p) == 'b');
        check(!policy_file(p, 0)->rejected && d.n == 0);
        policy_free(p);

        write_settled("rw/10-ab.policy", version_a);
        h = (HookState){ .path = file, .steps = { STEP_RENAME_B } };
        p = load_hooked(dir, &h, NULL, &d);
        check(h.attempts == 2); /* A, whole, but no longer the file: B */
        check(policy_version(p) == 'b');
        check(d.n == 0);
        policy_free(p);
}

/* A file that never stops changing: its previous version stays, with a
 * warning; without one it is rejected. The other files load. */
static void test_read_never_settles(void)
{
        _cleanup_free_ char *file = NULL, *dir = ab_dir("busy", &file);
        HookState h = { .path = file, .every = STEP_REWRITE };
        Diagnostics d = {};
        Policy *p, *p2;

        write_file("busy/20-other.policy", "[Rule other]\nMatch = name:other\n");
        p = load_hooked(dir, &(HookState){ .path = file }, NULL, &d);
        check(policy_version(p) == 0 && policy_n_rules(p) == 4);
        check(d.n == 0);

        p2 = load_hooked(dir, &h, p, &d);
        /* Read again, at least as often as the loader must before giving
         * up, however slow the machine (ASan on a loaded host: two reads
         * took the 50 ms). */
        check(h.attempts >= POLICY_READ_CHANGE_MIN_READS);
        check(policy_file(p2, 0)->rejected && policy_file(p2, 0)->from_previous);
        check_streq(matched_rule(p2, "a1"), "a1");
        check_streq(matched_rule(p2, "other"), "other");
        check(policy_n_rules(p2) == 4);
        check(has_diag(&d, DIAG_WARNING, "busy/10-ab.policy", 0,
                       "expected a file that stays the same while it is read, found it changed "
                       "while being read: keeping the previous version of 10-ab.policy"));
        check(d.n == 1);
        diagnostics_done(&d);
        policy_free(p2);

        h.attempts = 0;
        p2 = load_hooked(dir, &h, NULL, &d);
        check(h.attempts >= POLICY_READ_CHANGE_MIN_READS);
        check(policy_file(p2, 0)->rejected && !policy_file(p2, 0)->from_previous);
        check(policy_n_rules(p2) == 1);
        check_streq(matched_rule(p2, "other"), "other");
        check(has_diag(&d, DIAG_ERROR, "busy/10-ab.policy", 0,
                       "expected a file that stays the same while it is read, found it changed "
                       "while being read (for 50 ms)"));
        check(d.n == 1);
        diagnostics_done(&d);
        policy_free(p2);
        policy_free(p);
}

/* On a machine so busy that each read takes 30 ms (two reads outlast the
 * 50 ms), a file that keeps changing is still read POLICY_READ_CHANGE_MIN_READS
 * times before it is given up on. */
static void test_read_never_settles_slow(void)
{
        _cleanup_free_ char *file = NULL, *dir = ab_dir("slow", &file);
        HookState h = { .path = file, .every = STEP_REWRITE, .slow_ms = 30 };
        Diagnostics d = {};
        Policy *p;

        p = load_hooked(dir, &h, NULL, &d);
        check(h.attempts == POLICY_READ_CHANGE_MIN_READS);
        check(policy_file(p, 0)->rejected);
        check(d.n == 1);
        diagnostics_done(&d);
        policy_free(p);
}

/* An empty file that stays empty is empty, settled long ago or just now. A
 * file just written is read again once it had time to be written whole. */
static void test_read_empty_and_recent(void)
{
        _cleanup_free_ char *dir = path("empty"), *file = path("empty/10-e.policy"),
                            *half = path("empty/20-half.policy");
        HookState h = { .path = file };
        Diagnostics d = {};
        struct timespec before;
        int64_t waited;
        Policy *p;

        check(mkdir(dir, 0755) == 0);
        write_settled("empty/10-e.policy", "");
        p = load_hooked(dir, &h, NULL, &d);
        check(h.attempts == 1);
        check(policy_n_files(p) == 1 && !policy_file(p, 0)->rejected);
        check_streq(policy_file(p, 0)->text, "");
        policy_free(p);
        diagnostics_done(&d);

        write_file("empty/10-e.policy", ""); /* modified now: waited for, then empty */
        p = load_hooked(dir, &h, NULL, &d);
        check(!policy_file(p, 0)->rejected);
        check_streq(policy_file(p, 0)->text, "");
        policy_free(p);
        diagnostics_done(&d);

        /* The first rule of three, just written; the rest comes at the second read. */
        CHECK(clock_gettime(CLOCK_REALTIME, &before) == 0);
        write_file("empty/20-half.policy", "[Rule a1]\nMatch = name:a1\n");
        h = (HookState){ .path = half, .steps = { STEP_NONE, STEP_APPEND_REST } };
        p = load_hooked(dir, &h, NULL, &d);
        waited = (h.first.tv_sec - before.tv_sec) * 1000000000LL + h.first.tv_nsec -
                 before.tv_nsec;
        /* (unless this process stalled long enough for it to count as settled,
         * mtime being up to a clock tick older than BEFORE) */
        if (waited < POLICY_READ_SETTLE_NSEC - 5000000LL) {
                check(h.attempts == 3);
                check(policy_version(p) == 'a');
        } else
                fprintf(stderr, "stalled %lld ns: not checking the half-written file\n",
                        (long long)waited);
        policy_free(p);
        diagnostics_done(&d);
}

typedef struct Writer {
        const char *path;
        atomic_bool stop;
        atomic_uint loads; /* since the last rewrite */
        unsigned rewrites;
} Writer;

/* Write TEXT in pieces, a rule at a time, as a slow writer would. */
static void write_pieces(int fd, const char *text)
{
        const char *s = text;

        while (*s) {
                const char *next = strstr(s + 1, "[Rule");
                size_t n = next ? (size_t)(next - s) : strlen(s);

                CHECK(write(fd, s, n) == (ssize_t)n);
                s += n;
                usleep(200);
        }
}

/* Rewrites the file after every 20 loads, alternating A and B, in three
 * ways: a `truncate` then the text in pieces, `cat new > file`, an editor's
 * rename. (Paced by loads, not time: a rewrite makes the next load wait
 * until the file settled, so rewriting more often would only slow it down.) */
static void *writer_run(void *userdata)
{
        Writer *w = userdata;
        struct sched_param sp = { .sched_priority = 1 };

        /* So that a busy machine does not stretch a rewrite past
         * POLICY_READ_SETTLE_NSEC, which would make the half-written file
         * a settled one (best effort: needs CAP_SYS_NICE). */
        (void)pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
        while (!atomic_load(&w->stop)) {
                const char *text = w->rewrites % 2 ? version_a : version_b;
                _cleanup_free_ char *tmp = NULL;

                switch (w->rewrites % 3) {
                case 0: {
                        _cleanup_close_ int fd = open(w->path, O_WRONLY | O_CLOEXEC);

                        CHECK(fd >= 0);
                        CHECK(ftruncate(fd, 0) == 0);
                        usleep(500);
                        write_pieces(fd, text);
                        break;
                }
                case 1:
                        rewrite(w->path, text);
                        break;
                case 2:
                        CHECK(asprintf(&tmp, "%s.tmp", w->path) > 0);
                        rewrite(tmp, text);
                        CHECK(rename(tmp, w->path) == 0);
                        break;
                }
                w->rewrites++;
                atomic_store(&w->loads, 0);
                while (atomic_load(&w->loads) < 20 && !atomic_load(&w->stop))
                        usleep(1000);
        }
        return NULL;
}

/* 2,000 loads while a thread rewrites the file: each one has all the rules
 * of version A or all of B, never none or some. */
static void test_read_stress(void)
{
        _cleanup_free_ char *file = NULL, *dir = ab_dir("stress", &file);
        char *dirs[] = { dir, NULL };
        Writer w = { .path = file };
        unsigned lost = 0, seen[2] = {};
        Diagnostics d = {};
        Policy *p = NULL;
        pthread_t t;

        CHECK(policy_load(dirs, NULL, &p, &d) == 0);
        CHECK(policy_version(p) == 'a');
        diagnostics_done(&d);

        CHECK(pthread_create(&t, NULL, writer_run, &w) == 0);
        for (unsigned i = 0; i < 2000; i++) {
                Policy *next = NULL;
                char v;

                CHECK(policy_load(dirs, p, &next, &d) == 0);
                atomic_fetch_add(&w.loads, 1);
                v = policy_version(next);
                if (v)
                        seen[v - 'a']++;
                else if (lost++ < 5) {
                        fprintf(stderr, "load %u: %zu rules:\n", i, policy_n_rules(next));
                        dump(&d);
                }
                diagnostics_done(&d);
                policy_free(p);
                p = next;
        }
        atomic_store(&w.stop, true);
        CHECK(pthread_join(t, NULL) == 0);
        fprintf(stderr, "stress: %u rewrites, loads: %u A, %u B, %u lost rules\n", w.rewrites,
                seen[0], seen[1], lost);
        check(lost == 0);
        check(w.rewrites > 0);
        policy_free(p);
}

int main(void)
{
        char cmd[128];

        if (!mkdtemp(root)) {
                perror("mkdtemp");
                return 1;
        }
        test_dirs();
        test_cross_file();
        test_used_keys();
        alarm(60);
        test_not_regular();
        alarm(0);
        test_read_rewritten();
        test_read_never_settles();
        test_read_never_settles_slow();
        test_read_empty_and_recent();
        test_read_stress();
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        if (system(cmd) != 0)
                fprintf(stderr, "could not remove %s\n", root);
        return test_result();
}
