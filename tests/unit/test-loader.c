/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests for policy/loader.c: directories in temp dirs, override by name,
 * /dev/null masking, lexical order, rejected files and the previous
 * version, missing directories, profiles across files, cross-file warnings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/macro.h"
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
        check(policy_used_keys(p) == (POLICY_KEY_NAME | POLICY_KEY_COMM));
        diagnostics_done(&d);
        policy_free(p);

        write_file("k-low/40-bad.policy", "[Rule bad]\nMatch = unit:x.service\n");
        check(policy_load(dirs, NULL, &p, &d) == 0);
        check(policy_used_keys(p) == (POLICY_KEY_NAME | POLICY_KEY_COMM | POLICY_KEY_UNIT));
        diagnostics_done(&d);
        write_file("k-low/40-bad.policy", "[Rule bad]\nMatch = unit:x.service && ancestor:(\n");
        check(policy_load(dirs, p, &p2, &d) == 0);
        check(policy_file(p2, 3)->from_previous);
        check(policy_used_keys(p2) == (POLICY_KEY_NAME | POLICY_KEY_COMM | POLICY_KEY_UNIT));
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
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        if (system(cmd) != 0)
                fprintf(stderr, "could not remove %s\n", root);
        return test_result();
}
