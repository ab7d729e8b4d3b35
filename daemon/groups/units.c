/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Units: per-unit configuration ([Unit GLOB] sections) on the cgroup v2 tree.
 * See units.h for the contract.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-bus.h>

#include "daemon/state/ledger-claim.h"
#include "daemon/state/state-file.h"
#include "daemon/groups/group-systemd.h"
#include "daemon/groups/systemd-units.h"
#include "daemon/groups/units.h"
#include "policy/unit-base.h"
#include "lib/cgroup.h"
#include "lib/hashmap.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/sched.h"
#include "lib/sched-effect.h"
#include "lib/unit-name.h"
#include "lib/util.h"

/* Examined cgroups remembered for units_seen(); beyond this, the cache is pruned. */
#define UNITS_SEEN_MAX 16384

/* The state file's kind of a record of CPUWeight= set through systemd (its
 * orig and written are systemd_weight_to_string() values). */
#define KIND_SYSTEMD_WEIGHT _UNIT_KNOB_MAX

typedef enum SystemdRoute {
        ROUTE_UNKNOWN, /* not asked yet */
        ROUTE_FILES,   /* cpu.weight and cpu.idle are written directly */
        ROUTE_SYSTEMD, /* a systemd unit's: they go through its CPUWeight= */
} SystemdRoute;

typedef struct CgroupEntry {
        char *path;           /* "/system.slice/x.service", "/" for the root */
        const char *name;     /* last component of path (points into it), "" for the root */
        dev_t dev;            /* identity of the directory: a unit that restarts */
        ino_t ino;            /* gets a new cgroup under the same path */
        unsigned generation;  /* walk that last saw it */
        bool configured;      /* a [Unit] section matches and was applied */
        Settings wanted;      /* the merged [Unit] settings */
        Settings fallback;    /* what must be applied per task */
        LedgerClaim knob[_UNIT_KNOB_MAX]; /* the knob files latniced wrote (ledger-claim.h) */
        SystemdRoute route;
        LedgerClaim sd;       /* the unit's CPUWeight=, if latniced set it (as
                               * systemd_weight_to_string() values) */
} CgroupEntry;

typedef struct UnitsWatch {
        bool on;              /* systemd_units_watch() took it */
        const Policy *(*get_policy)(void *userdata);
        void *userdata;
        sd_event *event;      /* borrowed */
        sd_event_source *retry; /* a unit's manager did not answer: try again */
        unsigned n_retries;     /* walks of RETRY in a row that asked for another */
} UnitsWatch;

/* A unit whose manager failed (not a pause: systemd-units.c tells its end,
 * units_on_resume()) is tried again that much later, while it fails:
 * nothing else may come to try it again. */
#define UNITS_RETRY_USEC (10ull * 1000ull * 1000ull)
/* Each retry that fails again waits twice as long, up to 2^this times. */
#define UNITS_RETRY_DOUBLINGS 5u

struct UnitState {
        char *root;
        bool dry_run;
        CgroupEntry **entries;
        size_t n_entries, n_alloc;
        Hashmap *index; /* path -> CgroupEntry*, every entry */
        unsigned generation;
        void (*write_hook)(const char *cgroup_path, const char *file, void *userdata);
        void *write_hook_userdata;
        UnitsWatch watch;
        StateFile *state;            /* borrowed; NULL: none */
        bool state_warned;
        bool stopping;          /* units_restore_all(): latniced stops */
        StateCgroupRecord *adopted;  /* a dead latniced's records, until the first walk */
        size_t n_adopted;
        SystemdUnits *systemd;       /* borrowed; NULL: no systemd, or a --cgroup-root tree */
        bool sched_ext;              /* units_set_sched_ext() */
};

/* ---- Small helpers ---------------------------------------------------- */

int units_util_to_percent(unsigned util, char **ret)
{
        unsigned hundredths;

        if (util > 1024)
                return -ERANGE;
        /* Nearest hundredth of a percent; the kernel rounds back to the nearest
         * util, so the round trip is exact. */
        hundredths = (util * 10000u + 512u) / 1024u;
        if (asprintf(ret, "%u.%02u", hundredths / 100, hundredths % 100) < 0)
                return -ENOMEM;
        return 0;
}

static int knob_format(UnitKnob k, const Settings *s, char **ret)
{
        int r;

        switch (k) {
        case UNIT_KNOB_LATENCY_NICE:
                r = asprintf(ret, "%" PRIi32, s->latency_nice);
                break;
        case UNIT_KNOB_WEIGHT:
                r = asprintf(ret, "%" PRIu32, s->cpu_weight);
                break;
        case UNIT_KNOB_IDLE:
                r = asprintf(ret, "%d", s->cpu_idle ? 1 : 0);
                break;
        case UNIT_KNOB_UCLAMP_MIN:
                return units_util_to_percent(s->util_min, ret);
        case UNIT_KNOB_UCLAMP_MAX:
                return units_util_to_percent(s->util_max, ret);
        default:
                return -EINVAL;
        }
        return r < 0 ? -ENOMEM : 0;
}

static char *units_fs_path(const UnitState *u, const char *cgroup_path, const char *file)
{
        char *s;

        if (asprintf(&s, "%s%s%s%s", u->root, streq(cgroup_path, "/") ? "" : cgroup_path,
                     file ? "/" : "", strempty(file)) < 0)
                return NULL;
        return s;
}

/* 0 and the identity if CGROUP_PATH is a directory, -ENOENT if gone. */
static int units_cgroup_stat(const UnitState *u, const char *cgroup_path, dev_t *ret_dev, ino_t *ret_ino)
{
        _cleanup_free_ char *fs = units_fs_path(u, cgroup_path, NULL);
        struct stat st;

        if (!fs)
                return -ENOMEM;
        if (stat(fs, &st) < 0)
                return errno == ENOTDIR ? -ENOENT : -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOENT;
        *ret_dev = st.st_dev;
        *ret_ino = st.st_ino;
        return 0;
}

static bool units_cgroup_gone(const UnitState *u, const char *cgroup_path)
{
        dev_t dev;
        ino_t ino;

        return units_cgroup_stat(u, cgroup_path, &dev, &ino) == -ENOENT;
}

