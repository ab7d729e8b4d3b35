/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc readers: task snapshots, start times, thread lists.
 *
 * The task may vanish at any step: -ESRCH (or -ENOENT mapped to -ESRCH) is
 * the normal answer then, not an error. Every reader takes the proc root as
 * a parameter so tests can point it at a fake /proc with hostile contents.
 * No fixed-size buffers for anything the task controls.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/task.h"

/*
 * How much of a file whose length the task controls is read; the rest is
 * left out, never an error (a long file must not hide a task from the policy).
 * cmdline: the matcher sees at most its first 64 KiB ("cmdline:" patterns and
 * argv[0] for "name:"). status: only Tgid, Uid and Gid are read, which come
 * within the first lines; a cut line is dropped.
 */
#define PROC_CMDLINE_MAX (64u * 1024u)
#define PROC_STATUS_MAX  (64u * 1024u)

/* Owned snapshot; ->view is what the matcher gets (pointers into this). */
typedef struct ProcTask {
        TaskSnapshot view;
        uint64_t starttime;  /* /proc/PID/stat field 22, for pid-reuse checks */
        pid_t ppid;
        bool kernel_thread;  /* PF_KTHREAD, or no mm: never touched */
        bool zombie;         /* dead, not reaped: Z or X and no thread left (a leader
                              * that exited while its threads run is not) */
        char state;          /* stat field 3 */
        uint32_t n_threads;  /* stat field 20: threads when it was read */
        bool cmdline_truncated; /* cmdline is the first PROC_CMDLINE_MAX bytes only */
        bool has_stat;       /* the fields above from stat were read (PROC_READ_STAT) */
        /* owned storage behind view's pointers */
        char *comm, *argv0, *exe_path, *exe_base, *cmdline, *user, *group, *cgroup, *unit,
                *thread, *env, *pod;
        TaskNames *ancestors;
        char **ancestor_strings; /* NULL-terminated */
} ProcTask;

/*
 * Where PID/cmdline is read when the process could keep the read waiting
 * (always, but for PROC_READ_FRESH with one thread and little mapped; see
 * read_cmdline() in proc.c): with B set (latniced), through B, and a read B
 * cuts short or refuses makes proc_task_read() fail with -EAGAIN (try again
 * later); with NULL (the default, latnicectl), right away. Not owned.
 */
typedef struct BoundedReader BoundedReader;
void proc_set_cmdline_reader(BoundedReader *b);

/*
 * The first PROC_CMDLINE_MAX bytes of PID/environ (the environment the
 * process was started with, as its memory holds it now), read as PID/cmdline
 * is: it too waits for the process's mmap_lock. Right away only when FRESH
 * (the process has just called exec) and its stat shows one thread and
 * little mapped, or when no bounded reader is set; otherwise through the
 * reader, keyed by UID (UINT32_MAX: read from PID/status). -EAGAIN: the read
 * was cut short or refused (try again later), -ESRCH: gone. As
 * read_file_flags(READ_SHORT_IS_END | READ_TRUNCATE): *RET_TRUNCATED if
 * there was more.
 */
int proc_environ_read(const char *proc_root, pid_t pid, uint32_t uid, bool fresh, char **ret,
                      size_t *ret_size, bool *ret_truncated);

/*
 * TEXT, a PID/exe link text: take " (deleted)" off its end when DELETED, as
 * the file says (statx stx_nlink == 0), never from the text alone (a file may
 * be named "pipewire (deleted)"). Returns whether it was taken off.
 */
bool exe_link_strip_deleted(char *text, bool deleted);

/*
 * The plan of a read: what proc_task_read() reads (policy_read_plan() makes
 * one from the keys a policy uses, policy/keys.c). Each costs a file read or
 * a lookup; the task's own fields only, the ancestors are read in full.
 * What the plan leaves out is NULL in ProcTask and in view. The comm is
 * always read.
 */
typedef unsigned ProcReadPlan;

#define PROC_READ_ANCESTORS 0x1  /* walk ppid up to pid 1 and fill ancestors (needs STAT) */
#define PROC_READ_THREAD    0x2  /* set view.thread to the comm of TID */
#define PROC_READ_NAMES     0x4  /* user/group name lookup (NSS): user, group; with IDS only */
#define PROC_READ_IDS       0x8  /* PID/status: uid, gid (else (uid_t)-1, (gid_t)-1) */
#define PROC_READ_CGROUP    0x10 /* PID/cgroup: cgroup, unit, pod */
#define PROC_READ_CMDLINE   0x20 /* PID/cmdline: cmdline, argv0 */
#define PROC_READ_EXE       0x40 /* PID/exe: exe_path, exe_base */
/* PID/stat: starttime, ppid, state, n_threads, kernel_thread and zombie, and
 * has_stat true. Without it the comm comes from PID/comm (stat costs the
 * kernel about twice as much) and those are 0 and false: enough to tell that
 * no rule matches; a caller that acts on the task reads it again with STAT
 * (the start time is what tells a recycled pid apart). PROC_READ_ANCESTORS,
 * which follows the ppid, without it: -EINVAL. Added by PROC_READ_FRESH
 * when the cmdline is read and a bounded reader is set
 * (proc_set_cmdline_reader()). */
#define PROC_READ_STAT      0x80
/* The process has just called exec (latniced: its exec event): its cmdline
 * may be read without the bounded reader if its stat allows. */
