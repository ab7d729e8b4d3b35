/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc readers: task snapshots, start times, thread lists.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/bounded-read.h"
#include "lib/grow.h"
#include "lib/kube-pod.h"
#include "lib/macro.h"
#include "lib/proc-live.h"
#include "lib/proc.h"
#include "lib/strv.h"
#include "lib/unit-name.h"
#include "lib/util.h"

#define PF_KTHREAD 0x00200000u
#define ANCESTORS_MAX 64

/* ENOENT under /proc means the task (or its thread) went away. */
static int gone(int r)
{
        return r == -ENOENT ? -ESRCH : r;
}

/* Append the decimal form of V (>= 0) at P; returns the end. */
static char *put_id(char *p, pid_t v)
{
        char digits[12];
        size_t n = 0;

        do
                digits[n++] = (char) ('0' + v % 10);
        while ((v /= 10) > 0);
        while (n > 0)
                *p++ = digits[--n];
        return p;
}

/* Built by hand: it is built for every file read, and asprintf() cost more
 * than the rest of the reading in user space. */
int proc_task_path(char **ret, const char *proc_root, pid_t pid, pid_t tid, const char *file)
{
        size_t root_len = strlen(proc_root), file_len = strlen(file);
        char *path, *p;

        if (pid < 0)
                return -ESRCH; /* as the file "-N" would be: no such task */
        /* two ids of at most 10 digits, "/", "/task/", "/", "/", NUL */
        path = malloc(root_len + file_len + 2 * 10 + 10);
        if (!path)
                return -ENOMEM;
        p = mempcpy(path, proc_root, root_len);
        *p++ = '/';
        p = put_id(p, pid);
        if (tid > 0) {
                p = mempcpy(p, "/task/", 6);
                p = put_id(p, tid);
        }
        *p++ = '/';
        p = mempcpy(p, file, file_len);
        *p = 0;
        *ret = path;
        return 0;
}

/* procfs hands over its small files whole (stat, status, cgroup: one
 * seq_file record; cmdline: as much of argv as is asked for), so a read()
 * that returns less than was asked for reached the end: the read() that
 * would return 0 is saved, one system call per file and process. A short
 * read anywhere else (a regular file of a test's proc root) also means the
 * end. */
static int proc_file_read(const char *path, size_t max, bool truncate, char **ret,
                          size_t *ret_size, bool *ret_truncated)
{
        return read_file_flags(path, max, READ_SHORT_IS_END | (truncate ? READ_TRUNCATE : 0), ret,
                               ret_size, ret_truncated);
}

static int read_task_file(const char *proc_root, pid_t pid, pid_t tid, const char *file,
                          size_t max, char **ret, size_t *ret_size)
{
        _cleanup_free_ char *p = NULL;
        int r;

        r = proc_task_path(&p, proc_root, pid, tid, file);
        if (r < 0)
                return r;
        return gone(proc_file_read(p, max, false, ret, ret_size, NULL));
}

/* The first MAX bytes of a task file whose length the task controls. */
static int read_task_head(const char *proc_root, pid_t pid, const char *file, size_t max,
                          char **ret, size_t *ret_size, bool *ret_truncated)
{
        _cleanup_free_ char *p = NULL;
        int r;

        r = proc_task_path(&p, proc_root, pid, 0, file);
        if (r < 0)
                return r;
        return gone(proc_file_read(p, max, true, ret, ret_size, ret_truncated));
}

/*
 * PID/status up to its complete lines within PROC_STATUS_MAX bytes. The file
 * grows with the supplementary groups (65536 of them: 500 to 700 KiB),
 * but the lines read here (Tgid, Uid, Gid) come before "Groups:"; a line cut
 * at the bound is dropped so that a cut number is never read as a whole one.
 */
int proc_status_read(const char *proc_root, pid_t pid, char **ret)
{
        _cleanup_free_ char *buf = NULL;
        bool truncated;
        size_t n;
        int r;

        r = read_task_head(proc_root, pid, "status", PROC_STATUS_MAX, &buf, &n, &truncated);
        if (r < 0)
                return r;
        if (truncated) {
                char *nl = memrchr(buf, '\n', n);

                if (nl)
                        nl[1] = 0;
                else
                        buf[0] = 0;
        }
        *ret = TAKE_PTR(buf);
        return 0;
}

typedef ProcStat StatInfo;

/* The decimal number in [P, END): digits only, -EIO if there are none, any
 * other character or it exceeds MAX. */