static bool errno_is_cgroup_gone(int r)
{
        return r == -ENOENT || r == -ENODEV || r == -ENOTDIR;
}

/* ---- Entries ---------------------------------------------------------- */

static int entry_systemd_restore(UnitState *u, CgroupEntry *e);

/* Forget what latniced wrote to E (the cgroup is gone, or a new one has its
 * path): nothing to give back there, so its records go too. A unit's
 * CPUWeight= set through systemd is the exception: the unit keeps it across
 * a restart, so it is given back now (and set again if a [Unit] section
 * still wants it for the new cgroup). */
static void entry_forget_knobs(UnitState *u, CgroupEntry *e)
{
        (void) entry_systemd_restore(u, e);
        e->route = ROUTE_UNKNOWN;
        for (UnitKnob k = 0; k < _UNIT_KNOB_MAX; k++)
                ledger_claim_drop(&e->knob[k], u->state);
}

/* Frees E; its state file records stay (units_free(): for the next
 * latniced). */
static CgroupEntry *entry_free(CgroupEntry *e)
{
        if (!e)
                return NULL;
        for (UnitKnob k = 0; k < _UNIT_KNOB_MAX; k++)
                ledger_claim_done(&e->knob[k]);
        ledger_claim_done(&e->sd);
        free(e->path);
        free(e);
        return NULL;
}

static int index_rebuild(UnitState *u)
{
        _cleanup_(hashmap_freep) Hashmap *h = NULL;
        int r;

        r = hashmap_new(&h);
        if (r < 0)
                return r;
        for (size_t i = 0; i < u->n_entries; i++) {
                r = hashmap_put(h, u->entries[i]->path, u->entries[i]);
                if (r < 0)
                        return r;
        }
        hashmap_free(u->index);
        u->index = TAKE_PTR(h);
        return 0;
}

/* Drop entries for which DROP returns true; rebuilds the index. */
static int entries_drop(UnitState *u, bool (*drop)(UnitState *u, CgroupEntry *e))
{
        size_t j = 0;

        for (size_t i = 0; i < u->n_entries; i++) {
                if (drop(u, u->entries[i])) {
                        entry_forget_knobs(u, u->entries[i]);
                        entry_free(u->entries[i]);
                } else
                        u->entries[j++] = u->entries[i];
        }
        u->n_entries = j;
        return index_rebuild(u);
}

static bool entry_holds_knobs(const CgroupEntry *e)
{
        for (UnitKnob k = 0; k < _UNIT_KNOB_MAX; k++)
                if (ledger_claim_held(&e->knob[k]))
                        return true;
        return false;
}

static bool drop_unconfigured_or_gone(UnitState *u, CgroupEntry *e)
{
        if (!e->configured && !entry_holds_knobs(e) && !ledger_claim_held(&e->sd))
                return true;
        return units_cgroup_gone(u, e->path);
}

static bool drop_stale(UnitState *u, CgroupEntry *e)
{
        return e->generation != u->generation;
}

static int entry_add(UnitState *u, const char *path, dev_t dev, ino_t ino, CgroupEntry **ret)
{
        _cleanup_free_ CgroupEntry *e = NULL;
        const char *slash;
        int r;

        if (u->n_entries >= UNITS_SEEN_MAX) {
                r = entries_drop(u, drop_unconfigured_or_gone);
                if (r < 0)
                        return r;
                if (u->n_entries >= UNITS_SEEN_MAX)
                        return -ENOSPC;
        }
        if (u->n_entries == u->n_alloc) {
                size_t n = MAX(u->n_alloc * 2, (size_t) 64);
                CgroupEntry **a = realloc(u->entries, n * sizeof(*a));
                if (!a)
                        return -ENOMEM;
                u->entries = a;
                u->n_alloc = n;
        }
        e = calloc(1, sizeof(*e));
        if (!e)
                return -ENOMEM;
        e->path = strdup(path);
        if (!e->path)
                return -ENOMEM;
        slash = strrchr(e->path, '/');
        e->name = slash ? slash + 1 : e->path;
        e->dev = dev;
        e->ino = ino;
        e->generation = u->generation;
        r = hashmap_put(u->index, e->path, e);
        if (r < 0) {
                free(e->path);
                return r;
        }
        u->entries[u->n_entries++] = e;
        *ret = TAKE_PTR(e);
        return 0;
}

static CgroupEntry *entry_get(const UnitState *u, const char *path)
{
        return hashmap_get(u->index, path);
}

/* ---- Writing one cgroup ----------------------------------------------- */

typedef enum KnobResult {
        KNOB_OK,
        KNOB_MISSING, /* the file does not exist in this cgroup */
        KNOB_GONE,    /* the cgroup itself is gone */
        KNOB_FAILED,  /* logged */
} KnobResult;

/* Write VALUE to the knob file FS of E: the ledger claim's writer. */
typedef struct KnobWrite {
        UnitState *u;
        CgroupEntry *e;
        UnitKnob k;
        const char *fs;
} KnobWrite;

static int knob_write_file(const char *value, void *userdata)
{
        KnobWrite *w = userdata;

        if (w->u->write_hook)
                w->u->write_hook(w->e->path, unit_knobs[w->k].file, w->u->write_hook_userdata);
        return cg_write(w->fs, NULL, value);
}

static int knob_restore_file(const char *value, void *userdata)
{
        KnobWrite *w = userdata;

        return cg_write(w->fs, NULL, value);
}

/* Without a record the write still happens: a warning says (once) that it
 * is not given back after a crash. */
static void knob_unrecorded(UnitState *u, CgroupEntry *e, UnitKnob k, const char *dir, int r)
{
        if (r >= 0 || u->state_warned)
                return;
        log_warning_errno(r, "Unit %s: cannot record %s/%s in the state file %s (%m): "
                             "written anyway, but not given back should latniced be "
                             "killed.",
                          e->name, dir, unit_knobs[k].file, state_file_path(u->state));
        u->state_warned = true;
}

