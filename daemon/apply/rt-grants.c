/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Owns the bounds of the real-time grants: each granted process's
 * RLIMIT_RTTIME claim and each user's count (rt-grants.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "daemon/apply/rt-grants.h"
#include "daemon/state/ledger-claim.h"
#include "daemon/watch/pidmap.h"
#include "lib/invariant.h"
#include "lib/log.h"
#include "lib/macro.h"
#include "lib/proc.h"
#include "lib/rt-group.h"
#include "lib/sched-group.h"
#include "lib/util.h"

/* A user of processes with entries: its count is the sum of their
 * processes' counts in the task table, kept as those change (the table's
 * grant watch) and as entries come, go and change user. */
typedef struct RtUser {
        uid_t uid;
        size_t n_procs;   /* entries of its processes: it goes with the last */
        size_t n_granted; /* their threads that hold a grant */
} RtUser;

typedef struct RtProcess {
        pid_t pid;
        uint64_t starttime;
        RtUser *user;
        LedgerClaim limit; /* its RLIMIT_RTTIME as "SOFT HARD" (usec or "inf") */
} RtProcess;

struct RtGrants {
        TaskTable *tasks;
        const KernelOps *k;
        const char *proc_root;
        PidMap procs;          /* pid -> RtProcess */
        PidMap users;          /* user_key(uid) -> RtUser */
        unsigned max_per_user;
        bool bound_hard;       /* the hard limit too: latniced can raise it back */
        uid_t *said;           /* users told they are at the limit (until below it) */
        size_t n_said;
        /* Real-time group scheduling: where the cpu controller is (read on
         * first use), the groups told they refuse real time, and whether
         * a refusal of the kernel's own was told. */
        SchedGroupRoots roots;
        bool roots_read;
        char *groups_said[RT_GROUPS_SAID_MAX];
        size_t n_groups_said;
        bool refusal_said;
};

/* Can latniced raise a hard limit (CAP_SYS_RESOURCE in its effective set)? */
static bool can_raise_hard_limits(void)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
        struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

        if (syscall(SYS_capget, &h, d) < 0)
                return false;
        return d[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective & CAP_TO_MASK(CAP_SYS_RESOURCE);
}

/* PidMap keys are > 0: uid + 1. The uids from INT32_MAX - 1 up (and
 * (uid_t)-1, unknown) share the last key, so one count: stricter, never
 * looser. */
static pid_t user_key(uid_t uid)
{
        return uid < (uid_t)INT32_MAX - 1 ? (pid_t)uid + 1 : INT32_MAX;
}

/* grant watch (tasks.h): a thread of PID was counted in or out. */
static void on_grant_counted(void *userdata, pid_t pid, int delta)
{
        RtGrants *g = userdata;
        RtProcess *e = pidmap_get(&g->procs, pid);

        if (!e)
                return; /* counted for its user when its entry comes */
        ln_assert(delta > 0 || e->user->n_granted > 0);
        e->user->n_granted += delta;
}

int rt_grants_new(TaskTable *tasks, const KernelOps *k, const char *proc_root, RtGrants **ret)
{
        RtGrants *g = calloc(1, sizeof(*g));

        if (!g)
                return -ENOMEM;
        g->bound_hard = can_raise_hard_limits();
        if (!g->bound_hard)
                log_warning("No CAP_SYS_RESOURCE: a process granted real time gets only a soft "
                            "RLIMIT_RTTIME of %u ms (a hard one could not be given back).",
                            RT_GRANT_RTTIME_USEC / 1000);
        g->tasks = tasks;
        g->k = kernel_ops(k);
        g->proc_root = proc_root;
        g->max_per_user = RT_GRANT_THREADS_PER_USER_DEFAULT;
        task_table_set_grant_watch(tasks, on_grant_counted, g);
        *ret = g;
        return 0;
}

static void process_free(RtProcess *e)
{
        ledger_claim_done(&e->limit);
        free(e);
}

