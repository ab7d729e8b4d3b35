/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policy-scale: load time, match time per task and memory of the policy
 * module, for a policy directory, a policy file, or N generated name rules.
 *
 *   policy-scale --dir DIR | --file FILE | --generate N   [--label TEXT]
 *
 * Prints one line of key=value pairs: rules, load_ms, match_ns (median over
 * rounds of 1000 snapshots, ~10% of them hitting an exact-name rule, the
 * rest missing), match_hit_ns / match_miss_ns, rss_before_kib, rss_after_kib.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/macro.h"
#include "policy/match.h"
#include "policy/policy-internal.h"
#include "policy/policy.h"

#define N_SNAPSHOTS 1000
#define ROUNDS 51

static long rss_kib(void)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/self/status", "re");
        char line[256];
        long v = -1;

        while (f && fgets(line, sizeof(line), f))
                if (sscanf(line, "VmRSS: %ld kB", &v) == 1)
                        break;
        return v;
}

static double now_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return x < y ? -1 : x > y;
}

static char *generate(unsigned n)
{
        char tmpl[] = "/tmp/policy-scale-XXXXXX";
        int fd = mkstemp(tmpl);
        FILE *f;

        if (fd < 0)
                return NULL;
        f = fdopen(fd, "w");
        if (!f)
                return NULL;
        fprintf(f, "[Profile game]\nLatencyNice = -5\nNice = -2\n\n");
        for (unsigned i = 0; i < n; i++)
                fprintf(f, "[Rule gen-%u]\nMatch = name:gen-proc-%u\n%s\n", i, i,
                        i % 3 == 0 ? "Profile = game" : "LatencyNice = 10");
        /* a handful of rules the index cannot narrow, as in real policies */
        fprintf(f, "[Rule any-cc]\nMatch = name:cc1* || exe:*/rustc\nPolicy = batch\n"
                   "[Rule users]\nMatch = cgroup:*/app-steam*.scope && !user:root\nNice = -1\n");
        fclose(f);
        return strdup(tmpl);
}

/* Exact names the policy indexes, to build hitting snapshots. */
static char **hit_names(const Policy *p, size_t *ret_n)
{
        char **names = NULL;
        size_t n = 0;

        for (size_t i = 0; i < p->n_rules && n < 4096; i++) {
                char **req = NULL;

                if (expr_required_names(p->rules[i]->match, &req) > 0 && req[0]) {
                        names = reallocarray(names, n + 1, sizeof(char *));
                        names[n++] = strdup(req[0]);
                }
                strv_free(req);
        }
        *ret_n = n;
        return names;
}

/* N_SNAPSHOTS tasks, every tenth named like a rule of NAMES (if any);
 * the number of those. */
static size_t make_snapshots(char **names, size_t n_names, TaskSnapshot *snaps,
                             char (*comms)[32])
{
        static const TaskNames anc[] = {
                { .comm = "bash", .argv0 = "bash", .exe = "bash" },
                { .comm = "systemd", .argv0 = "systemd", .exe = "systemd" },
        };
        size_t n_hits = 0;

        srand(1);
        for (size_t i = 0; i < N_SNAPSHOTS; i++) {
                bool is_hit = n_names > 0 && i % 10 == 0;
                const char *name;

                if (is_hit) {
                        name = names[(size_t)rand() % n_names];
                        n_hits++;
                } else {
                        snprintf(comms[i], sizeof(comms[i]), "proc-%d", rand() % 100000);
                        name = comms[i];
                }
                snaps[i] = (TaskSnapshot){
                        .pid = (pid_t)(1000 + i),
                        .tid = (pid_t)(1000 + i),
                        .names = { .comm = name, .argv0 = name, .exe = name },
                        .exe_path = "/usr/bin/something",
                        .cmdline = "/usr/bin/something --option value",
                        .uid = 1000,
                        .gid = 1000,
                        .user = "alice",
                        .group = "alice",
                        .cgroup = "/user.slice/user-1000.slice/session-2.scope",
                        .unit = "session-2.scope",
                        .ancestors = anc,
                        .n_ancestors = 2,
                };
        }
        return n_hits;
}

/* ROUNDS of matching every snapshot: per round the mean ns of a match,
 * of a hit (every tenth, if HITS) and of a miss. */