static int span_to_u64(const char *p, const char *end, uint64_t max, uint64_t *ret)
{
        uint64_t v = 0;

        if (p == end)
                return -EIO;
        for (; p < end; p++) {
                unsigned d = (unsigned) (*p - '0');

                if (d > 9 || v > (max - d) / 10)
                        return -EIO;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

/*
 * Parse a stat line. The comm is between the first '(' and the LAST ')': it
 * may itself contain ')', '(', spaces and newlines. Fields after it are
 * numbered from 3 (state); they are parsed in place (a stat is read for
 * every process that execs: no copy per field).
 */
static int parse_stat(const char *buf, StatInfo *ret)
{
        const char *open, *close, *p;
        StatInfo s = {};
        unsigned field = 3;
        uint64_t v = 0;
        int r = 0;

        open = strchr(buf, '(');
        close = strrchr(buf, ')');
        if (!open || !close || close < open || close[1] != ' ')
                return -EIO;

        s.vsize = UINT64_MAX; /* unknown until field 23 */
        p = close + 2;
        while (*p && field <= 23) {
                const char *end = p + strcspn(p, " \n");

                switch (field) {
                case 3:
                        if (end - p != 1)
                                return -EIO;
                        s.state = p[0];
                        break;
                case 4:
                        r = span_to_u64(p, end, INT32_MAX, &v);
                        s.ppid = (pid_t) v;
                        break;
                case 9:
                        r = span_to_u64(p, end, UINT64_MAX, &s.flags);
                        break;
                case 20:
                        r = span_to_u64(p, end, UINT32_MAX, &v);
                        s.n_threads = (uint32_t) v;
                        break;
                case 22:
                        r = span_to_u64(p, end, UINT64_MAX, &s.starttime);
                        break;
                case 23:
                        r = span_to_u64(p, end, UINT64_MAX, &s.vsize);
                        break;
                }
                if (r < 0)
                        return r;
                field++;
                p = end;
                while (*p == ' ')
                        p++;
                if (*p == '\n')
                        break;
        }
        if (field <= 22)
                return -EIO;

        s.comm = strndup(open + 1, (size_t) (close - open - 1));
        if (!s.comm)
                return -ENOMEM;
        *ret = s;
        return 0;
}

static int read_stat(const char *proc_root, pid_t pid, pid_t tid, StatInfo *ret)
{
        _cleanup_free_ char *buf = NULL;
        int r;

        r = read_task_file(proc_root, pid, tid, "stat", READ_FULL_FILE_MAX, &buf, NULL);
        if (r < 0)
                return r;
        return parse_stat(buf, ret);
}

bool proc_leader_exited(const char *proc_root, pid_t pid)
{
        StatInfo st = {};
        bool r;
        int k;

        /* The main thread's own stat (PID/task/PID/stat) has its state and
         * the process's thread count at a cost that does not grow with the
         * threads, as in proc_starttime(); a tree without task/ has PID/stat. */
        if (!proc_root)
                proc_root = "/proc";
        k = read_stat(proc_root, pid, pid, &st);
        if (k == -ESRCH)
                k = read_stat(proc_root, pid, 0, &st);
        if (k < 0)
                return false;
        r = (st.state == 'Z' || st.state == 'X') && st.n_threads > 1;
        free(st.comm);
        return r;
}

/* The name in the comm file content BUF (NUL-terminated): the kernel writes
 * the comm as stat has it, raw, and one '\n'. The name may contain '\n',
 * ')' and spaces itself, so exactly one '\n' at the end is dropped. */
static void parse_comm(char *buf)
{
        size_t n = strlen(buf);

        if (n > 0 && buf[n - 1] == '\n')
                buf[n - 1] = 0;
}

/* PID/comm (TID > 0: PID/task/TID/comm). About half of what stat costs the
 * kernel, which sums up CPU times and memory for every read of that. */
static int read_comm(const char *proc_root, pid_t pid, pid_t tid, char **ret)
{
        char *buf = NULL;
        int r;

        r = read_task_file(proc_root, pid, tid, "comm", READ_FULL_FILE_MAX, &buf, NULL);
        if (r < 0)
                return r;
        parse_comm(buf);
        *ret = buf;
        return 0;
}

/* Value of "KEY:\t..." in a status file, first whitespace-separated field. */
static int status_field(const char *buf, const char *key, char **ret)
{
        size_t klen = strlen(key);

        for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                if (strncmp(l, key, klen) != 0 || l[klen] != ':')
                        continue;
                l += klen + 1;
                l += strspn(l, " \t");
                size_t n = strcspn(l, " \t\n");
                if (n == 0)
                        return -EIO;
                char *v = strndup(l, n);
                if (!v)
                        return -ENOMEM;
                *ret = v;
                return 0;
        }
        return -ENODATA;
}

static int status_u32(const char *buf, const char *key, uint32_t *ret)
{
        _cleanup_free_ char *v = NULL;
        int r;

        r = status_field(buf, key, &v);
        if (r < 0)
                return r;
        return safe_atou32(v, ret) < 0 ? -EIO : 0;
}

/* cmdline: argv joined by spaces (NULL when empty) and the basename of argv[0].
 * Takes BUF: N bytes of content and room for one more. */
static int parse_cmdline(char *buf_in, size_t n, char **ret_cmdline, char **ret_argv0)
{
        _cleanup_free_ char *buf = buf_in, *argv0 = NULL;

        while (n > 0 && buf[n - 1] == 0)
                n--;
        if (n == 0) {
                *ret_cmdline = NULL;
                *ret_argv0 = NULL;
                return 0;
        }
        buf[n] = 0;

        /* buf now holds argv[0] up to its NUL (or the whole rewritten title). */
        const char *b = path_basename(buf);
        if (b) {
                argv0 = strdup(b);
                if (!argv0)
                        return -ENOMEM;
        }
        /* memchr(), not a loop over every byte: cmdlines of compilers run
         * to kilobytes, and this was a tenth of latniced's instructions. */
        for (char *z = memchr(buf, 0, n); z; z = memchr(z + 1, 0, n - (size_t) (z + 1 - buf)))
                *z = ' ';

        *ret_cmdline = TAKE_PTR(buf);
        *ret_argv0 = TAKE_PTR(argv0);
        return 0;
}

/*
 * Reading PID/cmdline waits for the process's mmap_lock, which the process
 * (any task sharing its memory: its threads, and clone(CLONE_VM) children
 * that no thread count shows) can keep busy for as long as it likes (see
 * lib/bounded-read.h). It is read right here only for a process that has
 * just called exec (PROC_READ_FRESH: its memory is new, and nothing else
 * shares it yet) and whose stat, read just before, shows one thread and
 * little mapped (an mprotect() or a fork() under that lock takes as long as
 * the pages and mappings it walks, and there are at most VSIZE / 4 KiB of
 * either). Anything else goes through the bounded reader, when there is one
 * (latniced).
 */
#define CMDLINE_INLINE_VSIZE_MAX (32u << 20)

static BoundedReader *cmdline_reader;

void proc_set_cmdline_reader(BoundedReader *b)
{
        cmdline_reader = b;
}

static bool cmdline_inline(const StatInfo *st, bool fresh)
{
        if (!cmdline_reader)
                return true;
        return fresh && st && st->n_threads <= 1 && st->vsize <= CMDLINE_INLINE_VSIZE_MAX;
}

/* The key of PID's reads: its real uid (UID, or from PID/status when that is
 * UINT32_MAX). */
static int cmdline_key(const char *proc_root, pid_t pid, uint32_t uid, uint32_t *ret)
{
        _cleanup_free_ char *status = NULL;
        int r;

        if (uid != UINT32_MAX) {
                *ret = uid;
                return 0;
        }
        r = proc_status_read(proc_root, pid, &status);
        if (r < 0)
                return r;
        r = status_u32(status, "Uid", ret);
        return r == -ENOMEM ? r : r < 0 ? -EIO : 0;
}

/* What the main thread's stat ST (NULL: none read) says of where the
 * process's identity is to be read (lib/proc-live.h). */
static ProcLeader stat_leader(const StatInfo *st)
{
        if (!st)
                return PROC_LEADER_UNKNOWN;
        if (st->flags & PF_KTHREAD)
                return PROC_LEADER_ONLY;
        if (st->state == 'Z' || st->state == 'X')
                return st->n_threads > 1 ? PROC_LEADER_EXITED : PROC_LEADER_ONLY;
        return PROC_LEADER_UNKNOWN;
}

/* One read of a file that is a copy from the process's memory (cmdline,
 * environ), at each path proc_read_live() tries. */
typedef struct MmRead {
        const char *proc_root;
        pid_t pid;
        uint32_t uid;      /* the real uid, UINT32_MAX: read it for the key */
        bool inline_ok;    /* cmdline_inline() of the main thread's stat */
        unsigned n_calls;
        char *buf;
        size_t size;
        bool truncated;
} MmRead;

/* PATH through the bounded reader, keyed by the process's real uid.
 * -EAGAIN: cut short or refused, try again later. */
static int mm_read_bounded(MmRead *m, const char *path)
{
        uint32_t key;
        int r;

        r = cmdline_key(m->proc_root, m->pid, m->uid, &key);
        if (r < 0)
                return r;
        m->uid = key;
        r = bounded_reader_read(cmdline_reader, key, path, &m->buf, &m->size, &m->truncated);
        if (r == -ETIMEDOUT || r == -EBUSY)
                return -EAGAIN;
        if (r == -EAGAIN) /* no thread to read with: better late than never */
                return proc_file_read(path, PROC_CMDLINE_MAX, true, &m->buf, &m->size,
                                      &m->truncated);
        return r;
}

/* A ProcFileReader: the first PROC_CMDLINE_MAX bytes of PATH, right away
 * where the process cannot hold the lock long: the main thread's file when
 * cmdline_inline() said so, never a thread's (a process with threads can),
 * unless there is no bounded reader; else through the bounded reader. */
static int mm_read_at(const char *path, void *userdata)
{
        MmRead *m = userdata;
        bool first = m->n_calls++ == 0;
        int r;

        m->buf = mfree(m->buf);
        m->size = 0;
        m->truncated = false;
        if (!cmdline_reader || (m->inline_ok && first))
                r = proc_file_read(path, PROC_CMDLINE_MAX, true, &m->buf, &m->size,
                                   &m->truncated);
        else
                r = mm_read_bounded(m, path);
        if (r < 0)
                return gone(r);
        return m->size > 0;
}

/* PID/NAME (cmdline, environ: under the process's mmap_lock), its first
 * PROC_CMDLINE_MAX bytes, from the main thread or, when it has exited, a
 * live thread (proc_read_live()): right away where the process cannot hold
 * the lock long (cmdline_inline()), else through the bounded reader. */
static int read_mm_head(const char *proc_root, pid_t pid, const StatInfo *st,
                        ProcLeader *leader, bool fresh, uint32_t uid, const char *name,
                        char **ret, size_t *ret_size, bool *ret_truncated)
{
        MmRead m = { .proc_root = proc_root, .pid = pid, .uid = uid,
                     .inline_ok = cmdline_inline(st, fresh) };
        int r;

        r = proc_read_live(proc_root, pid, leader, name, mm_read_at, &m);
        if (r < 0) {
                free(m.buf);
                return r;
        }
        *ret = m.buf;
        *ret_size = m.size;
        if (ret_truncated)
                *ret_truncated = m.truncated;
        return 0;
}

/* The first PROC_CMDLINE_MAX bytes of PID/cmdline: argv can be a quarter of
 * the stack limit (gigabytes with "ulimit -s unlimited"), and the matcher
 * needs its beginning only. ST: the stat just read (NULL if none), FRESH:
 * PROC_READ_FRESH, UID: the real uid (UINT32_MAX if not read). -EAGAIN: the
 * process kept its memory busy, try again later. RET_TRUNCATED (optional):
 * whether it was cut. */
static int read_cmdline(const char *proc_root, pid_t pid, const StatInfo *st,
                        ProcLeader *leader, bool fresh, uint32_t uid, char **ret_cmdline,
                        char **ret_argv0, bool *ret_truncated)
{
        char *buf = NULL;
        bool truncated;
        size_t n;
        int r;

        r = read_mm_head(proc_root, pid, st, leader, fresh, uid, "cmdline", &buf, &n,
                         &truncated);
        if (r < 0)
                return r;
        r = parse_cmdline(buf, n, ret_cmdline, ret_argv0);
        if (r >= 0 && ret_truncated)
                *ret_truncated = truncated;
        return r;
}

/* PID/environ for the "env" key, read as read_cmdline() reads the cmdline:
 * whole entries within the first PROC_CMDLINE_MAX bytes (a cut one is left
 * out), NUL-terminated; NULL when it may not be read. */
static int read_env(const char *proc_root, pid_t pid, const StatInfo *st, ProcLeader *leader,
                    bool fresh, uint32_t uid, char **ret, size_t *ret_size)
{
        _cleanup_free_ char *buf = NULL;
        bool truncated = false;
        size_t n = 0;
        int r;

        r = read_mm_head(proc_root, pid, st, leader, fresh, uid, "environ", &buf, &n,
                         &truncated);
        if (r == -ESRCH || r == -ENOMEM || r == -EAGAIN)
                return r;
        if (r < 0) {
                *ret = NULL;
                *ret_size = 0;
                return 0;
        }
        if (truncated) {
                char *z = memrchr(buf, 0, n);

                n = z ? (size_t)(z + 1 - buf) : 0;
                buf[n] = 0;
        }
        *ret = TAKE_PTR(buf);
        *ret_size = n;
        return 0;
}

int proc_environ_read(const char *proc_root, pid_t pid, uint32_t uid, bool fresh, char **ret,
                      size_t *ret_size, bool *ret_truncated)
{
        StatInfo st = {};
        ProcLeader leader;
        bool have_stat = false;
        int r;

        if (!proc_root)
                proc_root = "/proc";
        if (pid <= 0)
                return -EINVAL;
        /* As for the cmdline: inline only right after exec, with the stat
         * read just now showing one thread and little mapped. */
        if (cmdline_reader && fresh) {
                r = read_stat(proc_root, pid, 0, &st);
                if (r < 0)
                        return r;
                have_stat = true;
        }
        leader = stat_leader(have_stat ? &st : NULL);
        r = read_mm_head(proc_root, pid, have_stat ? &st : NULL, &leader, fresh, uid, "environ",
                         ret, ret_size, ret_truncated);
        free(st.comm);
        return r;
}

#define DELETED_SUFFIX " (deleted)"

static bool has_deleted_suffix(const char *text)
{
        size_t n = strlen(text), k = strlen(DELETED_SUFFIX);

        return n > k && streq(text + n - k, DELETED_SUFFIX);
}

bool exe_link_strip_deleted(char *text, bool deleted)
{
        if (!deleted || !has_deleted_suffix(text))
                return false;
        text[strlen(text) - strlen(DELETED_SUFFIX)] = 0;
        return true;
}

/* A ProcFileReader: the target of the exe link at PATH into *USERDATA (a
 * char *). " (deleted)" at its end is taken off only when the file itself
 * says it was deleted (no links left): a file may be named so, and in a
 * mount namespace of their own users name files as they like. */
static int exe_read_at(const char *path, void *userdata)
{
        char **target = userdata;
        struct statx stx;
        int r;

        *target = mfree(*target);
        r = readlink_malloc(path, target);
        if (r < 0)
                return r;
        /* Only for a name with the suffix (rare): the cached attributes
         * (AT_STATX_DONT_SYNC asks no FUSE server). Unknown: kept. */
        if (has_deleted_suffix(*target) &&
            statx(AT_FDCWD, path, AT_STATX_DONT_SYNC, STATX_NLINK, &stx) >= 0 &&
            (stx.stx_mask & STATX_NLINK))
                (void)exe_link_strip_deleted(*target, stx.stx_nlink == 0);
        return 1;
}

/* Target of PID/exe (a live thread's when the main thread has exited,
 * LEADER: what its stat said, lib/proc-live.h); NULL when there is none
 * (kernel threads, zombies) or we may not read it. -EAGAIN: the threads
 * tried exited as they were read, try again later. */
static int read_exe(const char *proc_root, pid_t pid, ProcLeader *leader, char **ret)
{
        char *target = NULL;
        int r;

        r = proc_read_live(proc_root, pid, leader, "exe", exe_read_at, &target);
        if (r < 0) {
                free(target);
                target = NULL;
                if (r == -ENOMEM || r == -EAGAIN)
                        return r;
        }
        *ret = target;
        return 0;
}

/* NULL when the name cannot be had: the id still matches. */
static int lookup_name(bool group, uint32_t id, char **ret)
{
        int r = id_to_name(group, id, ret);

        if (r == -ENOMEM)
                return r;
        if (r < 0)
                *ret = NULL;
        return 0;
}

/* The cgroup v2 path: the "0::" line of the PID/cgroup file in BUF (modified);
 * NULL if there is none. */
static int parse_cgroup(char *buf, char **ret)
{
        for (char *l = buf; l && *l;) {
                char *nl = strchr(l, '\n');
                if (nl)
                        *nl = 0;
                if (strncmp(l, "0::", 3) == 0) {
                        *ret = strdup(l + 3);
                        return *ret ? 0 : -ENOMEM;
                }
                l = nl ? nl + 1 : NULL;
        }
        *ret = NULL;
        return 0;
}

/* A ProcFileReader: the cgroup file at PATH into *USERDATA (a char *). */
static int cgroup_read_at(const char *path, void *userdata)
{
        char **buf = userdata;
        int r;

        *buf = mfree(*buf);
        r = proc_file_read(path, READ_FULL_FILE_MAX, false, buf, NULL, NULL);
        if (r < 0)
                return gone(r);
        return (*buf)[0] != 0;
}

int proc_cgroup_read(const char *proc_root, pid_t pid, char **ret)
{
        ProcLeader leader;
        char *buf = NULL;
        int r;

        if (!proc_root)
                proc_root = "/proc";
        leader = proc_leader_exited(proc_root, pid) ? PROC_LEADER_EXITED : PROC_LEADER_ONLY;
        r = proc_read_live(proc_root, pid, &leader, "cgroup", cgroup_read_at, &buf);
        if (r < 0) {
                free(buf);
                return r == -ENOENT ? -ESRCH : r;
        }
        *ret = buf;
        return 0;
}

/* The cgroup v2 path of PID and its Kubernetes pod (from any hierarchy,
 * lib/kube-pod.h); NULL (unknown) when the file cannot be read: the
 * kernel formats each path in a PATH_MAX buffer, and a deeper one (a user can
 * nest delegated cgroups that far) is cut, or makes older kernels fail the
 * read with ENAMETOOLONG. That must not keep the task from its other rules.
 * A main thread that has exited (LEADER, from its stat) stays in the cgroup
 * it was in when the process's threads move (its file says so), so the
 * file is then a live thread's. */
static int read_cgroup(const char *proc_root, pid_t pid, ProcLeader *leader, char **ret,
                       char **ret_pod)
{
        _cleanup_free_ char *buf = NULL;
        int r;

        *ret = *ret_pod = NULL;
        r = proc_read_live(proc_root, pid, leader, "cgroup", cgroup_read_at, &buf);
        if (r == -ESRCH || r == -ENOMEM || r == -EAGAIN)
                return r;
        if (r < 0 || !buf)
                return 0;
        r = kube_pod_from_cgroup_file(buf, strlen(buf), ret_pod);
        if (r == -ENOMEM)
                return r;
        return parse_cgroup(buf, ret);
}

static int read_ancestors(ProcTask *t, const char *proc_root, pid_t ppid)
{
        TaskNames *names = NULL;
        size_t n = 0, n_strings = 0;
        char **strings = NULL;
        pid_t cur = ppid;
        int r = 0;

        while (cur > 0 && n < ANCESTORS_MAX) {
                StatInfo st = {};
                char *cmdline = NULL, *argv0 = NULL, *exe = NULL;
                ProcLeader leader;
                TaskNames *nn;

                r = read_stat(proc_root, cur, 0, &st);
                if (r < 0)
                        break; /* vanished ancestor: stop here */
                /* An ancestor whose cmdline cannot be read (it exits right now)
                 * still has its comm and exe: only memory stops the walk. */
                leader = stat_leader(&st);
                r = read_cmdline(proc_root, cur, &st, &leader, false, UINT32_MAX, &cmdline,
                                 &argv0, NULL);
                free(cmdline);
                if (r == -ENOMEM || r == -EAGAIN) {
                        free(st.comm);
                        break;
                }
                r = read_exe(proc_root, cur, &leader, &exe);
                if (r < 0) {
                        free(st.comm);
                        free(argv0);
                        break;
                }

                nn = realloc(names, sizeof(TaskNames) * (n + 1));
                if (!nn) {
                        free(st.comm);
                        free(argv0);
                        free(exe);
                        r = -ENOMEM;
                        break;
                }
                names = nn;
                names[n] = (TaskNames) { .comm = st.comm, .argv0 = argv0, .exe = NULL };
                if (exe) {
                        const char *b = path_basename(exe);
                        char *eb = b ? strdup(b) : NULL;
                        free(exe);
                        if (b && !eb)
                                r = -ENOMEM;
                        names[n].exe = eb;
                }
                n++;
                /* Track the strings for freeing. */
                if (strv_consume(&strings, &n_strings, (char *) names[n - 1].comm) < 0 ||
                    strv_consume(&strings, &n_strings, (char *) names[n - 1].argv0) < 0 ||
                    strv_consume(&strings, &n_strings, (char *) names[n - 1].exe) < 0)
                        r = -ENOMEM;
                if (r < 0)
                        break;
                cur = st.ppid;
        }

        t->ancestors = names;
        t->ancestor_strings = strings;
        t->view.ancestors = names;
        t->view.n_ancestors = n;
        return r == -ENOMEM || r == -EAGAIN ? r : 0;
}

ProcTask *proc_task_free(ProcTask *t)
{
        if (!t)
                return NULL;
        free(t->comm);
        free(t->argv0);
        free(t->exe_path);
        free(t->exe_base);
        free(t->cmdline);
        free(t->env);
        free(t->user);
        free(t->group);
        free(t->cgroup);
        free(t->unit);
        free(t->pod);
        free(t->thread);
        free(t->ancestors);
        strv_free(t->ancestor_strings);
        free(t);
        return NULL;
}

/* The comm, from PID/comm without PROC_READ_STAT, else from PID/stat with
 * the other fields of T that stat has (*ST keeps what the cmdline read
 * needs to see; its comm is T's). */
static int read_stat_or_comm(ProcTask *t, const char *proc_root, pid_t pid, ProcReadPlan plan,
                             StatInfo *st)
{
        int r;

        if (!(plan & PROC_READ_STAT))
                return read_comm(proc_root, pid, 0, &t->comm);
        r = read_stat(proc_root, pid, 0, st);
        if (r < 0)
                return r;
        t->comm = st->comm;
        t->state = st->state;
        t->ppid = st->ppid;
        t->starttime = st->starttime;
        t->n_threads = st->n_threads;
        t->kernel_thread = st->flags & PF_KTHREAD;
        /* A leader whose other threads still run is Z too (it called
         * pthread_exit()): the process is alive, and what latniced changed
         * in it must still be given back. Only a leader alone is a zombie:
         * a dead process counts 1 thread until it is reaped. */
        t->zombie = (st->state == 'Z' || st->state == 'X') && st->n_threads <= 1;
        t->has_stat = true;
        return 0;
}

/* The real uid and gid from PID/status; UINT32_MAX without PROC_READ_IDS. */
static int read_ids(const char *proc_root, pid_t pid, ProcReadPlan plan, uint32_t *ret_uid,
                    uint32_t *ret_gid)
{
        _cleanup_free_ char *status = NULL;
        int r;

        *ret_uid = *ret_gid = UINT32_MAX;
        if (!(plan & PROC_READ_IDS))
                return 0;
        r = proc_status_read(proc_root, pid, &status);
        if (r < 0)
                return r;
        r = status_u32(status, "Uid", ret_uid);
        if (r >= 0)
                r = status_u32(status, "Gid", ret_gid);
        if (r < 0)
                return r == -ENOMEM ? r : -EIO;
        return 0;
}

int proc_task_read(const char *proc_root, pid_t pid, pid_t tid, ProcReadPlan plan, ProcTask **ret)
{
        _cleanup_(proc_task_freep) ProcTask *t = NULL;
        StatInfo st = {};
        ProcLeader leader;
        uint32_t uid, gid;
        int r;

        if (!proc_root)
                proc_root = "/proc";
        if (pid <= 0)
                return -EINVAL;
        if (tid <= 0)
                tid = pid;

        if (!(plan & PROC_READ_STAT) && (plan & PROC_READ_ANCESTORS))
                return -EINVAL;
        /* A fresh cmdline is read right away only after a look at the stat. */
        if (cmdline_reader && (plan & PROC_READ_FRESH) &&
            (plan & (PROC_READ_CMDLINE | PROC_READ_ENVIRON)))
                plan |= PROC_READ_STAT;

        t = calloc(1, sizeof(*t));
        if (!t)
                return -ENOMEM;

        r = read_stat_or_comm(t, proc_root, pid, plan, &st);
        if (r < 0)
                return r;
        if (!(plan & PROC_READ_IDS))
                plan &= ~PROC_READ_NAMES;
        r = read_ids(proc_root, pid, plan, &uid, &gid);
        if (r < 0)
                return r;
        /* Where the cmdline, environ, exe and cgroup are read (lib/proc-live.h):
         * what the stat says, and what the first of them finds out. */
        leader = stat_leader(t->has_stat ? &st : NULL);

        if (plan & PROC_READ_CMDLINE) {
                r = read_cmdline(proc_root, pid, t->has_stat ? &st : NULL, &leader,
                                 plan & PROC_READ_FRESH, uid, &t->cmdline, &t->argv0,
                                 &t->cmdline_truncated);
                if (r < 0)
                        return r;
        }
        if (plan & PROC_READ_ENVIRON) {
                r = read_env(proc_root, pid, t->has_stat ? &st : NULL, &leader,
                             plan & PROC_READ_FRESH, uid, &t->env, &t->view.env_size);
                if (r < 0)
                        return r;
        }
        if (plan & PROC_READ_EXE) {
                r = read_exe(proc_root, pid, &leader, &t->exe_path);
                if (r < 0)
                        return r;
        }
        if (t->exe_path) {
                const char *b = path_basename(t->exe_path);
                if (b) {
                        t->exe_base = strdup(b);
                        if (!t->exe_base)
                                return -ENOMEM;
                }
        }

        if (plan & PROC_READ_NAMES) {
                r = lookup_name(false, uid, &t->user);
                if (r < 0)
                        return r;
                r = lookup_name(true, gid, &t->group);
                if (r < 0)
                        return r;
        }

        if (plan & PROC_READ_CGROUP) {
                r = read_cgroup(proc_root, pid, &leader, &t->cgroup, &t->pod);
                if (r < 0)
                        return r;
                r = unit_name_from_cgroup_path(t->cgroup, &t->unit);
                if (r < 0 && r != -ENXIO)
                        return r;
        }

        if (plan & PROC_READ_THREAD) {
                r = proc_thread_comm(proc_root, pid, tid, &t->thread);
                if (r < 0)
                        return r;
        }
        if (plan & PROC_READ_ANCESTORS) {
                r = read_ancestors(t, proc_root, t->ppid);
                if (r < 0)
                        return r;
        }

        t->view.pid = pid;
        t->view.tid = tid;
        t->view.names = (TaskNames) { .comm = t->comm, .argv0 = t->argv0, .exe = t->exe_base };
        t->view.exe_path = t->exe_path;
        t->view.cmdline = t->cmdline;
        t->view.env = t->env;
        t->view.uid = uid;
        t->view.gid = gid;
        t->view.user = t->user;
        t->view.group = t->group;
        t->view.cgroup = t->cgroup;
        t->view.unit = t->unit;
        t->view.pod = t->pod;
        t->view.thread = t->thread;

        *ret = TAKE_PTR(t);
        return 0;
}

int proc_starttime(const char *proc_root, pid_t pid, pid_t tid, uint64_t *ret)
{
        StatInfo st;
        int r;

        /* The process's start time is its main thread's: PID/task/PID/stat
         * has it at a constant cost, where PID/stat sums up CPU times over
         * every thread (a process with 10,000 threads made each read cost
         * milliseconds). A tree without task/ (a test's) has PID/stat only. */
        r = read_stat(proc_root ?: "/proc", pid, tid > 0 ? tid : pid, &st);
        if (r == -ESRCH && tid <= 0)
                r = read_stat(proc_root ?: "/proc", pid, 0, &st);
        if (r < 0)
                return r;
        free(st.comm);
        *ret = st.starttime;
        return 0;
}

int proc_thread_comm(const char *proc_root, pid_t pid, pid_t tid, char **ret)
{
        return read_comm(proc_root ?: "/proc", pid, tid > 0 ? tid : pid, ret);
}

int proc_tgid(const char *proc_root, pid_t tid, pid_t *ret)
{
        _cleanup_free_ char *buf = NULL;
        uint32_t v;
        int r;

        r = proc_status_read(proc_root ?: "/proc", tid, &buf);
        if (r < 0)
                return r;
        r = status_u32(buf, "Tgid", &v);
        if (r < 0)
                return r == -ENOMEM ? r : -EIO;
        if (v == 0 || v > INT32_MAX)
                return -EIO;
        *ret = (pid_t) v;
        return 0;
}

static int cmp_pid(const void *a, const void *b)
{
        pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;
        return x < y ? -1 : x > y;
}

static int read_pid_dir(const char *path, pid_t **ret, size_t *ret_n)
{
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ pid_t *pids = NULL;
        size_t n = 0, allocated = 0;
        struct dirent *de;

        d = opendir(path);
        if (!d)
                return -errno;
        while ((errno = 0, de = readdir(d))) {
                pid_t p;

                if (parse_pid(de->d_name, &p) < 0)
                        continue;
                if (GROW(pids, allocated, n + 1, 64) < 0)
                        return -ENOMEM;
                pids[n++] = p;
        }
        if (errno != 0)
                return -errno;
        if (n > 0)
                qsort(pids, n, sizeof(pid_t), cmp_pid);
        *ret = TAKE_PTR(pids);
        *ret_n = n;
        return 0;
}

int proc_threads(const char *proc_root, pid_t pid, pid_t **ret, size_t *ret_n)
{
        _cleanup_free_ char *p = NULL;

        if (asprintf(&p, "%s/%d/task", proc_root ?: "/proc", (int) pid) < 0)
                return -ENOMEM;
        return gone(read_pid_dir(p, ret, ret_n));
}

int proc_pids(const char *proc_root, pid_t **ret, size_t *ret_n)
{
        return read_pid_dir(proc_root ?: "/proc", ret, ret_n);
}

/* The text of BUF up to SIZE bytes or its first NUL byte, NUL-terminated.
 * (Not strndup(): BUF need not be NUL-terminated at all.) */
static char *text_dup(const char *buf, size_t size)
{
        const char *nul = memchr(buf, 0, size);
        size_t n = nul ? (size_t) (nul - buf) : size;
        char *t = malloc(n + 1);

        if (!t)
                return NULL;
        memcpy(t, buf, n);
        t[n] = 0;
        return t;
}

int proc_stat_parse(const char *buf, size_t size, ProcStat *ret)
{
        _cleanup_free_ char *copy = NULL;

        if (!buf || !ret)
                return -EINVAL;
        copy = text_dup(buf, size);
        if (!copy)
                return -ENOMEM;
        return parse_stat(copy, ret);
}

void proc_stat_done(ProcStat *s)
{
        if (!s)
                return;
        free(s->comm);
        s->comm = NULL;
}

int proc_status_get_u32(const char *buf, size_t size, const char *key, uint32_t *ret)
{
        _cleanup_free_ char *copy = NULL;

        if (!buf || !key || !ret)
                return -EINVAL;
        copy = text_dup(buf, size);
        if (!copy)
                return -ENOMEM;
        return status_u32(copy, key, ret);
}

int proc_cmdline_parse(const char *buf, size_t size, char **ret_cmdline, char **ret_argv0)
{
        char *copy;

        if ((!buf && size > 0) || !ret_cmdline || !ret_argv0 || size == SIZE_MAX)
                return -EINVAL;
        copy = malloc(size + 1);
        if (!copy)
                return -ENOMEM;
        if (size > 0)
                memcpy(copy, buf, size);
        copy[size] = 0;
        return parse_cmdline(copy, size, ret_cmdline, ret_argv0);
}

int proc_cgroup_parse(const char *buf, size_t size, char **ret)
{
        _cleanup_free_ char *copy = NULL;

        if (!buf || !ret)
                return -EINVAL;
        copy = text_dup(buf, size);
        if (!copy)
                return -ENOMEM;
        return parse_cgroup(copy, ret);
}

int proc_comm_parse(const char *buf, size_t size, char **ret)
{
        char *copy;

        if (!buf || !ret)
                return -EINVAL;
        copy = text_dup(buf, size);
        if (!copy)
                return -ENOMEM;
        parse_comm(copy);
        *ret = copy;
        return 0;
}