RtGrants *rt_grants_free(RtGrants *g)
{
        size_t state = 0;
        void *v;

        if (!g)
                return NULL;
        task_table_set_grant_watch(g->tasks, NULL, NULL);
        while (pidmap_iterate(&g->procs, &state, NULL, &v))
                process_free(v);
        state = 0;
        while (pidmap_iterate(&g->users, &state, NULL, &v))
                free(v);
        pidmap_done(&g->procs);
        pidmap_done(&g->users);
        free(g->said);
        for (size_t i = 0; i < g->n_groups_said; i++)
                free(g->groups_said[i]);
        sched_group_roots_done(&g->roots);
        free(g);
        return NULL;
}

void rt_grants_set_max_per_user(RtGrants *g, unsigned max)
{
        g->max_per_user = max;
}

unsigned rt_grants_max_per_user(const RtGrants *g)
{
        return g->max_per_user;
}

void rt_grants_set_bounds_hard(RtGrants *g, bool b)
{
        g->bound_hard = b;
}

bool rt_grants_bounds_hard(const RtGrants *g)
{
        return g->bound_hard;
}

size_t rt_grants_n_processes(const RtGrants *g)
{
        return pidmap_size(&g->procs);
}

bool rt_grants_process_user(const RtGrants *g, pid_t pid, uid_t *ret)
{
        const RtProcess *e = pidmap_get(&g->procs, pid);

        if (!e)
                return false;
        *ret = e->user->uid;
        return true;
}

unsigned rt_grants_user_count(const RtGrants *g, uid_t uid)
{
        const RtUser *u = pidmap_get(&g->users, user_key(uid));

        return u ? (unsigned)MIN(u->n_granted, (size_t)UINT_MAX) : 0;
}

/* Move E to user UID (a new E has none yet), its grants counted there.
 * -ENOMEM leaves it where it was. */
static int process_set_user(RtGrants *g, RtProcess *e, uid_t uid)
{
        RtUser *u = pidmap_get(&g->users, user_key(uid));
        size_t n = task_table_n_granted(g->tasks, e->pid);
        int r;

        if (u && u == e->user)
                return 0;
        if (!u) {
                u = calloc(1, sizeof(*u));
                if (!u)
                        return -ENOMEM;
                u->uid = uid;
                r = pidmap_put(&g->users, user_key(uid), u);
                if (r < 0) {
                        free(u);
                        return r;
                }
        }
        if (e->user) {
                ln_assert(e->user->n_granted >= n && e->user->n_procs > 0);
                e->user->n_granted -= n;
                if (--e->user->n_procs == 0)
                        free(pidmap_remove(&g->users, user_key(e->user->uid)));
        }
        u->n_procs++;
        u->n_granted += n;
        e->user = u;
        return 0;
}

/* Is UID among the users told? Its index, or -1. */
static ssize_t said_find(const RtGrants *g, uid_t uid)
{
        for (size_t i = 0; i < g->n_said; i++)
                if (g->said[i] == uid)
                        return (ssize_t)i;
        return -1;
}

bool rt_grants_user_may(RtGrants *g, uid_t uid, pid_t pid, const char *comm)
{
        unsigned n = rt_grants_user_count(g, uid);
        ssize_t i = said_find(g, uid);

        if (n < g->max_per_user) {
                if (i >= 0)
                        g->said[i] = g->said[--g->n_said];
                return true;
        }
        if (i < 0) {
                uid_t *said = reallocarray(g->said, g->n_said + 1, sizeof(uid_t));

                /* Out of memory: said again next time. */
                if (said) {
                        g->said = said;
                        g->said[g->n_said++] = uid;
                }
                log_info("%d (%s): real time withheld: user %u holds %u real-time grant(s), "
                         "MaxRealtimeThreadsPerUser=%u (said once until fewer).",
                         (int)pid, strna(comm), (unsigned)uid, n, g->max_per_user);
        }
        return false;
}

/* ---- the kernel's real-time group scheduling ------------------------ */

