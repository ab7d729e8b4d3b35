/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trust facts: what latniced needs to know about a process before it gives
 * it a boost, a setting its user could not take with nice(1), chrt(1) or
 * sched_setattr() (see policy/boost.h for which settings are boosts).
 *
 * The facts are read here, with syscalls; the decision made from them is a
 * pure function in policy/boost.c.
 *
 * An executable is trusted when its user cannot have chosen its code or its
 * name:
 *   - the file (the inode the process runs, through PROC_ROOT/PID/exe) is
 *     owned by root and is not writable by group or others;
 *   - its path, as the kernel names it to latniced, leads to that inode
 *     in latniced's own mount namespace (a process in a mount namespace of
 *     its own may have mounted anything at any name); or the file was
 *     deleted, as the file itself says (no links left; the link text's
 *     " (deleted)" is a name anyone may give a file), as during a package
 *     upgrade: then the path is where it lived, which is only believed when
 *     the process runs in latniced's mount namespace and the file's mount
 *     is in latniced's mount table;
 *   - every directory of that path, up to "/", is owned by root and is not
 *     writable by group or others (sticky or not: a world-writable /tmp is
 *     not a place for trusted programs).
 *   - it is not on a FUSE filesystem (whose server, maybe the user, says
 *     who owns its files; with user_allow_other in /etc/fuse.conf a user's
 *     FUSE mount is open to root), which is found out before that server
 *     is asked anything, so that it cannot hold latniced either.
 * Anything that cannot be checked (another mount namespace, a race with a
 * rename, a permission error) is not trusted.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Is the executable at PATH, whose inode is described by ST, trusted? Checks
 * ST and every directory of PATH (absolute, no trailing " (deleted)"; such a
 * suffix must be removed by the caller, who then passes CHECK_PATH false so
 * the path is not required to lead to ST). Returns 1 trusted, 0 not trusted
 * (*RET_REASON, if not NULL, gets why: "exe /tmp/x/pipewire: directory
 * /tmp is writable by others"), negative errno on allocation failure.
 */
int exe_path_trusted(const char *path, const struct stat *st, bool check_path, char **ret_reason);

/*
 * The same for the executable of process PID under PROC_ROOT ("/proc"):
 * PID/exe, or a live thread's when the main thread has exited while the
 * others run (lib/proc-live.h). -ESRCH if the process is gone; a process
 * whose exe cannot be read (kernel thread, permission) is not trusted,
 * with a reason.
 */
int proc_exe_trusted(const char *proc_root, pid_t pid, char **ret_reason);

/* Is PID in latniced's mount namespace (PROC_ROOT/PID/ns/mnt, a live
 * thread's when the main thread has exited, and /proc/self/ns/mnt are the
 * same inode on the same device)? 1 or 0,
 * -ESRCH if gone, -errno if it cannot be read (EACCES without ptrace
 * access). */
int proc_same_mount_ns(const char *proc_root, pid_t pid);

/* Does the mount table BUF (a /proc/PID/mountinfo) have the mount MNT_ID
 * (its first field; statx's stx_mnt_id)? 1 or 0. */
int mountinfo_has_mount(const char *buf, uint64_t mnt_id);

/* Does the mount table BUF (a /proc/PID/mountinfo) have a FUSE mount
 * ("fuse", "fuseblk", "fuse.*") of device MAJOR:MINOR? 1 or 0. */
int mountinfo_fuse_dev(const char *buf, unsigned major, unsigned minor);

/* Real uid of PID, from the first lines of PROC_ROOT/PID/status. */
int proc_real_uid(const char *proc_root, pid_t pid, uid_t *ret);

/*
 * The lowest nice PID's user may give itself: 20 - the hard RLIMIT_NICE of
 * PID (a user may raise its soft limit up to the hard one), clamped to
 * -20..20 (20: it may only raise its nice), from PROC_ROOT/PID/limits.
 * -ESRCH if gone.
 */
int proc_nice_floor(const char *proc_root, pid_t pid, int *ret);
/* The hard limit of the "Max nice priority" line of a limits file
 * (UINT64_MAX: unlimited). -ENODATA without such a line, -EIO if malformed. */
int proc_limits_nice_max(const char *buf, uint64_t *ret);

/* What decides whether a task may have a boost (policy/boost.h). */
typedef struct BoostFacts {
        bool privileged;        /* the task's user may take any boost (uid 0) */
        bool exe_trusted;       /* proc_exe_trusted() */
        char *reason;           /* why the exe is not trusted, or NULL */
        int nice_floor;         /* proc_nice_floor(); 20 if unknown */
        uint64_t base_slice_ns; /* the kernel's default slice */
        /* Read apart, by boost_facts_get_tamper(), and only when a boost
         * would be kept but for them (lib/tamper.h): */
        bool tampered;          /* traced, started with LD_PRELOAD etc., or cannot tell */
        char *tamper_reason;    /* why, or NULL */
        /* Set by policy_decide() when a trusted exe's boost was withheld
         * because the names the rule matched are not the exe's: "the
         * executable's name (sleep) differs from the rule's (pipewire, its
         * argv[0])". Owned; NULL otherwise. */
        char *name_reason;
} BoostFacts;

void boost_facts_done(BoostFacts *f);

/*
 * The facts of one process, read when first asked for (most tasks never
 * need them: only boosts do). PROC_ROOT, PID, UID ((uid_t)-1: read it),
 * BASE_SLICE_NS (0: sched_base_slice()) and FRESH (the process has just
 * called exec: see proc_environ_read()) are set by the caller; tests may
 * fill FACTS and set HAVE (and HAVE_TAMPER) instead.
 */
typedef struct BoostFactsCache {
        const char *proc_root;
        pid_t pid;
        uid_t uid;
        uint64_t base_slice_ns;
        bool fresh;

        /* Set by the caller, borrowed: every boost is withheld, for this
         * reason (latniced's boost budget, daemon/apply/budget.h). NULL: none. */
        const char *revoked;
        bool have;
        bool have_tamper;
        BoostFacts facts;
} BoostFactsCache;

/* The facts, read on first use (not the tamper facts). -ESRCH if the process
 * is gone, -ENOMEM. */
int boost_facts_get(BoostFactsCache *c, const BoostFacts **ret);
/* The same with the tamper facts (proc_tampered()) read too, on first use;
 * nothing to read for a privileged process. */
int boost_facts_get_tamper(BoostFactsCache *c, const BoostFacts **ret);
void boost_facts_cache_done(BoostFactsCache *c);
