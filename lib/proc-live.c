/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which path a process's identity is read from (lib/proc-live.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

#include "lib/macro.h"
#include "lib/proc-live.h"
#include "lib/proc.h"
#include "lib/util.h"

/* An answer of nothing: the file empty, or it or its task not there. */
static bool nothing(int r)
{
        return r == 0 || r == -ENOENT || r == -ESRCH;
}

/* Does thread TID of PID still have the process's memory? Its exe link
 * reads only while it does: a thread that is exiting has let go of it
 * (and then reads as empty as the leader), one that is gone has no link. */
static bool thread_has_mm(const char *proc_root, pid_t pid, pid_t tid)
{
        _cleanup_free_ char *p = NULL;
        char c;

        return proc_task_path(&p, proc_root, pid, tid, "exe") >= 0 && readlink(p, &c, 1) >= 0;
}

/* FILE through thread TID of PID: READ's answer, with *RET_NEXT set when
 * the thread gave nothing because it is exiting or gone (try the next one).
 * An empty file counts only if the thread still had the memory after the
 * read: then the process's file is empty (an environment of no variables). */
static int read_thread(const char *proc_root, pid_t pid, pid_t tid, const char *file,
                       ProcFileReader read, void *userdata, bool *ret_next)
{
        _cleanup_free_ char *p = NULL;
        int r;

        *ret_next = false;
        r = proc_task_path(&p, proc_root, pid, tid, file);
        if (r < 0)
                return r;
        r = read(p, userdata);
        if (r == -ENOENT || r == -ESRCH || (r == 0 && !thread_has_mm(proc_root, pid, tid)))
                *ret_next = true;
        return r;
}

/* Up to MAX ids of threads of PID other than PID, the first that PID/task
 * lists (the oldest), into TIDS; *RET_N: how many. getdents64() with a small
 * buffer, not readdir()'s 32 KiB: the kernel makes an entry for each thread
 * it lists, and what it lists must not grow with the process's threads. */
static int first_threads(const char *proc_root, pid_t pid, pid_t *tids, size_t max,
                         size_t *ret_n)
{
        _cleanup_free_ char *dir = NULL;
        _cleanup_close_ int fd = -EBADF;
        _Alignas(struct dirent64) char buf[512];
        size_t n = 0;
        ssize_t got = 0;
        int r;

        r = proc_task_path(&dir, proc_root, pid, 0, "task");
        if (r < 0)
                return r;
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        while (n < max && (got = getdents64(fd, buf, sizeof(buf))) > 0) {
                for (ssize_t off = 0; off < got && n < max;) {
                        const struct dirent64 *de = (const struct dirent64 *)(buf + off);
                        pid_t tid;

                        if (de->d_reclen == 0)
                                return -EIO;
                        off += de->d_reclen;
                        if (parse_pid(de->d_name, &tid) >= 0 && tid != pid)
                                tids[n++] = tid;
                }
        }
        if (got < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        *ret_n = n;
        return 0;
}

/* FILE through the first PROC_LIVE_TRIES threads of PID other than its
 * main thread, until one answers. */
static int read_through_threads(const char *proc_root, pid_t pid, const char *file,
                                ProcFileReader read, void *userdata)
{
        pid_t tids[PROC_LIVE_TRIES];
        size_t n = 0;
        int r;

        r = first_threads(proc_root, pid, tids, PROC_LIVE_TRIES, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                bool next;

                r = read_thread(proc_root, pid, tids[i], file, read, userdata, &next);
                if (!next)
                        return r;
        }
        /* Every thread tried exited as it was read, or there was none. */
        return proc_leader_exited(proc_root, pid) ? -EAGAIN : -ESRCH;
}

int proc_read_live(const char *proc_root, pid_t pid, ProcLeader *leader, const char *file,
                   ProcFileReader read, void *userdata)
{
        if (!proc_root)
                proc_root = "/proc";
        if (*leader != PROC_LEADER_EXITED) {
                _cleanup_free_ char *p = NULL;
                int r;

                r = proc_task_path(&p, proc_root, pid, 0, file);
                if (r < 0)
                        return r;
                r = read(p, userdata);
                if (!nothing(r) || *leader == PROC_LEADER_ONLY)
                        return r;
                /* Nothing there: the main thread may have exited (since its
                 * stat was read) while the others run; one stat read says,
                 * for the caller's next file too. */
                *leader = proc_leader_exited(proc_root, pid) ? PROC_LEADER_EXITED
                                                             : PROC_LEADER_ONLY;
                if (*leader == PROC_LEADER_ONLY)
                        return r;
        }
        return read_through_threads(proc_root, pid, file, read, userdata);
}