int rt_grants_group_refuses(RtGrants *g, pid_t pid, pid_t tid, char **ret_group)
{
        RtGroup rg;
        int r;

        if (ret_group)
                *ret_group = NULL;
        if (!g->roots_read) {
                r = sched_group_roots_find(&g->roots);
                if (r == -ENOMEM)
                        return r;
                g->roots_read = true; /* unreadable: no group is known to refuse */
        }
        r = rt_group_of(&g->roots, g->proc_root, pid, tid, &rg);
        if (r == -ENOMEM)
                return r;
        if (r <= 0)
                return 0; /* not bounded there, or cannot be told: the write finds out */
        r = rg.runtime_us == 0;
        if (r && ret_group)
                *ret_group = TAKE_PTR(rg.name);
        rt_group_done(&rg);
        return r;
}

/* Was GROUP told? Else it is kept as told (out of memory: told again). */
static bool group_said(RtGrants *g, const char *group)
{
        char *copy;

        for (size_t i = 0; i < g->n_groups_said; i++)
                if (streq(g->groups_said[i], group))
                        return true;
        copy = strdup(group);
        if (copy)
                g->groups_said[g->n_groups_said++] = copy;
        return false;
}

int rt_grants_group_may(RtGrants *g, pid_t pid, pid_t tid, const char *comm)
{
        _cleanup_free_ char *group = NULL;
        int r;

        r = rt_grants_group_refuses(g, pid, tid, &group);
        if (r <= 0)
                return r < 0 ? r : 1;
        if (g->n_groups_said >= RT_GROUPS_SAID_MAX || group_said(g, group))
                return 0;
        log_notice("%d/%d (%s): real time withheld: the kernel refuses it in %s, whose "
                   "cpu.rt_runtime_us is 0 (real-time group scheduling gives a new cgroup no "
                   "real-time runtime; give the group some to allow grants there). Said once "
                   "per group%s; the rule's other settings apply.",
                   (int)pid, (int)tid, strna(comm), group,
                   g->n_groups_said == RT_GROUPS_SAID_MAX ? ", and no more groups are said" : "");
        return 0;
}

void rt_grants_refused(RtGrants *g, pid_t pid, pid_t tid, const char *comm)
{
        if (g->refusal_said)
                return;
        g->refusal_said = true;
        log_notice("%d/%d (%s): the kernel refused the real-time grant (Operation not "
                   "permitted: a cpu cgroup without real-time runtime, a security module?). "
                   "Said once; the rule's other settings apply.",
                   (int)pid, (int)tid, strna(comm));
}

/* ---- the limit's values -------------------------------------------- */

static void value_part(rlim_t v, char *buf, size_t n)
{
        if (v == RLIM_INFINITY)
                snprintf(buf, n, "inf");
        else
                snprintf(buf, n, "%" PRIu64, (uint64_t)v);
}

static void limit_format(const struct rlimit *l, char ret[static 48])
{
        char soft[24], hard[24];

        value_part(l->rlim_cur, soft, sizeof(soft));
        value_part(l->rlim_max, hard, sizeof(hard));
        snprintf(ret, 48, "%s %s", soft, hard);
}

static int part_parse(const char *s, rlim_t *ret)
{
        uint64_t v;
        int r;

        if (streq(s, "inf")) {
                *ret = RLIM_INFINITY;
                return 0;
        }
        r = safe_atou64(s, &v);
        if (r < 0)
                return r;
        *ret = (rlim_t)v;
        return 0;
}

static int limit_parse(const char *s, struct rlimit *ret)
{
        char soft[24], hard[24];
        int r;

        if (sscanf(s, "%23s %23s", soft, hard) != 2)
                return -EINVAL;
        r = part_parse(soft, &ret->rlim_cur);
        if (r >= 0)
                r = part_parse(hard, &ret->rlim_max);
        return r;
}

typedef struct LimitTo {
        const KernelOps *k;
        pid_t pid;
} LimitTo;