static KnobResult knob_write(UnitState *u, CgroupEntry *e, UnitKnob k, const char *value)
{
        _cleanup_free_ char *fs = NULL, *dir = NULL, *cur = NULL;
        LedgerClaim *c = &e->knob[k];
        StateCgroupRecord target = {
                .owner = STATE_CGROUP_UNITS,
                .kind = k,
                .ino = e->ino,
        };
        int r, unrecorded;

        fs = units_fs_path(u, e->path, unit_knobs[k].file);
        dir = units_fs_path(u, e->path, NULL);
        if (!fs || !dir) {
                log_oom();
                return KNOB_FAILED;
        }
        r = cg_read(fs, NULL, &cur);
        if (r < 0) {
                if (errno_is_cgroup_gone(r))
                        return units_cgroup_gone(u, e->path) ? KNOB_GONE : KNOB_MISSING;
                log_warning_errno(r, "Unit %s: failed to read %s: %m", e->name, fs);
                return KNOB_FAILED;
        }
        if (ledger_claim_held(c) && streq(cur, value) && streq(c->expected, value))
                return KNOB_OK; /* already ours */

        if (u->dry_run) {
                log_info("Unit %s: would write %s to %s (now %s)", e->name, value, fs, cur);
                return KNOB_OK;
        }

        target.path = dir;
        r = ledger_claim_write(c, u->state, &target, cur, value, knob_write_file,
                               &(KnobWrite){ u, e, k, fs }, &unrecorded);
        knob_unrecorded(u, e, k, dir, unrecorded);
        if (r == -ENOMEM) {
                log_oom();
                return KNOB_FAILED;
        }
        if (r < 0) {
                if (errno_is_cgroup_gone(r) && units_cgroup_gone(u, e->path))
                        return KNOB_GONE;
                log_warning_errno(r, "Unit %s: failed to write %s to %s: %m", e->name, value, fs);
                return KNOB_FAILED;
        }
        log_debug("Unit %s: wrote %s to %s (was %s)", e->name, value, fs, cur);
        return KNOB_OK;
}

/* Put back the original value of knob K, unless someone changed it since. */
static int knob_restore(UnitState *u, CgroupEntry *e, UnitKnob k)
{
        _cleanup_free_ char *fs = NULL, *cur = NULL, *orig = NULL;
        LedgerClaim *c = &e->knob[k];
        int r = 0;

        if (!ledger_claim_held(c))
                return 0;
        fs = units_fs_path(u, e->path, unit_knobs[k].file);
        if (!fs)
                return -ENOMEM;
        r = cg_read(fs, NULL, &cur);
        if (r < 0) {
                if (errno_is_cgroup_gone(r)) {
                        log_debug_errno(r, "Unit %s: %s is gone, nothing to restore", e->name, fs);
                        r = 0;
                } else
                        log_warning_errno(r, "Unit %s: failed to read %s: %m", e->name, fs);
                ledger_claim_drop(c, u->state);
                return r;
        }
        if (ledger_claim_changed(c, cur, NULL, NULL))
                log_info("Unit %s: %s was changed to %s by someone else, leaving it", e->name, fs,
                         cur);
        r = ledger_claim_restore(c, u->state, cur, NULL, NULL, knob_restore_file,
                                 &(KnobWrite){ u, e, k, fs }, &orig);
        if (r < 0 && errno_is_cgroup_gone(r)) {
                log_debug_errno(r, "Unit %s: %s is gone, nothing to restore", e->name, fs);
                r = 0;
        } else if (r < 0)
                log_warning_errno(r, "Unit %s: failed to restore %s to %s: %m", e->name, fs,
                                  orig);
        else if (r > 0) {
                log_debug("Unit %s: restored %s to %s", e->name, fs, orig);
                r = 0;
        }
        return r;
}

static void adopted_done(UnitState *u, StateCgroupRecord *rec, bool drop);

/* ---- CPUWeight= and CPUIdle= of systemd's units ------------------------ */

static void units_retry_later(UnitState *u);
static void units_on_resume(void *userdata);

/* 1 if E's cpu.weight and cpu.idle belong to a systemd unit (asked once),
 * 0 if they are written directly, negative if the manager could not say
 * (logged; asked again next time). */
static int entry_systemd_owned(UnitState *u, CgroupEntry *e)
{
        uint64_t w;
        int r;

        if (!u->systemd || streq(e->path, "/"))
                return 0;
        if (e->route == ROUTE_UNKNOWN) {
                uint64_t refused = systemd_units_refusals(u->systemd);

                r = systemd_units_get_weight(u->systemd, e->path, SYSTEMD_UNITS_OWNED, &w);
                if (r < 0 && r != -ENXIO && systemd_units_refusals(u->systemd) != refused) {
                        log_info("Unit %s: its systemd manager is paused; CPUWeight=/CPUIdle= "
                                 "wait for the end of the pause.", e->name);
                        return r;
                }
                if (r < 0 && r != -ENXIO) {
                        units_retry_later(u);
                        return log_warning_errno(r,
                                                 "Unit %s: cannot ask its systemd manager "
                                                 "for CPUWeight= (%m); CPUWeight=/CPUIdle= "
                                                 "wait for the next try.",
                                                 e->name);
                }
                e->route = r == -ENXIO ? ROUTE_FILES : ROUTE_SYSTEMD;
        }
        return e->route == ROUTE_SYSTEMD;
}

/* Give E's unit its CPUWeight= back, unless someone else changed it since.
 * The unit is looked up by name: a stopped or restarted unit keeps the
 * runtime property latniced set. At latniced's stop a give-back the
 * manager did not answer in time keeps its record, the next latniced's to
 * settle (ledger_claim_restore_unknown()). */