#define PROC_READ_FRESH     0x100
/* PID/environ: env, its first PROC_CMDLINE_MAX bytes (an entry cut there
 * is left out), read as the cmdline is (a read cut short: -EAGAIN). NULL
 * when it may not be read (another user's, without CAP_SYS_PTRACE). */
#define PROC_READ_ENVIRON   0x400
/* Never changes a read (the comm is always read); in a plan it says that
 * what the plan is for looks at the comm, so a rename may change it. */
#define PROC_READ_COMM      0x200
/* Everything of the task itself (neither its ancestors nor a thread name). */
#define PROC_READ_TASK                                                                          \
        (PROC_READ_STAT | PROC_READ_IDS | PROC_READ_NAMES | PROC_READ_CGROUP |                   \
         PROC_READ_CMDLINE | PROC_READ_EXE)

/* PROC_ROOT: "/proc" normally. TID == 0 means the main thread. */
int proc_task_read(const char *proc_root, pid_t pid, pid_t tid, ProcReadPlan plan, ProcTask **ret);
ProcTask *proc_task_free(ProcTask *t);
static inline void proc_task_freep(ProcTask **t)
{
        if (*t)
                proc_task_free(*t);
}

/* Start time (field 22 of stat) of a pid or of pid's thread tid; -ESRCH if gone.
 * A pid's is read from its main thread's stat (PID/task/PID/stat): the
 * same value at a cost that does not grow with its threads. */
int proc_starttime(const char *proc_root, pid_t pid, pid_t tid, uint64_t *ret);
/* Thread ids of PID (from /proc/PID/task), sorted. */
int proc_threads(const char *proc_root, pid_t pid, pid_t **ret, size_t *ret_n);
/* The comm of a thread ("" is possible), from its comm file. */
int proc_thread_comm(const char *proc_root, pid_t pid, pid_t tid, char **ret);
/* Tgid of a tid (from /proc/TID/status "Tgid:"). */
int proc_tgid(const char *proc_root, pid_t tid, pid_t *ret);
/* Every pid in PROC_ROOT, sorted. */
int proc_pids(const char *proc_root, pid_t **ret, size_t *ret_n);

/*
 * The parsers behind the readers above, on a file's content in memory (for
 * tests and fuzzing). BUF holds SIZE bytes and need not be NUL-terminated.
 * stat, status and cgroup content ends at an embedded NUL byte, as when the
 * readers read the file; cmdline uses NUL bytes as argument separators.
 * Outputs are untouched on failure.
 */

/* Fields of /proc/PID/stat latnice uses. */
typedef struct ProcStat {
        char *comm;         /* owned; between the first '(' and the last ')' */
        char state;         /* field 3 */
        pid_t ppid;         /* field 4 */
        uint64_t flags;     /* field 9 */
        uint64_t starttime; /* field 22 */
        uint32_t n_threads; /* field 20 */
        uint64_t vsize;     /* field 23, bytes; UINT64_MAX if the line ends before it */
} ProcStat;

/* -EIO if the line is not a stat line, -ENOMEM. */
int proc_stat_parse(const char *buf, size_t size, ProcStat *ret);
void proc_stat_done(ProcStat *s);
/* First field of the "KEY:" line of a status file, as a number: -ENODATA if
 * there is no such line, -EIO if its value is not a decimal u32. */
int proc_status_get_u32(const char *buf, size_t size, const char *key, uint32_t *ret);
/* PROC_ROOT/PID/status up to its complete lines within PROC_STATUS_MAX bytes
 * (the fields before "Groups:"); -ESRCH when the process is gone. */
int proc_status_read(const char *proc_root, pid_t pid, char **ret);

/* Has the main thread of PID exited while other threads of it run (its
 * stat says Z or X and counts more than one thread)? false on errors. Its
 * cmdline, environ, exe and cgroup are then a live thread's
 * (lib/proc-live.h): proc_task_read(), proc_environ_read() and the
 * ancestors read them so. */
bool proc_leader_exited(const char *proc_root, pid_t pid);
/* PROC_ROOT/PID/cgroup (up to READ_FULL_FILE_MAX bytes), or a live
 * thread's when the main thread has exited (proc_leader_exited(), one read
 * of the main thread's stat first): such a leader stays in the cgroup it
 * was in when the process's threads move. -ESRCH when the process is gone;
 * -EAGAIN when the threads tried exited as they were read. For the
 * readers of a process's cgroup outside proc_task_read() (lib/sched-group.c,
 * lib/group-subtree.c). */
int proc_cgroup_read(const char *proc_root, pid_t pid, char **ret);
/* PROC_ROOT/PID/FILE, or PROC_ROOT/PID/task/TID/FILE when TID > 0. */
int proc_task_path(char **ret, const char *proc_root, pid_t pid, pid_t tid, const char *file);
/* argv joined by single spaces (NULL if there is no argument) and the
 * basename of argv[0] (NULL if it is empty or ends in '/'). */
int proc_cmdline_parse(const char *buf, size_t size, char **ret_cmdline, char **ret_argv0);
/* The path of the "0::" (cgroup v2) line of a PID/cgroup file; NULL if none. */
int proc_cgroup_parse(const char *buf, size_t size, char **ret);
/* The name in a comm file: up to the first NUL or SIZE, without the one '\n'
 * the kernel adds (a name may itself end in '\n': only the last goes). */
int proc_comm_parse(const char *buf, size_t size, char **ret);