/* ledger_claim_write_t: set the process's RLIMIT_RTTIME to VALUE. */
static int limit_write(const char *value, void *userdata)
{
        const LimitTo *to = userdata;
        struct rlimit l;
        int r;

        r = limit_parse(value, &l);
        if (r < 0)
                return r;
        return to->k->prlimit(to->pid, RLIMIT_RTTIME, &l, NULL);
}

static StateCgroupRecord limit_target(const RtGrants *g, const RtProcess *e, char *path,
                                      size_t n)
{
        snprintf(path, n, "%s/%d", g->proc_root ?: "/proc", (int)e->pid);
        return (StateCgroupRecord){
                .target = STATE_TARGET_PROCESS_LIMIT,
                .owner = STATE_CGROUP_RT_GRANTS,
                .kind = RLIMIT_RTTIME,
                .path = path,
                .pid = e->pid,
                .starttime = e->starttime,
        };
}

/* ---- holding and giving back ------------------------------------------ */

/* E goes: its grants leave its user's count. */
static void process_remove(RtGrants *g, RtProcess *e)
{
        RtUser *u = e->user;

        (void)pidmap_remove(&g->procs, e->pid);
        if (u) {
                size_t n = task_table_n_granted(g->tasks, e->pid);

                ln_assert(u->n_granted >= n && u->n_procs > 0);
                u->n_granted -= n;
                if (--u->n_procs == 0)
                        free(pidmap_remove(&g->users, user_key(u->uid)));
        }
        process_free(e);
}

static void process_drop(RtGrants *g, RtProcess *e)
{
        ledger_claim_drop(&e->limit, task_table_state(g->tasks));
        process_remove(g, e);
}

/* The entry of PID started at ST, of user UID (a new one; one of an
 * earlier process with that pid is dropped). */
static int process_get(RtGrants *g, pid_t pid, uint64_t st, uid_t uid, RtProcess **ret)
{
        RtProcess *e = pidmap_get(&g->procs, pid);
        int r;

        if (e && e->starttime != st) {
                process_drop(g, e);
                e = NULL;
        }
        if (!e) {
                e = calloc(1, sizeof(*e));
                if (!e)
                        return -ENOMEM;
                e->pid = pid;
                e->starttime = st;
                r = pidmap_put(&g->procs, pid, e);
                if (r < 0) {
                        free(e);
                        return r;
                }
        }
        r = process_set_user(g, e, uid);
        if (r < 0) {
                if (!e->user)
                        process_remove(g, e);
                return r;
        }
        *ret = e;
        return 0;
}

int rt_grants_hold(RtGrants *g, pid_t pid, uint64_t st, uid_t uid)
{
        StateFile *f = task_table_state(g->tasks);
        char now[48], want[48], path[64];
        struct rlimit cur, bound;
        LimitTo to = { g->k, pid };
        StateCgroupRecord target;
        RtProcess *e;
        int r, unrecorded;

        r = process_get(g, pid, st, uid, &e);
        if (r < 0)
                return r;
        r = g->k->prlimit(pid, RLIMIT_RTTIME, NULL, &cur);
        if (r < 0)
                return r;
        bound = (struct rlimit){ MIN(cur.rlim_cur, (rlim_t)RT_GRANT_RTTIME_USEC),
                                 g->bound_hard ? MIN(cur.rlim_max, (rlim_t)RT_GRANT_RTTIME_USEC)
                                               : cur.rlim_max };
        limit_format(&cur, now);
        limit_format(&bound, want);
        if (ledger_claim_changed(&e->limit, now, NULL, NULL)) {
                /* Someone else set it since: theirs (never given back), and
                 * bounded again below if it is above the bound. */
                log_info("%d: RLIMIT_RTTIME changed by someone else (%s); it is theirs.",
                         (int)pid, now);
                ledger_claim_drop(&e->limit, f);
        }
        if (streq(now, want))
                return 0; /* bounded already: latniced's own limit, or a lower one */
        target = limit_target(g, e, path, sizeof(path));
        r = ledger_claim_write(&e->limit, f, &target, now, want, limit_write, &to, &unrecorded);
        if (unrecorded < 0)
                log_warning_errno(unrecorded, "%d: RLIMIT_RTTIME not recorded in the state file "
                                              "(%m): not given back should latniced die.",
                                  (int)pid);
        return r;
}