static int entry_systemd_restore(UnitState *u, CgroupEntry *e)
{
        GroupSystemdWrite w = {
                .systemd = u->systemd, .unit_path = e->path, .lookup = SYSTEMD_UNITS_BY_NAME};
        _cleanup_free_ char *c = NULL, *o = NULL;
        uint64_t cur;
        int r;

        if (!ledger_claim_held(&e->sd))
                return 0;
        r = systemd_units_get_weight(u->systemd, e->path, SYSTEMD_UNITS_BY_NAME, &cur);
        if (r < 0) {
                if (r == -ENXIO) {
                        log_debug("Unit %s: gone from its systemd manager, nothing to restore",
                                  e->name);
                        r = 0;
                } else
                        log_warning_errno(r, "Unit %s: cannot restore CPUWeight=%s: %m", e->name,
                                          e->sd.orig);
                ledger_claim_drop(&e->sd, u->state);
                return r;
        }
        if (systemd_weight_to_string(cur, &c) < 0) {
                ledger_claim_drop(&e->sd, u->state);
                return log_oom();
        }
        if (ledger_claim_changed(&e->sd, c, NULL, NULL))
                log_info("Unit %s: CPUWeight= was changed by someone else, leaving it", e->name);
        r = ledger_claim_restore_unknown(&e->sd, u->state, c, NULL, NULL, group_systemd_write, &w,
                                         u->stopping ? &w.unknown : NULL, &o);
        if (r < 0)
                log_warning_errno(r, "Unit %s: failed to restore CPUWeight=%s: %m", e->name,
                                  strna(o));
        else if (r > 0 && w.unknown)
                log_warning("Unit %s: restoring CPUWeight=%s: systemd did not answer in time "
                            "(it may still apply it)%s.",
                            e->name, strna(o),
                            r == LEDGER_CLAIM_RESTORE_UNKNOWN
                                    ? "; the record stays for the next latniced to check"
                                    : "");
        else if (r > 0)
                log_debug("Unit %s: restored CPUWeight=%s through systemd", e->name, strna(o));
        return r < 0 ? r : 0;
}

/* Set CPUWeight= of E's unit to WANT over NOW, recorded in the state file
 * first (a unit property record); a failed record is said once. */
static int systemd_claim_write(UnitState *u, CgroupEntry *e, const char *now, const char *want)
{
        _cleanup_free_ char *dir = units_fs_path(u, e->path, NULL);
        StateCgroupRecord target = {
                .target = STATE_TARGET_UNIT_PROPERTY,
                .owner = STATE_CGROUP_UNITS,
                .kind = KIND_SYSTEMD_WEIGHT,
                .path = dir,
                .ino = e->ino,
        };
        GroupSystemdWrite w = {
                .systemd = u->systemd, .unit_path = e->path, .lookup = SYSTEMD_UNITS_OWNED};
        int r, unrecorded;

        if (!dir)
                return log_oom();
        r = ledger_claim_write(&e->sd, u->state, &target, now, want, group_systemd_write, &w,
                               &unrecorded);
        if (r >= 0 && w.unknown) {
                /* Claimed as written; the next walk settles it. */
                log_info("Unit %s: systemd did not answer CPUWeight=%s in time; kept as set, "
                         "checked at the next try.",
                         e->name, want);
                units_retry_later(u);
        }
        if (unrecorded < 0 && !u->state_warned) {
                log_warning_errno(unrecorded, "Unit %s: cannot record CPUWeight= in the state "
                                              "file %s (%m): set anyway, but not given back "
                                              "should latniced be killed.",
                                  e->name, state_file_path(u->state));
                u->state_warned = true;
        }
        return r;
}

/* The CPUWeight= WANT's CPUIdle=/CPUWeight= ask of E's unit (ORIG: the
 * property before latniced): idle wins, as in the kernel; CPUIdle=no alone
 * only takes an idle unit out of idle. */
static uint64_t systemd_target(const Settings *want, uint64_t orig)
{
        if (settings_has(want, SETTING_CPU_IDLE) && want->cpu_idle)
                return SYSTEMD_WEIGHT_IDLE;
        if (settings_has(want, SETTING_CPU_WEIGHT))
                return want->cpu_weight;
        return orig == SYSTEMD_WEIGHT_IDLE ? SYSTEMD_WEIGHT_UNSET : orig;
}

/* CPUWeight= and CPUIdle= of WANT for the systemd unit of E, set as the
 * unit's CPUWeight= (systemd writes cpu.weight and cpu.idle from it, and
 * keeps them across daemon-reload). Adds to IN_FILES what took effect. */
static void entry_systemd_configure(UnitState *u, CgroupEntry *e, const Settings *want,
                                    Settings *in_files)
{
        uint32_t mask = want->mask & (SETTING_BIT(SETTING_CPU_WEIGHT) | SETTING_BIT(SETTING_CPU_IDLE));
        _cleanup_free_ char *t = NULL, *c = NULL;
        uint64_t cur, orig, target, refused = systemd_units_refusals(u->systemd);
        int r;

        if (!mask) {
                (void) entry_systemd_restore(u, e);
                return;
        }
        r = systemd_units_get_weight(u->systemd, e->path, SYSTEMD_UNITS_OWNED, &cur);
        if (r < 0 && systemd_units_refusals(u->systemd) != refused) {
                log_info("Unit %s: its systemd manager is paused; CPUWeight= waits for the end "
                         "of the pause.", e->name);
                return;
        }
        if (r < 0) {
                log_warning_errno(r, "Unit %s: cannot read CPUWeight= from its systemd manager "
                                     "(%m); tried again later.",
                                  e->name);
                units_retry_later(u);
                return;
        }
        if (!ledger_claim_held(&e->sd) || systemd_weight_from_string(e->sd.orig, &orig) < 0)
                orig = cur;
        target = systemd_target(want, orig);
        if (systemd_weight_to_string(target, &t) < 0 || systemd_weight_to_string(cur, &c) < 0) {
                log_oom();
                return;
        }
        if (cur == target && !ledger_claim_changed(&e->sd, t, NULL, NULL)) {
                in_files->mask |= mask;
                return;
        }
        if (u->dry_run) {
                log_info("Unit %s: would set CPUWeight=%s through systemd (now %s)", e->name, t, c);
                in_files->mask |= mask;
                return;
        }
        r = systemd_claim_write(u, e, c, t);
        if (r < 0) {
                /* Not set: the claim put the record back. */
                if (systemd_units_refusals(u->systemd) != refused)
                        log_info("Unit %s: its systemd manager is paused; CPUWeight=%s waits "
                                 "for the end of the pause.", e->name, t);
                else {
                        log_warning_errno(r,
                                          "Unit %s: systemd did not take CPUWeight=%s (%m); "
                                          "tried again later.",
                                          e->name, t);
                        units_retry_later(u);
                }
                return;
        }
        log_debug("Unit %s: set CPUWeight=%s through systemd (was %s)", e->name, t, c);
        in_files->mask |= mask;
}