static void time_rounds(Policy *p, const TaskSnapshot *snaps, bool hits, size_t n_hits,
                        double *all, double *hit, double *miss)
{
        double t0;

        for (int round = 0; round < ROUNDS; round++) {
                double th = 0, tm = 0;
                volatile size_t sink = 0;

                for (size_t i = 0; i < N_SNAPSHOTS; i++) {
                        MatchResult m;
                        double a = now_ns();

                        policy_match(p, &snaps[i], &m, NULL);
                        a = now_ns() - a;
                        sink += m.n_matched;
                        if (hits && i % 10 == 0)
                                th += a;
                        else
                                tm += a;
                }
                /* the whole batch, timed as one, for the overall figure */
                t0 = now_ns();
                for (size_t i = 0; i < N_SNAPSHOTS; i++) {
                        MatchResult m;

                        policy_match(p, &snaps[i], &m, NULL);
                        sink += m.n_matched;
                }
                all[round] = (now_ns() - t0) / N_SNAPSHOTS;
                hit[round] = n_hits ? th / (double)n_hits : 0;
                miss[round] = tm / (double)(N_SNAPSHOTS - n_hits);
                (void)sink;
        }
        qsort(all, ROUNDS, sizeof(double), cmp_double);
        qsort(hit, ROUNDS, sizeof(double), cmp_double);
        qsort(miss, ROUNDS, sizeof(double), cmp_double);
}

int main(int argc, char **argv)
{
        static const struct option options[] = {
                { "dir", required_argument, NULL, 'd' },
                { "file", required_argument, NULL, 'f' },
                { "generate", required_argument, NULL, 'g' },
                { "label", required_argument, NULL, 'l' },
                {},
        };
        const char *dir = NULL, *file = NULL, *label = "policy";
        _cleanup_free_ char *generated = NULL;
        TaskSnapshot *snaps;
        char (*comms)[32];
        double t0, load_ms, all[ROUNDS], hit[ROUNDS], miss[ROUNDS];
        long rss_before, rss_after;
        Diagnostics d = {};
        Policy *p = NULL;
        char **names;
        size_t n_names, n_hits = 0;
        unsigned gen = 0;
        int c, r;

        while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
                switch (c) {
                case 'd':
                        dir = optarg;
                        break;
                case 'f':
                        file = optarg;
                        break;
                case 'g':
                        gen = (unsigned)strtoul(optarg, NULL, 10);
                        break;
                case 'l':
                        label = optarg;
                        break;
                default:
                        return 2;
                }
        if (gen > 0) {
                generated = generate(gen);
                if (!generated)
                        return 1;
                file = generated;
        }
        if (!dir && !file) {
                fprintf(stderr, "usage: policy-scale --dir DIR | --file FILE | --generate N\n");
                return 2;
        }

        rss_before = rss_kib();
        t0 = now_ns();
        if (dir) {
                char *dirs[] = { (char *)dir, NULL };
                r = policy_load(dirs, NULL, &p, &d);
        } else {
                char *files[] = { (char *)file, NULL };
                r = policy_load_files(files, &p, &d);
        }
        load_ms = (now_ns() - t0) / 1e6;
        rss_after = rss_kib();
        if (generated)
                unlink(generated);
        if (r < 0) {
                fprintf(stderr, "policy-scale: load failed: %s\n", strerror(-r));
                return 1;
        }
        if (diagnostics_count(&d, DIAG_ERROR) > 0)
                fprintf(stderr, "policy-scale: %zu errors while loading\n",
                        diagnostics_count(&d, DIAG_ERROR));

        names = hit_names(p, &n_names);
        snaps = calloc(N_SNAPSHOTS, sizeof(TaskSnapshot));
        comms = calloc(N_SNAPSHOTS, sizeof(*comms));
        if (!snaps || !comms)
                return 1;
        n_hits = make_snapshots(names, n_names, snaps, comms);

        time_rounds(p, snaps, n_names > 0, n_hits, all, hit, miss);

        printf("label=%s rules=%zu files=%zu load_ms=%.1f match_ns=%.0f match_hit_ns=%.0f "
               "match_miss_ns=%.0f rss_before_kib=%ld rss_after_kib=%ld errors=%zu\n",
               label, policy_n_rules(p), policy_n_files(p), load_ms, all[ROUNDS / 2],
               hit[ROUNDS / 2], miss[ROUNDS / 2], rss_before, rss_after,
               diagnostics_count(&d, DIAG_ERROR));

        for (size_t i = 0; i < n_names; i++)
                free(names[i]);
        free(names);
        free(snaps);
        free(comms);
        policy_free(p);
        diagnostics_done(&d);
        return 0;
}