/* Give E's limit back if latniced set one and it is unchanged; E goes.
 * Returns 1 if written. */
static int process_give_back(RtGrants *g, RtProcess *e)
{
        StateFile *f = task_table_state(g->tasks);
        LimitTo to = { g->k, e->pid };
        struct rlimit cur;
        char now[48];
        uint64_t st;
        int r;

        if (proc_starttime(g->proc_root, e->pid, e->pid, &st) < 0 || st != e->starttime ||
            g->k->prlimit(e->pid, RLIMIT_RTTIME, NULL, &cur) < 0) {
                process_drop(g, e); /* gone: nothing to give back */
                return 0;
        }
        limit_format(&cur, now);
        r = ledger_claim_restore(&e->limit, f, now, NULL, NULL, limit_write, &to, NULL);
        if (r < 0 && !errno_is_gone(r))
                log_warning_errno(r, "%d: cannot give RLIMIT_RTTIME back: %m", (int)e->pid);
        process_remove(g, e);
        return r > 0;
}

void rt_grants_settle(RtGrants *g, pid_t pid)
{
        RtProcess *e = pidmap_get(&g->procs, pid);

        if (e && task_table_n_granted(g->tasks, pid) == 0)
                (void)process_give_back(g, e);
}

size_t rt_grants_restore_all(RtGrants *g)
{
        size_t state = 0, n = 0;
        void *v;

        while (pidmap_iterate(&g->procs, &state, NULL, &v))
                n += process_give_back(g, v) > 0;
        return n;
}

/* ---- after a crash ------------------------------------------------------ */

/* Take over REC (its process alive, as started). 1 if latniced's, 0 if
 * not (the record released), -ENOMEM. */
static int adopt_one(RtGrants *g, StateCgroupRecord *rec)
{
        StateFile *f = task_table_state(g->tasks);
        char now[48], path[64];
        struct rlimit cur;
        struct stat sb;
        RtProcess *e;
        uint64_t st;
        int r;

        if (proc_starttime(g->proc_root, rec->pid, rec->pid, &st) < 0 || st != rec->starttime ||
            g->k->prlimit(rec->pid, RLIMIT_RTTIME, NULL, &cur) < 0) {
                state_file_cgroup_release(f, &(uint32_t){ rec->slot + 1 });
                return 0;
        }
        limit_format(&cur, now);
        /* Its user, as /proc has it (the next grant says it again). */
        snprintf(path, sizeof(path), "%s/%d", g->proc_root ?: "/proc", (int)rec->pid);
        r = process_get(g, rec->pid, rec->starttime, stat(path, &sb) == 0 ? sb.st_uid : (uid_t)-1,
                        &e);
        if (r < 0)
                return r;
        r = ledger_claim_adopt(&e->limit, rec, now, NULL, NULL);
        if (r < 0)
                return r;
        if (r != LEDGER_OURS) {
                state_file_cgroup_release(f, &(uint32_t){ rec->slot + 1 });
                process_remove(g, e);
                return 0;
        }
        return 1;
}

int rt_grants_adopt(RtGrants *g)
{
        StateFile *f = task_table_state(g->tasks);
        StateCgroupRecord *recs = NULL;
        size_t n = 0, state = 0;
        int r, n_ours = 0;
        void *v;

        if (!f)
                return 0;
        r = state_file_cgroup_take(f, STATE_CGROUP_RT_GRANTS, &recs, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n && r >= 0; i++) {
                r = adopt_one(g, &recs[i]);
                n_ours += r > 0;
        }
        state_cgroup_records_free(recs, n);
        if (r < 0)
                return r;
        /* A process whose grants are not in the table (given back, or
         * theirs) gets its limit back now. */
        while (pidmap_iterate(&g->procs, &state, NULL, &v))
                rt_grants_settle(g, ((RtProcess *)v)->pid);
        return n_ours;
}