/* Does REC hold CPUWeight= values (systemd_weight_to_string() values)? */
static bool systemd_record_valid(const StateCgroupRecord *rec)
{
        uint64_t w;

        return systemd_weight_from_string(rec->orig, &w) >= 0 &&
               systemd_weight_from_string(rec->written, &w) >= 0 &&
               (!rec->previous[0] || systemd_weight_from_string(rec->previous, &w) >= 0);
}

/* A dead latniced's record of CPUWeight= for E's unit: E owns it again if
 * the unit still has what that latniced set. */
static void entry_systemd_adopt(UnitState *u, CgroupEntry *e, StateCgroupRecord *rec)
{
        _cleanup_free_ char *c = NULL;
        uint64_t cur;
        int owner, r;

        if (ledger_claim_held(&e->sd) || !u->systemd || !systemd_record_valid(rec)) {
                adopted_done(u, rec, true);
                return;
        }
        r = systemd_units_get_weight(u->systemd, e->path, SYSTEMD_UNITS_BY_NAME, &cur);
        if (r < 0 && r != -ENXIO) {
                /* Not known now (a loaded manager timed out): kept as the
                 * dead latniced left it. Whose it is is settled where it
                 * counts: the next walk and the give-back read the unit
                 * and write only over latniced's value. */
                log_info("Unit %s: cannot ask systemd for CPUWeight= now (%s); the record of "
                         "a previous latniced is kept, checked at the next look.",
                         e->name, strerror(-r));
                r = 0;
                c = strdup(rec->written);
        } else if (r >= 0)
                r = systemd_weight_to_string(cur, &c);
        if (r < 0 || !c) {
                adopted_done(u, rec, true);
                return;
        }
        owner = ledger_claim_adopt(&e->sd, rec, c, NULL, NULL);
        if (owner != LEDGER_OURS) {
                if (owner == -ENOMEM)
                        log_oom();
                else if (owner == LEDGER_THEIRS)
                        log_info("Unit %s: CPUWeight= was changed by someone else while no "
                                 "latniced ran: theirs.",
                                 e->name);
                adopted_done(u, rec, true);
                return;
        }
        log_info("Unit %s: CPUWeight=%s from a previous latniced; its original is %s.", e->name,
                 rec->written, rec->orig);
        adopted_done(u, rec, false);
}

/*
 * Bring entry E in line with policy P: write what P wants, restore what it
 * no longer wants, compute the per-task fallback. Returns -ENOENT if the
 * cgroup turned out to be gone (the caller drops it), 0 otherwise.
 */
static int entry_configure(UnitState *u, const Policy *p, CgroupEntry *e)
{
        Settings want = {}, fallback = {}, in_files = {};
        bool match = false, gone = false;
        int owned = 0;

        if (p && unit_type_from_name(e->name, strlen(e->name)) >= 0)
                match = policy_match_unit(p, e->name, &want);
        want.mask &= SETTINGS_UNIT_MASK;
        if (!match)
                want.mask = 0;
        /* Under a sched_ext scheduler: no cgroup knob it does not read (they
         * are given back below like settings the section dropped), no slice
         * per task, and Nice= within the cap. */
        (void)sched_ext_mask_settings(u->sched_ext, &want);
        if (settings_has(&want, SETTING_CPU_WEIGHT) || settings_has(&want, SETTING_CPU_IDLE) ||
            ledger_claim_held(&e->sd))
                owned = entry_systemd_owned(u, e);
        /* First: systemd realizes the unit's cgroup before it answers, so a
         * cpu controller it enables for CPUWeight= is there for the files
         * below (cpu.latency.nice, cpu.uclamp.*). */
        if (owned > 0)
                entry_systemd_configure(u, e, &want, &in_files);

        for (UnitKnob k = 0; k < _UNIT_KNOB_MAX && !gone; k++) {
                _cleanup_free_ char *value = NULL;

                /* A systemd unit's: below, through systemd (not at all if its
                 * manager did not answer). */
                if (owned != 0 && (k == UNIT_KNOB_WEIGHT || k == UNIT_KNOB_IDLE))
                        continue;
                if (!settings_has(&want, unit_knobs[k].id)) {
                        (void) knob_restore(u, e, k);
                        continue;
                }
                if (knob_format(k, &want, &value) < 0) {
                        log_oom();
                        continue;
                }
                switch (knob_write(u, e, k, value)) {
                case KNOB_OK:
                        in_files.mask |= SETTING_BIT(unit_knobs[k].id);
                        break;
                case KNOB_MISSING:
                        unit_knob_fallback(k, &want, &fallback);
                        break;
                case KNOB_GONE:
                        gone = true;
                        break;
                case KNOB_FAILED:
                        break;
                }
        }
        if (gone) {
                log_debug("Unit %s: cgroup %s vanished while being configured, dropping it",
                          e->name, e->path);
                entry_forget_knobs(u, e);
                e->configured = false;
                e->fallback = (Settings) {};
                return -ENOENT;
        }
        if (settings_has(&want, SETTING_SLICE)) {
                fallback.slice_ns = want.slice_ns;
                fallback.mask |= SETTING_BIT(SETTING_SLICE);
        }

        if (match && (!e->configured || memcmp(&e->wanted, &want, sizeof(want)) != 0 ||
                      memcmp(&e->fallback, &fallback, sizeof(fallback)) != 0)) {
                _cleanup_free_ char *c = NULL, *f = settings_to_string(&fallback);

                uint32_t written = in_files.mask;

                in_files = want; /* the values of what went to files */
                in_files.mask = written;
                c = settings_to_string(&in_files);
                log_info("Unit %s (%s): cgroup files: %s; per task: %s%s", e->name, e->path,
                         in_files.mask ? strna(c) : "none", fallback.mask ? strna(f) : "none",
                         u->dry_run ? " (dry run)" : "");
        }
        e->configured = match;
        e->wanted = want;
        e->fallback = fallback;
        return 0;
}

/* ---- Adoption of a dead latniced's records ------------------------------ */

