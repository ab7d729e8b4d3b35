/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests: lib/sched-info (the scheduler report) against fake trees of
 * /sys and /proc: every preemption model from each source, HZ, autogroup,
 * sched_ext absent, disabled, enabled (with its scheduler's name), and files
 * missing or unreadable (a directory where the file should be: what a read
 * under lockdown or of an unmounted debugfs comes to, for a test that runs
 * as root).
 */
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if HAVE_ZLIB
#include <zlib.h>
#endif

#include "lib/macro.h"
#include "lib/sched-info.h"
#include "lib/util.h"
#include "tests/unit/test-util.h"

static char root[] = "/tmp/test-sched-info.XXXXXX";

static void mkdir_parents(const char *path)
{
        char buf[4096];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *s = buf + 1; *s; s++)
                if (*s == '/') {
                        *s = 0;
                        (void)mkdir(buf, 0755);
                        *s = '/';
                }
}

static void put(const char *rel, const char *content)
{
        char p[4096];
        FILE *f;

        snprintf(p, sizeof(p), "%s/%s", root, rel);
        mkdir_parents(p);
        f = fopen(p, "we");
        CHECK(f);
        fputs(content, f);
        CHECK(fclose(f) == 0);
}

/* A directory where the file should be: reading it fails (EISDIR). */
static void unreadable(const char *rel)
{
        char p[4096];

        snprintf(p, sizeof(p), "%s/%s", root, rel);
        mkdir_parents(p);
        (void)unlink(p);
        CHECK(mkdir(p, 0755) == 0 || errno == EEXIST);
}

/* Remove ROOT/REL, a file or an empty directory. */
static void rm_rel(const char *rel)
{
        char p[4096];

        snprintf(p, sizeof(p), "%s/%s", root, rel);
        (void)remove(p);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
        return remove(p);
}

