/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Scheduler report (lib/sched-info.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if HAVE_ZLIB
#include <zlib.h>
#endif

#include "lib/macro.h"
#include "lib/sched-info.h"
#include "lib/util.h"

/* A kernel config is some 300 KiB; cmdline and the rest are small. */
#define CONFIG_MAX (8u * 1024u * 1024u)

static const char *const preempt_table[_PREEMPT_MODEL_MAX] = {
        [PREEMPT_MODEL_UNKNOWN] = "unknown",
        [PREEMPT_MODEL_NONE] = "none",
        [PREEMPT_MODEL_VOLUNTARY] = "voluntary",
        [PREEMPT_MODEL_FULL] = "full",
        [PREEMPT_MODEL_LAZY] = "lazy",
        [PREEMPT_MODEL_RT] = "rt",
};

static const char *const scx_table[_SCX_STATE_MAX] = {
        [SCX_STATE_UNKNOWN] = "unknown",
        [SCX_STATE_ABSENT] = "absent",
        [SCX_STATE_DISABLED] = "disabled",
        [SCX_STATE_ENABLING] = "enabling",
        [SCX_STATE_ENABLED] = "enabled",
        [SCX_STATE_DISABLING] = "disabling",
};

const char *preempt_model_to_string(PreemptModel m)
{
        return m >= 0 && m < _PREEMPT_MODEL_MAX ? preempt_table[m] : "unknown";
}

const char *scx_state_to_string(ScxState s)
{
        return s >= 0 && s < _SCX_STATE_MAX ? scx_table[s] : "unknown";
}

static PreemptModel preempt_from_word(const char *w, size_t n)
{
        for (int i = PREEMPT_MODEL_NONE; i < _PREEMPT_MODEL_MAX; i++)
                if (strlen(preempt_table[i]) == n && strncmp(w, preempt_table[i], n) == 0)
                        return i;
        return PREEMPT_MODEL_UNKNOWN;
}

/* ROOT/REL; -ENOMEM only. ROOT NULL or "/" is the real root. */
static int path_under(const char *root, const char *rel, char **ret)
{
        if (!root || streq(root, "/"))
                root = "";
        return asprintf(ret, "%s/%s", root, rel) < 0 ? -ENOMEM : 0;
}

/* The first line of ROOT/REL in *RET (NULL when it cannot be read). -ENOMEM only. */
static int read_line_under(const char *root, const char *rel, char **ret)
{
        _cleanup_free_ char *p = NULL;
        int r;

        *ret = NULL;
        if (path_under(root, rel, &p) < 0)
                return -ENOMEM;
        r = read_one_line_file(p, ret);
        return r == -ENOMEM ? r : 0;
}

/* "none voluntary (full) lazy": the word in parentheses. */
static PreemptModel preempt_from_debugfs(const char *line)
{
        const char *open = strchr(line, '('), *close = open ? strchr(open, ')') : NULL;

        if (!close)
                return PREEMPT_MODEL_UNKNOWN;
        return preempt_from_word(open + 1, (size_t)(close - open - 1));
}

/* The value of KEY ("CONFIG_HZ") in a kernel config, or NULL; in *RET_N its
 * length. */
static const char *config_value(const char *config, const char *key, size_t *ret_n)
{
        size_t k = strlen(key);

        for (const char *l = config; l && *l;) {
                const char *nl = strchr(l, '\n');

                if (strncmp(l, key, k) == 0 && l[k] == '=') {
                        *ret_n = nl ? (size_t)(nl - l - k - 1) : strlen(l + k + 1);
                        return l + k + 1;
                }
                l = nl ? nl + 1 : NULL;
        }
        return NULL;
}

static bool config_yes(const char *config, const char *key)
{
        size_t n;
        const char *v = config_value(config, key, &n);

        return v && n == 1 && *v == 'y';
}

#if HAVE_ZLIB
static int read_gz(const char *path, char **ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t size = 0, alloc = 0;
        gzFile f = gzopen(path, "rbe");

        if (!f)
                return -errno ?: -EIO;
        for (;;) {
                int n;

                if (alloc - size < 65536) {
                        char *nb;

                        if (alloc >= CONFIG_MAX) {
                                gzclose(f);
                                return -EFBIG;
                        }
                        alloc = alloc ? alloc * 2 : 262144;
                        nb = realloc(buf, alloc + 1);
                        if (!nb) {
                                gzclose(f);
                                return -ENOMEM;
                        }
                        buf = nb;
                }
                n = gzread(f, buf + size, 65536);
                if (n < 0) {
                        gzclose(f);
                        return -EIO;
                }
                if (n == 0)
                        break;
                size += (size_t)n;
        }
        gzclose(f);
        if (!buf)
                return -EIO;
        buf[size] = 0;
        *ret = TAKE_PTR(buf);
        return 0;
}
#endif

/* The running kernel's config: ROOT/boot/config-RELEASE, else
 * ROOT/proc/config.gz. *RET NULL when neither can be read. -ENOMEM only. */
static int read_config(const char *root, char **ret)
{
        _cleanup_free_ char *release = NULL, *rel = NULL, *p = NULL;
        int r;

        *ret = NULL;
        r = read_line_under(root, "proc/sys/kernel/osrelease", &release);
        if (r < 0)
                return r;
        if (release && !strchr(release, '/')) {
                if (asprintf(&rel, "boot/config-%s", release) < 0 || path_under(root, rel, &p) < 0)
                        return -ENOMEM;
                r = read_full_file(p, CONFIG_MAX, ret, NULL);
                if (r == -ENOMEM)
                        return r;
                if (r >= 0)
                        return 0;
                *ret = NULL;
        }
#if HAVE_ZLIB
        free(p);
        p = NULL;
        if (path_under(root, "proc/config.gz", &p) < 0)
                return -ENOMEM;
        r = read_gz(p, ret);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                *ret = NULL;
#endif
        return 0;
}

/* preempt=MODEL on the kernel command line (a PREEMPT_DYNAMIC kernel's
 * boot-time choice). */
static PreemptModel preempt_from_cmdline(const char *cmdline)
{
        for (const char *w = cmdline; w && *w;) {
                size_t n;

                w += strspn(w, " \t\n");
                n = strcspn(w, " \t\n");
                if (n > 8 && strncmp(w, "preempt=", 8) == 0)
                        return preempt_from_word(w + 8, n - 8);
                w += n;
        }
        return PREEMPT_MODEL_UNKNOWN;
}

static void preempt_from_config(const char *config, const char *cmdline, SchedInfo *i)
{
        static const struct {
                const char *key;
                PreemptModel m;
        } models[] = {
                { "CONFIG_PREEMPT_RT", PREEMPT_MODEL_RT },
                { "CONFIG_PREEMPT_LAZY", PREEMPT_MODEL_LAZY },
                { "CONFIG_PREEMPT", PREEMPT_MODEL_FULL },
                { "CONFIG_PREEMPT_VOLUNTARY", PREEMPT_MODEL_VOLUNTARY },
                { "CONFIG_PREEMPT_NONE", PREEMPT_MODEL_NONE },
        };

        i->preempt_dynamic = config_yes(config, "CONFIG_PREEMPT_DYNAMIC");
        for (size_t k = 0; k < ELEMENTSOF(models); k++)
                if (config_yes(config, models[k].key)) {
                        i->preempt = models[k].m;
                        i->preempt_source = "the kernel config";
                        break;
                }
        /* A PREEMPT_DYNAMIC kernel boots with the config's model unless
         * preempt= says otherwise (RT is not switchable). */
        if (i->preempt_dynamic && i->preempt != PREEMPT_MODEL_RT) {
                PreemptModel b = preempt_from_cmdline(cmdline);

                if (b != PREEMPT_MODEL_UNKNOWN && b != PREEMPT_MODEL_RT) {
                        i->preempt = b;
                        i->preempt_source = "the boot command line";
                }
        }
}

/* The flags of the version string (init/Makefile: the last of PREEMPT,
 * PREEMPT_DYNAMIC, PREEMPT_RT that the config has). */
static void preempt_from_version(const char *version, SchedInfo *i)
{
        bool rt = false, dyn = false, full = false;

        for (const char *w = version; w && *w;) {
                size_t n;

                w += strspn(w, " ");
                n = strcspn(w, " ");
                rt |= n == 10 && strncmp(w, "PREEMPT_RT", n) == 0;
                dyn |= n == 15 && strncmp(w, "PREEMPT_DYNAMIC", n) == 0;
                full |= n == 7 && strncmp(w, "PREEMPT", n) == 0;
                w += n;
        }
        i->preempt_source = "the version string";
        if (rt) {
                i->preempt = PREEMPT_MODEL_RT;
                i->preempt_dynamic = 0;
        } else if (dyn) {
                i->preempt_dynamic = 1; /* which one runs is not said */
                i->preempt_source = NULL;
        } else if (full) {
                i->preempt_hint = "full or lazy";
                i->preempt_dynamic = 0;
                i->preempt_source = NULL;
        } else {
                i->preempt_hint = "none or voluntary";
                i->preempt_dynamic = 0;
                i->preempt_source = NULL;
        }
}

static int read_preempt_hz(const char *root, SchedInfo *i)
{
        _cleanup_free_ char *dbg = NULL, *config = NULL, *cmdline = NULL, *version = NULL;
        int r;

        r = read_config(root, &config);
        if (r < 0)
                return r;
        if (config) {
                size_t n;
                const char *v = config_value(config, "CONFIG_HZ", &n);
                _cleanup_free_ char *s = v ? strndup(v, n) : NULL;
                unsigned hz;

                if (s && sscanf(s, "%u", &hz) == 1 && hz > 0) {
                        i->hz = hz;
                        i->hz_source = "the kernel config";
                }
        }

        r = read_line_under(root, "sys/kernel/debug/sched/preempt", &dbg);
        if (r < 0)
                return r;
        if (dbg) {
                i->preempt = preempt_from_debugfs(dbg);
                if (i->preempt != PREEMPT_MODEL_UNKNOWN) {
                        i->preempt_source = "debugfs";
                        i->preempt_dynamic = 1;
                        return 0;
                }
        }
        if (config) {
                r = read_line_under(root, "proc/cmdline", &cmdline);
                if (r < 0)
                        return r;
                preempt_from_config(config, cmdline, i);
                if (i->preempt != PREEMPT_MODEL_UNKNOWN)
                        return 0;
        }
        r = read_line_under(root, "proc/sys/kernel/version", &version);
        if (r < 0)
                return r;
        if (version)
                preempt_from_version(version, i);
        return 0;
}

int scx_state_read(const char *root, ScxState *ret_state, char **ret_ops)
{
        _cleanup_free_ char *dir = NULL, *state = NULL, *ops = NULL;
        ScxState s = SCX_STATE_UNKNOWN;
        int r;

        if (path_under(root, "sys/kernel/sched_ext", &dir) < 0)
                return -ENOMEM;
        r = read_line_under(root, "sys/kernel/sched_ext/state", &state);
        if (r < 0)
                return r;
        if (!state)
                s = access(dir, F_OK) < 0 && errno == ENOENT ? SCX_STATE_ABSENT : SCX_STATE_UNKNOWN;
        else
                for (int k = SCX_STATE_DISABLED; k < _SCX_STATE_MAX; k++)
                        if (streq(state, scx_table[k]))
                                s = k;
        if (ret_ops && scx_state_active(s)) {
                r = read_line_under(root, "sys/kernel/sched_ext/root/ops", &ops);
                if (r < 0)
                        return r;
                if (ops && !*ops)
                        ops = mfree(ops);
        }
        *ret_state = s;
        if (ret_ops)
                *ret_ops = TAKE_PTR(ops);
        return 0;
}

int sched_info_read(const char *root, SchedInfo *ret)
{
        SchedInfo i = { .preempt_dynamic = -1, .autogroup = -1 };
        _cleanup_free_ char *ag = NULL;
        int r, v;

        r = read_preempt_hz(root, &i);
        if (r >= 0)
                r = read_line_under(root, "proc/sys/kernel/sched_autogroup_enabled", &ag);
        if (r >= 0)
                r = scx_state_read(root, &i.scx, &i.scx_ops);
        if (r < 0)
                return r;
        if (ag && safe_atoi(ag, &v) >= 0)
                i.autogroup = v != 0;
        *ret = i;
        return 0;
}

void sched_info_done(SchedInfo *i)
{
        if (i)
                i->scx_ops = mfree(i->scx_ops);
}

char *sched_info_preempt_describe(const SchedInfo *i)
{
        const char *model = i->preempt != PREEMPT_MODEL_UNKNOWN ? preempt_model_to_string(i->preempt)
                            : i->preempt_hint                   ? i->preempt_hint
                            : i->preempt_dynamic > 0            ? "dynamic, which one unknown"
                                                                : "unknown";
        const char *dyn = i->preempt_dynamic > 0 && i->preempt != PREEMPT_MODEL_UNKNOWN ? "dynamic" : NULL;
        const char *src = i->preempt_source ? i->preempt_source
                          : i->preempt_hint || i->preempt_dynamic > 0 ? "the version string"
                                                                      : NULL;
        char *s;

        if (!dyn && !src)
                return strdup(model);
        if (asprintf(&s, "%s (%s%s%s%s)", model, strempty(dyn), dyn && src ? "; " : "",
                     src ? "from " : "", strempty(src)) < 0)
                return NULL;
        return s;
}