/* Record REC is settled (kept by an entry, or dropped): out of the list. */
static void adopted_done(UnitState *u, StateCgroupRecord *rec, bool drop)
{
        uint32_t slot1 = rec->slot + 1;

        if (drop)
                state_file_cgroup_release(u->state, &slot1);
        rec->path = mfree(rec->path);
}

/* Knob K of E from record REC: if the file still holds what the dead
 * latniced wrote, the original is the record's (E owns it again, and
 * entry_configure() keeps or restores it); anything else is the original
 * already, or someone else's. */
static void knob_adopt(UnitState *u, CgroupEntry *e, UnitKnob k, StateCgroupRecord *rec)
{
        _cleanup_free_ char *fs = units_fs_path(u, e->path, unit_knobs[k].file), *cur = NULL;
        int owner;

        if (!fs || cg_read(fs, NULL, &cur) < 0 || ledger_claim_held(&e->knob[k])) {
                adopted_done(u, rec, true);
                return;
        }
        owner = ledger_claim_adopt(&e->knob[k], rec, cur, NULL, NULL);
        if (owner != LEDGER_OURS) {
                if (owner == -ENOMEM)
                        log_oom();
                else if (owner == LEDGER_THEIRS)
                        log_info("Unit %s: %s was changed to %s by someone else while no "
                                 "latniced ran: theirs.",
                                 e->name, fs, cur);
                adopted_done(u, rec, true);
                return;
        }
        log_info("Unit %s: %s holds %s from a previous latniced; its original is %s.", e->name,
                 fs, cur, e->knob[k].orig);
        adopted_done(u, rec, false);
}

/* The records of E's cgroup (same directory, same inode: not a new cgroup
 * at the path of an old one). */
static void entry_adopt(UnitState *u, CgroupEntry *e)
{
        _cleanup_free_ char *dir = NULL;

        if (u->n_adopted == 0)
                return;
        dir = units_fs_path(u, e->path, NULL);
        if (!dir)
                return;
        for (size_t i = 0; i < u->n_adopted; i++) {
                StateCgroupRecord *rec = &u->adopted[i];

                if (!rec->path || !streq(rec->path, dir))
                        continue;
                /* A unit keeps CPUWeight= across restarts: any cgroup at its path. */
                if (rec->kind == KIND_SYSTEMD_WEIGHT)
                        entry_systemd_adopt(u, e, rec);
                else if (rec->ino != (uint64_t)e->ino || rec->kind >= _UNIT_KNOB_MAX)
                        adopted_done(u, rec, true);
                else
                        knob_adopt(u, e, (UnitKnob)rec->kind, rec);
        }
}

/* A dead latniced's record of CPUWeight= of a unit whose cgroup is gone
 * (stopped): the unit keeps the property, so it gets the original back if it
 * still has what that latniced set. */
static void systemd_record_restore(UnitState *u, const StateCgroupRecord *rec)
{
        size_t n = strlen(u->root);
        const char *path = rec->path + n;
        _cleanup_free_ char *c = NULL;
        LedgerClaim claim = {};
        uint64_t cur;
        int r;

        if (!u->systemd || strncmp(rec->path, u->root, n) != 0 || path[0] != '/' ||
            !systemd_record_valid(rec) ||
            systemd_units_get_weight(u->systemd, path, SYSTEMD_UNITS_BY_NAME, &cur) < 0 ||
            systemd_weight_to_string(cur, &c) < 0 ||
            ledger_claim_adopt(&claim, rec, c, NULL, NULL) != LEDGER_OURS)
                return;
        /* The record is the caller's to drop: this claim has none of its own. */
        claim.slot1 = 0;
        r = ledger_claim_restore(&claim, NULL, c, NULL, NULL, group_systemd_write,
                                 &(GroupSystemdWrite){.systemd = u->systemd,
                                                      .unit_path = path,
                                                      .lookup = SYSTEMD_UNITS_BY_NAME},
                                 NULL);
        if (r < 0)
                log_warning_errno(r, "Unit of %s: failed to restore CPUWeight=%s left by a "
                                     "previous latniced: %m",
                                  path, rec->orig);
        else
                log_info("Unit of %s: restored CPUWeight=%s left by a previous latniced.", path,
                         rec->orig);
}

/* After the first walk: records of cgroups it did not find are of cgroups
 * that are gone (DROP), or kept for the next latniced (the walk failed). */
static void adopted_finish(UnitState *u, bool drop)
{
        size_t n = 0;

        for (size_t i = 0; i < u->n_adopted; i++)
                if (u->adopted[i].path) {
                        n++;
                        if (drop && u->adopted[i].kind == KIND_SYSTEMD_WEIGHT)
                                systemd_record_restore(u, &u->adopted[i]);
                        adopted_done(u, &u->adopted[i], drop);
                }
        if (n > 0 && drop)
                log_info("State file: %zu [Unit] record(s) of cgroups that are gone, dropped.", n);
        state_cgroup_records_free(u->adopted, u->n_adopted);
        u->adopted = NULL;
        u->n_adopted = 0;
}

int units_attach_state(UnitState *u, StateFile *f)
{
        adopted_finish(u, false);
        u->state = f;
        return state_file_cgroup_take(f, STATE_CGROUP_UNITS, &u->adopted, &u->n_adopted);
}

/* ---- Public API -------------------------------------------------------- */

int units_new(const char *cgroup_root, bool dry_run, SystemdUnits *systemd, UnitState **ret)
{
        _cleanup_free_ UnitState *u = NULL;
        _cleanup_free_ char *root = NULL;
        int r;

        if (cgroup_root) {
                size_t n = strlen(cgroup_root);
                while (n > 1 && cgroup_root[n - 1] == '/')
                        n--;
                if (n == 0)
                        return -EINVAL;
                root = strndup(cgroup_root, n);
                if (!root)
                        return -ENOMEM;
                if (streq(root, "/"))
                        root[0] = 0; /* paths are appended as "/x/y" */
        } else {
                r = cg_find_mount(&root);
                if (r == -ENOENT)
                        return -ENOMEDIUM;
                if (r < 0)
                        return r;
        }

        u = calloc(1, sizeof(*u));
        if (!u)
                return -ENOMEM;
        r = hashmap_new(&u->index);
        if (r < 0)
                return r;
        /* Only on the real hierarchy: a --cgroup-root tree is nobody's. */
        u->systemd = cgroup_root ? NULL : systemd;
        u->root = TAKE_PTR(root);
        u->dry_run = dry_run;
        u->generation = 1;
        *ret = TAKE_PTR(u);
        return 0;
}