static void reset(void)
{
        CHECK(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
        CHECK(mkdir(root, 0700) == 0);
        put("proc/sys/kernel/osrelease", "6.18.0-test\n");
}

static SchedInfo info(void)
{
        SchedInfo i;

        CHECK(sched_info_read(root, &i) == 0);
        return i;
}

/* debugfs: the model in parentheses, every one of them. */
static void test_debugfs(void)
{
        static const char *const lines[] = {
                "(none) voluntary full lazy\n", "none (voluntary) full lazy\n",
                "none voluntary (full) lazy\n", "none voluntary full (lazy)\n",
        };
        static const PreemptModel want[] = { PREEMPT_MODEL_NONE, PREEMPT_MODEL_VOLUNTARY,
                                             PREEMPT_MODEL_FULL, PREEMPT_MODEL_LAZY };

        for (size_t k = 0; k < ELEMENTSOF(lines); k++) {
                SchedInfo i;

                reset();
                put("sys/kernel/debug/sched/preempt", lines[k]);
                /* debugfs wins over the config and the version string */
                put("boot/config-6.18.0-test", "CONFIG_PREEMPT_NONE=y\nCONFIG_HZ=100\n");
                put("proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC\n");
                i = info();
                check(i.preempt == want[k]);
                check_streq(i.preempt_source, "debugfs");
                check(i.preempt_dynamic == 1);
                check(i.hz == 100);
                sched_info_done(&i);
        }
        /* garbage in the file: the next source */
        reset();
        put("sys/kernel/debug/sched/preempt", "what\n");
        put("proc/sys/kernel/version", "#1 SMP PREEMPT_RT Mon\n");
        SchedInfo i = info();
        check(i.preempt == PREEMPT_MODEL_RT);
        check_streq(i.preempt_source, "the version string");
}

/* The kernel config, and preempt= on the command line of a dynamic one. */
static void test_config(void)
{
        static const struct {
                const char *config, *cmdline;
                PreemptModel want;
                int dynamic;
                const char *source;
        } cases[] = {
                { "CONFIG_PREEMPT_NONE=y\n", "ro quiet", PREEMPT_MODEL_NONE, 0, "the kernel config" },
                { "CONFIG_PREEMPT_VOLUNTARY=y\n", "", PREEMPT_MODEL_VOLUNTARY, 0, "the kernel config" },
                { "# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT=y\n", "", PREEMPT_MODEL_FULL, 0,
                  "the kernel config" },
                { "CONFIG_PREEMPT_LAZY=y\nCONFIG_PREEMPT_BUILD=y\n", "", PREEMPT_MODEL_LAZY, 0,
                  "the kernel config" },
                { "CONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT=y\n", "preempt=none", PREEMPT_MODEL_RT, 0,
                  "the kernel config" },
                { "CONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_PREEMPT_DYNAMIC=y\n", "ro", PREEMPT_MODEL_VOLUNTARY,
                  1, "the kernel config" },
                { "CONFIG_PREEMPT_NONE=y\nCONFIG_PREEMPT_DYNAMIC=y\n", "ro preempt=full quiet",
                  PREEMPT_MODEL_FULL, 1, "the boot command line" },
                { "CONFIG_PREEMPT_NONE=y\nCONFIG_PREEMPT_DYNAMIC=y\n", "preempt=lazy",
                  PREEMPT_MODEL_LAZY, 1, "the boot command line" },
                /* preempt= without PREEMPT_DYNAMIC changes nothing */
                { "CONFIG_PREEMPT_NONE=y\n", "preempt=full", PREEMPT_MODEL_NONE, 0, "the kernel config" },
        };

        for (size_t k = 0; k < ELEMENTSOF(cases); k++) {
                char config[512];
                SchedInfo i;

                reset();
                snprintf(config, sizeof(config), "CONFIG_HZ_250=y\n%sCONFIG_HZ=250\n",
                         cases[k].config);
                put("boot/config-6.18.0-test", config);
                put("proc/cmdline", cases[k].cmdline);
                unreadable("sys/kernel/debug/sched/preempt");
                i = info();
                if (i.preempt != cases[k].want)
                        test_fail("case %zu: %s, want %s", k, preempt_model_to_string(i.preempt),
                                  preempt_model_to_string(cases[k].want));
                check(i.preempt_dynamic == cases[k].dynamic);
                check_streq(i.preempt_source, cases[k].source);
                check(i.hz == 250);
                check_streq(i.hz_source, "the kernel config");
                sched_info_done(&i);
        }
}

/* Only the version string: what it can say. */
static void test_version(void)
{
        static const struct {
                const char *version;
                PreemptModel want;
                const char *hint;
                int dynamic;
        } cases[] = {
                { "#1 SMP PREEMPT_RT Thu", PREEMPT_MODEL_RT, NULL, 0 },
                { "#1 SMP PREEMPT_DYNAMIC @0", PREEMPT_MODEL_UNKNOWN, NULL, 1 },
                { "#1 SMP PREEMPT Tue", PREEMPT_MODEL_UNKNOWN, "full or lazy", 0 },
                { "#1 SMP Debian 6.1.1", PREEMPT_MODEL_UNKNOWN, "none or voluntary", 0 },
        };

        for (size_t k = 0; k < ELEMENTSOF(cases); k++) {
                SchedInfo i;

                reset();
                put("proc/sys/kernel/version", cases[k].version);
                i = info();
                check(i.preempt == cases[k].want);
                check_streq(i.preempt_hint, cases[k].hint);
                check(i.preempt_dynamic == cases[k].dynamic);
                check(i.hz == 0 && !i.hz_source);
                sched_info_done(&i);
        }
}

#if HAVE_ZLIB
static void test_config_gz(void)
{
        char p[4096];
        gzFile f;
        SchedInfo i;

        reset();
        snprintf(p, sizeof(p), "%s/proc/config.gz", root);
        f = gzopen(p, "wb");
        CHECK(f);
        gzputs(f, "CONFIG_PREEMPT_VOLUNTARY=y\nCONFIG_HZ=1000\n");
        CHECK(gzclose(f) == Z_OK);
        i = info();
        check(i.preempt == PREEMPT_MODEL_VOLUNTARY && i.hz == 1000);
        /* /boot first */
        put("boot/config-6.18.0-test", "CONFIG_PREEMPT=y\nCONFIG_HZ=300\n");
        i = info();
        check(i.preempt == PREEMPT_MODEL_FULL && i.hz == 300);
}
#endif

static void test_scx(void)
{
        SchedInfo i;
        ScxState s;
        char *ops = NULL;

        /* no sched_ext in the kernel */
        reset();
        i = info();
        check(i.scx == SCX_STATE_ABSENT && !i.scx_ops);
        check(i.preempt == PREEMPT_MODEL_UNKNOWN && !i.preempt_source && i.autogroup == -1);

        put("sys/kernel/sched_ext/state", "disabled\n");
        put("sys/kernel/sched_ext/root/ops", "stale\n");
        i = info();
        check(i.scx == SCX_STATE_DISABLED && !i.scx_ops);

        put("sys/kernel/sched_ext/state", "enabled\n");
        put("sys/kernel/sched_ext/root/ops", "lavd_1.0.4_x86_64\n");
        i = info();
        check(i.scx == SCX_STATE_ENABLED && scx_state_active(i.scx));
        check_streq(i.scx_ops, "lavd_1.0.4_x86_64");
        sched_info_done(&i);
        check(!i.scx_ops);

        for (int k = SCX_STATE_DISABLED; k < _SCX_STATE_MAX; k++) {
                char line[32];

                snprintf(line, sizeof(line), "%s\n", scx_state_to_string(k));
                put("sys/kernel/sched_ext/state", line);
                CHECK(scx_state_read(root, &s, NULL) == 0);
                check(s == (ScxState)k);
                check(scx_state_active(s) == (k == SCX_STATE_ENABLING || k == SCX_STATE_ENABLED));
        }

        /* enabled, the name unreadable */
        put("sys/kernel/sched_ext/state", "enabled\n");
        rm_rel("sys/kernel/sched_ext/root/ops");
        unreadable("sys/kernel/sched_ext/root/ops");
        CHECK(scx_state_read(root, &s, &ops) == 0);
        check(s == SCX_STATE_ENABLED && !ops);

        /* the state unreadable, or a word we do not know */
        rm_rel("sys/kernel/sched_ext/state");
        unreadable("sys/kernel/sched_ext/state");
        CHECK(scx_state_read(root, &s, &ops) == 0);
        check(s == SCX_STATE_UNKNOWN && !scx_state_active(s));
        rm_rel("sys/kernel/sched_ext/state");
        put("sys/kernel/sched_ext/state", "frobnicating\n");
        CHECK(scx_state_read(root, &s, NULL) == 0);
        check(s == SCX_STATE_UNKNOWN);
}

static void check_describe(const SchedInfo *i, const char *want)
{
        _cleanup_free_ char *d = sched_info_preempt_describe(i);

        check_streq(d, want);
}

static void test_describe(void)
{
        check_describe(&(SchedInfo){ .preempt = PREEMPT_MODEL_FULL, .preempt_dynamic = 1,
                                     .preempt_source = "debugfs" },
                       "full (dynamic; from debugfs)");
        check_describe(&(SchedInfo){ .preempt = PREEMPT_MODEL_NONE, .preempt_dynamic = 0,
                                     .preempt_source = "the kernel config" },
                       "none (from the kernel config)");
        check_describe(&(SchedInfo){ .preempt_dynamic = 0, .preempt_hint = "none or voluntary" },
                       "none or voluntary (from the version string)");
        check_describe(&(SchedInfo){ .preempt_dynamic = 1 },
                       "dynamic, which one unknown (from the version string)");
        check_describe(&(SchedInfo){ .preempt_dynamic = -1 }, "unknown");
}

static void test_autogroup(void)
{
        SchedInfo i;

        reset();
        put("proc/sys/kernel/sched_autogroup_enabled", "1\n");
        i = info();
        check(i.autogroup == 1);
        put("proc/sys/kernel/sched_autogroup_enabled", "0\n");
        i = info();
        check(i.autogroup == 0);
        rm_rel("proc/sys/kernel/sched_autogroup_enabled");
        unreadable("proc/sys/kernel/sched_autogroup_enabled");
        i = info();
        check(i.autogroup == -1);
        /* an unreadable config and version: unknown, no error */
        unreadable("boot/config-6.18.0-test");
        unreadable("proc/sys/kernel/version");
        i = info();
        check(i.preempt == PREEMPT_MODEL_UNKNOWN && i.hz == 0 && i.preempt_dynamic == -1);
}

int main(void)
{
        CHECK(mkdtemp(root));
        test_debugfs();
        test_config();
        test_version();
#if HAVE_ZLIB
        test_config_gz();
#endif
        test_scx();
        test_autogroup();
        test_describe();
        /* the real machine: never an error */
        {
                SchedInfo i;

                CHECK(sched_info_read(NULL, &i) == 0);
                printf("this machine: preempt %s (%s), HZ %u, sched_ext %s\n",
                       preempt_model_to_string(i.preempt), strna(i.preempt_source), i.hz,
                       scx_state_to_string(i.scx));
                sched_info_done(&i);
        }
        (void)nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        if (test_result() != EXIT_SUCCESS)
                return EXIT_FAILURE;
        printf("test-sched-info: all checks passed\n");
        return 0;
}