static void watch_done(UnitState *u)
{
        u->watch.retry = sd_event_source_disable_unref(u->watch.retry);
        if (u->watch.on)
                systemd_units_unwatch(u->systemd);
        u->watch.on = false;
}

UnitState *units_free(UnitState *u)
{
        if (!u)
                return NULL;
        watch_done(u);
        systemd_units_on_resume_remove(u->systemd, units_on_resume, u);
        state_cgroup_records_free(u->adopted, u->n_adopted);
        for (size_t i = 0; i < u->n_entries; i++)
                entry_free(u->entries[i]);
        free(u->entries);
        hashmap_free(u->index);
        free(u->root);
        free(u);
        return NULL;
}

const char *units_cgroup_root(const UnitState *u)
{
        return u->root[0] ? u->root : "/";
}

void units_set_write_hook(UnitState *u,
                          void (*hook)(const char *cgroup_path, const char *file, void *userdata),
                          void *userdata)
{
        u->write_hook = hook;
        u->write_hook_userdata = userdata;
}

/* Look at one directory during a walk (or on its own): find or create its
 * entry (a new one if the directory was recreated) and configure it. */
static int visit(UnitState *u, const Policy *p, const char *path, dev_t dev, ino_t ino)
{
        CgroupEntry *e = entry_get(u, path);
        int r;

        if (e && (e->dev != dev || e->ino != ino)) {
                /* Same path, new cgroup (the unit restarted): what we wrote and
                 * what it replaced belong to the old one. */
                entry_forget_knobs(u, e);
                e->configured = false;
                e->dev = dev;
                e->ino = ino;
        }
        if (!e) {
                r = entry_add(u, path, dev, ino, &e);
                if (r == -ENOSPC) {
                        log_debug("Too many cgroups, not configuring %s", path);
                        return 0;
                }
                if (r < 0)
                        return r;
        }
        e->generation = u->generation;
        if (!e->configured)
                entry_adopt(u, e);
        (void) entry_configure(u, p, e); /* a vanished cgroup is dropped at the next walk */
        return 0;
}

typedef struct WalkContext {
        UnitState *u;
        const Policy *p;
        const char *only_name; /* visit only directories of this name (units_apply_unit) */
        unsigned n_visited;
} WalkContext;

static int walk_one(const char *fs, const char *path, void *userdata)
{
        WalkContext *c = userdata;
        const char *name;
        struct stat st;
        int r;

        if (stat(fs, &st) < 0)
                return errno_is_cgroup_gone(-errno) ? CG_WALK_SKIP : -errno;
        name = streq(path, "/") ? "" : strrchr(path, '/') + 1;
        if (!c->only_name || streq(name, c->only_name)) {
                CgroupEntry *e = entry_get(c->u, path);
                /* units_apply_unit: a configured cgroup of the same
                 * incarnation is left as it is. */
                if (!c->only_name || !e || !e->configured || e->dev != st.st_dev ||
                    e->ino != st.st_ino) {
                        r = visit(c->u, c->p, path, st.st_dev, st.st_ino);
                        if (r < 0)
                                return r;
                        c->n_visited++;
                }
        }
        return 0;
}

static int walk(WalkContext *c)
{
        return cg_walk(c->u->root[0] ? c->u->root : "/", walk_one, c);
}

void units_set_sched_ext(UnitState *u, bool sched_ext)
{
        if (u)
                u->sched_ext = sched_ext;
}

unsigned units_n_configured(const UnitState *u)
{
        unsigned n = 0;

        for (size_t i = 0; i < u->n_entries; i++)
                n += u->entries[i]->configured;
        return n;
}

int units_apply_all(UnitState *u, const Policy *p, unsigned *ret_n_units)
{
        WalkContext c = { .u = u, .p = p };
        int r;

        u->generation++;
        r = walk(&c);
        if (u->adopted)
                adopted_finish(u, r >= 0);
        if (r < 0)
                return r;
        /* Cgroups not seen in this walk are gone: nothing to restore there. */
        r = entries_drop(u, drop_stale);
        if (r < 0)
                return r;
        if (ret_n_units)
                *ret_n_units = units_n_configured(u);
        return 0;
}

int units_apply_cgroup(UnitState *u, const Policy *p, const char *cgroup_path)
{
        _cleanup_free_ char *path = NULL;
        int r;

        r = cg_path_normalize(cgroup_path, &path);
        if (r < 0)
                return r;

        /* Every prefix, outermost first: "/a.slice", "/a.slice/b.service". */
        for (char *slash = path + 1;; slash++) {
                CgroupEntry *e;
                dev_t dev;
                ino_t ino;
                char saved;

                slash = strchrnul(slash, '/');
                saved = *slash;
                *slash = 0;

                r = units_cgroup_stat(u, path, &dev, &ino);
                if (r == -ENOENT) {
                        log_debug("Cgroup %s vanished before it could be configured", path);
                        return 0;
                }
                if (r < 0)
                        return r;
                e = entry_get(u, path);
                if (!e || e->dev != dev || e->ino != ino) {
                        r = visit(u, p, path, dev, ino);
                        if (r < 0)
                                return r;
                }

                *slash = saved;
                if (!saved)
                        break;
        }
        return 0;
}

int units_apply_unit(UnitState *u, const Policy *p, const char *unit)
{
        Settings s = {};
        WalkContext c = { .u = u, .p = p, .only_name = unit };

        if (!p || !unit || unit_type_from_name(unit, strlen(unit)) < 0 || strchr(unit, '/'))
                return 0;
        if (!policy_match_unit(p, unit, &s) || !(s.mask & SETTINGS_UNIT_MASK))
                return 0;
        return walk(&c);
}

bool units_seen(UnitState *u, const char *cgroup_path)
{
        _cleanup_free_ char *path = NULL;
        CgroupEntry *e;
        dev_t dev;
        ino_t ino;

        if (cg_path_normalize(cgroup_path, &path) < 0)
                return true; /* nothing we could configure */
        e = entry_get(u, path);
        if (!e)
                return false;
        if (units_cgroup_stat(u, path, &dev, &ino) < 0)
                return true; /* gone: nothing to do */
        return e->dev == dev && e->ino == ino;
}

bool units_task_fallback_cgroup(UnitState *u, const Policy *p, const char *cgroup_path,
                                Settings *ret)
{
        _cleanup_free_ char *path = NULL;
        Settings merged = {};

        if (cg_path_normalize(cgroup_path, &path) < 0)
                return false;
        if (!units_seen(u, path))
                (void) units_apply_cgroup(u, p, path);

        for (char *slash = path + 1;; slash++) {
                CgroupEntry *e;
                char saved;

                slash = strchrnul(slash, '/');
                saved = *slash;
                *slash = 0;
                e = entry_get(u, path);
                if (e && e->configured) {
                        /* What an inner unit sets itself (in a file or per
                         * task) is not inherited from the slices around it. */
                        merged.mask &= ~unit_task_mask(&e->wanted);
                        settings_merge(&merged, &e->fallback);
                }
                *slash = saved;
                if (!saved)
                        break;
        }
        if (!merged.mask)
                return false;
        *ret = merged;
        return true;
}

bool units_task_fallback(UnitState *u, const Policy *p, const char *unit, Settings *ret)
{
        bool tried = false;

        if (!unit)
                return false;
        for (;;) {
                for (size_t i = 0; i < u->n_entries; i++) {
                        CgroupEntry *e = u->entries[i];
                        if (e->configured && streq(e->name, unit)) {
                                if (!e->fallback.mask)
                                        return false;
                                *ret = e->fallback;
                                return true;
                        }
                }
                if (tried || units_apply_unit(u, p, unit) < 0)
                        return false;
                tried = true;
        }
}

int units_restore_all(UnitState *u)
{
        int ret = 0, r;

        systemd_units_stopping(u->systemd);
        u->stopping = true;
        for (size_t i = 0; i < u->n_entries; i++) {
                CgroupEntry *e = u->entries[i];
                for (UnitKnob k = 0; k < _UNIT_KNOB_MAX; k++) {
                        r = knob_restore(u, e, k);
                        if (r < 0 && ret == 0)
                                ret = r;
                }
                r = entry_systemd_restore(u, e);
                if (r < 0 && ret == 0)
                        ret = r;
                e->configured = false;
                e->fallback = (Settings) {};
        }
        return ret;
}

/* ---- systemd signals ----------------------------------------------------- */

/* A unit's job ended, or a unit was loaded: usually the unit has no
 * cgroup yet when it is new (its job's end comes later); a transient scope
 * may already have one. */
static void on_unit_event(const char *unit, void *userdata)
{
        UnitState *u = userdata;
        int r;

        r = units_apply_unit(u, u->watch.get_policy(u->watch.userdata), unit);
        if (r < 0)
                log_warning_errno(r, "Failed to configure unit %s: %m", unit);
}

/* A pause of a user's manager ended (systemd_units_on_resume()): what it
 * put off is in the next walk. */
static void units_on_resume(void *userdata)
{
        UnitState *u = userdata;

        (void) units_apply_all(u, u->watch.get_policy(u->watch.userdata), NULL);
}

static int on_units_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
        UnitState *u = userdata;

        (void) sd_event_source_set_enabled(s, SD_EVENT_OFF);
        u->watch.n_retries++;
        (void) units_apply_all(u, u->watch.get_policy(u->watch.userdata), NULL);
        if (sd_event_source_get_enabled(s, NULL) <= 0)
                u->watch.n_retries = 0; /* nothing left to try again */
        return 0;
}

/* Walk every unit again in UNITS_RETRY_USEC, twice that after a retry that
 * asked for another, and so on up to UNITS_RETRY_DOUBLINGS times (once,
 * however many ask). */
static void units_retry_later(UnitState *u)
{
        uint64_t when;
        int r;

        if (!u->watch.event ||
            (u->watch.retry && sd_event_source_get_enabled(u->watch.retry, NULL) > 0))
                return;
        r = sd_event_now(u->watch.event, CLOCK_MONOTONIC, &when);
        if (r < 0)
                return;
        when += UNITS_RETRY_USEC << MIN(u->watch.n_retries, UNITS_RETRY_DOUBLINGS);
        if (!u->watch.retry) {
                r = sd_event_add_time(u->watch.event, &u->watch.retry, CLOCK_MONOTONIC, when, 0,
                                      on_units_retry, u);
                if (r >= 0)
                        (void) sd_event_source_set_description(u->watch.retry, "units-retry");
        } else {
                r = sd_event_source_set_time(u->watch.retry, when);
                if (r >= 0)
                        r = sd_event_source_set_enabled(u->watch.retry, SD_EVENT_ONESHOT);
        }
        if (r < 0)
                log_warning_errno(r, "Cannot arm the retry of units (%m): they wait for an event.");
}

int units_watch_systemd(UnitState *u, sd_event *event,
                        const Policy *(*get_policy)(void *userdata), void *userdata)
{
        static const SystemdUnitsWatch w = { .job_done = on_unit_event,
                                             .unit_new = on_unit_event };
        int r;

        if (!get_policy)
                return -EINVAL;
        watch_done(u);
        if (!u->systemd)
                return -ENOMEDIUM;
        u->watch = (UnitsWatch) { .get_policy = get_policy, .userdata = userdata, .event = event };
        r = systemd_units_watch(u->systemd, event, &w, u);
        if (r < 0) {
                u->watch = (UnitsWatch) {};
                return r;
        }
        u->watch.on = true;
        systemd_units_on_resume_remove(u->systemd, units_on_resume, u);
        r = systemd_units_on_resume(u->systemd, event, units_on_resume, u);
        if (r < 0)
                log_warning_errno(r, "Cannot follow the pauses of systemd's user managers (%m): "
                                     "units they put off wait for the next walk.");
        return 0;
}
