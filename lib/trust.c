/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/macro.h"
#include "lib/proc-live.h"
#include "lib/proc.h"
#include "lib/sched.h"
#include "lib/tamper.h"
#include "lib/trust.h"
#include "lib/util.h"

static int untrusted(char **ret_reason, const char *fmt, ...) _printf_(2, 3);
static int untrusted(char **ret_reason, const char *fmt, ...)
{
        va_list ap;
        int r;

        if (!ret_reason)
                return 0;
        va_start(ap, fmt);
        r = vasprintf(ret_reason, fmt, ap);
        va_end(ap);
        if (r < 0) {
                *ret_reason = NULL;
                return -ENOMEM;
        }
        return 0;
}

/* "owned by uid 1000", "writable by group", "writable by others", or NULL
 * when ST is root's and only root may write it. */
static const char *ownership_problem(const struct stat *st, char buf[static 32])
{
        if (st->st_uid != 0) {
                snprintf(buf, 32, "owned by uid %u", (unsigned)st->st_uid);
                return buf;
        }
        if (st->st_mode & S_IWOTH)
                return "writable by others";
        if (st->st_mode & S_IWGRP)
                return "writable by group";
        return NULL;
}

int exe_path_trusted(const char *path, const struct stat *st, bool check_path, char **ret_reason)
{
        _cleanup_free_ char *dir = NULL;
        const char *problem;
        char buf[32];
        struct stat dst;

        if (!path || path[0] != '/')
                return untrusted(ret_reason, "exe %s: not an absolute path", strna(path));
        if (!S_ISREG(st->st_mode))
                return untrusted(ret_reason, "exe %s: not a regular file", path);
        problem = ownership_problem(st, buf);
        if (problem)
                return untrusted(ret_reason, "exe %s: %s", path, problem);
        if (check_path) {
                if (stat(path, &dst) < 0 || dst.st_dev != st->st_dev || dst.st_ino != st->st_ino)
                        return untrusted(ret_reason,
                                         "exe %s: the path does not lead to the running file",
                                         path);
        }

        dir = strdup(path);
        if (!dir)
                return -ENOMEM;
        for (;;) {
                char *slash = strrchr(dir, '/');

                if (!slash)
                        break;
                if (slash == dir)
                        slash[1] = 0; /* "/" itself, last */
                else
                        *slash = 0;
                if (lstat(dir, &dst) < 0)
                        return untrusted(ret_reason, "exe %s: cannot check directory %s: %s",
                                         path, dir, strerror(errno));
                if (!S_ISDIR(dst.st_mode))
                        return untrusted(ret_reason, "exe %s: %s is not a directory", path,
                                         dir);
                problem = ownership_problem(&dst, buf);
                if (problem)
                        return untrusted(ret_reason, "exe %s: directory %s is %s", path, dir,
                                         problem);
                if (streq(dir, "/"))
                        break;
        }
        return 1;
}

static int task_path(const char *proc_root, pid_t pid, const char *file, char **ret)
{
        if (asprintf(ret, "%s/%d/%s", proc_root ?: "/proc", (int)pid, file) < 0) {
                *ret = NULL;
                return -ENOMEM;
        }
        return 0;
}

int mountinfo_fuse_dev(const char *buf, unsigned major, unsigned minor)
{
        for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                unsigned ma, mi;
                const char *sep, *eol = strchrnul(l, '\n');

                /* "ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE ..." */
                if (sscanf(l, "%*u %*u %u:%u", &ma, &mi) != 2 || ma != major || mi != minor)
                        continue;
                sep = memmem(l, (size_t)(eol - l), " - ", 3);
                if (!sep)
                        continue;
                sep += 3;
                if (eol - sep >= 4 && memcmp(sep, "fuse", 4) == 0 &&
                    (sep[4] == ' ' || sep[4] == '.' || strncmp(sep + 4, "blk ", 4) == 0))
                        return 1;
        }
        return 0;
}

/* Is the device DEV one of a FUSE mount in latniced's own mount table? A
 * FUSE filesystem says whatever its server wants about who owns its files,
 * and its server can hold every call that reaches it. Only anonymous
 * devices (major 0) can be FUSE; -errno if the table cannot be read. */
static int on_fuse(dev_t dev)
{
        _cleanup_free_ char *buf = NULL;
        int r;

        if (major(dev) != 0)
                return 0;
        r = read_full_file("/proc/self/mountinfo", READ_FULL_FILE_MAX, &buf, NULL);
        if (r < 0)
                return r;
        return mountinfo_fuse_dev(buf, major(dev), minor(dev));
}

/* Is the mount with id MNT_ID in latniced's own mount table? 1 or 0;
 * -errno if the table cannot be read. */
static int mount_is_ours(uint64_t mnt_id)
{
        _cleanup_free_ char *buf = NULL;
        int r;

        r = read_full_file("/proc/self/mountinfo", READ_FULL_FILE_MAX, &buf, NULL);
        if (r < 0)
                return r;
        return mountinfo_has_mount(buf, mnt_id);
}

int mountinfo_has_mount(const char *buf, uint64_t mnt_id)
{
        for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                unsigned long long id;

                if (sscanf(l, "%llu ", &id) == 1 && id == mnt_id)
                        return 1;
        }
        return 0;
}

/* A ProcFileReader: stat() of PATH into *USERDATA (a struct stat). */
static int stat_at(const char *path, void *userdata)
{
        return stat(path, userdata) < 0 ? -errno : 1;
}

int proc_same_mount_ns(const char *proc_root, pid_t pid)
{
        ProcLeader leader = PROC_LEADER_UNKNOWN;
        struct stat a, b;
        int r;

        /* A main thread that has exited has let go of its namespaces: a
         * live thread's link then (lib/proc-live.h). */
        r = proc_read_live(proc_root, pid, &leader, "ns/mnt", stat_at, &a);
        if (r < 0)
                return r == -ENOENT ? -ESRCH : r;
        if (stat("/proc/self/ns/mnt", &b) < 0)
                return -errno;
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * The exe was deleted (no links left): its path, as its process's mount
 * namespace names it, leads nowhere to check. Only where that namespace is
 * latniced's own, and the file's mount is in latniced's table (an exe can be
 * reached through another namespace's mounts: /proc/PID/root, an fd passed
 * over a socket), does the path say where root had it.
 */
static int deleted_exe_checkable(const char *proc_root, pid_t pid, uint64_t mnt_id,
                                 bool have_mnt_id, char **ret_reason)
{
        int r;

        r = proc_same_mount_ns(proc_root, pid);
        if (r == -ESRCH || r == -ENOMEM)
                return r;
        if (r < 0)
                return untrusted(ret_reason,
                                 "its exe was deleted and its mount namespace cannot be read "
                                 "(%s), so its path cannot be checked", strerror(-r));
        if (r == 0)
                return untrusted(ret_reason,
                                 "its exe was deleted and it runs in another mount namespace, "
                                 "where its path cannot be checked");
        if (!have_mnt_id)
                return untrusted(ret_reason,
                                 "its exe was deleted and its mount cannot be told");
        r = mount_is_ours(mnt_id);
        if (r < 0)
                return untrusted(ret_reason, "cannot read latniced's mount table: %s",
                                 strerror(-r));
        if (r == 0)
                return untrusted(ret_reason,
                                 "its exe was deleted and lies on a mount of another mount "
                                 "namespace, where its path cannot be checked");
        return 1;
}

/* The running inode of an exe link and its attributes. */
typedef struct ExeOpen {
        int fd;
        struct statx stx;
} ExeOpen;

/* A ProcFileReader: the inode behind the exe link PATH, opened (O_PATH) and
 * its attributes as the kernel has them (AT_STATX_DONT_SYNC: a FUSE server
 * is not asked before on_fuse() has said whether it is one). */
static int exe_open_at(const char *path, void *userdata)
{
        ExeOpen *e = userdata;
        _cleanup_close_ int fd = -EBADF;

        e->fd = safe_close(e->fd);
        fd = open(path, O_PATH | O_CLOEXEC);
        if (fd < 0 || statx(fd, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC,
                            STATX_BASIC_STATS | STATX_MNT_ID, &e->stx) < 0)
                return -errno;
        e->fd = TAKE_FD(fd);
        return 1;
}

/* The running inode of PID (PROC_ROOT/PID/exe, or a live thread's when its
 * main thread has exited: lib/proc-live.h) in *RET_FD and *RET_STX. 1, or
 * what proc_exe_trusted() returns when it cannot be had. */
static int exe_open(const char *proc_root, pid_t pid, int *ret_fd, struct statx *ret_stx,
                    char **ret_reason)
{
        ProcLeader leader = PROC_LEADER_UNKNOWN;
        ExeOpen e = { .fd = -EBADF };
        int r;

        r = proc_read_live(proc_root, pid, &leader, "exe", exe_open_at, &e);
        if (r < 0) {
                safe_close(e.fd);
                if (r == -ENOMEM)
                        return r;
                if (r == -ENOENT || r == -ESRCH) {
                        _cleanup_free_ char *dir = NULL;

                        /* No process, or a process without an exe. */
                        if (task_path(proc_root, pid, "", &dir) < 0)
                                return -ENOMEM;
                        if (access(dir, F_OK) < 0)
                                return -ESRCH;
                }
                return untrusted(ret_reason, "cannot read its exe: %s", strerror(-r));
        }
        *ret_fd = e.fd;
        *ret_stx = e.stx;
        return 1;
}

int proc_exe_trusted(const char *proc_root, pid_t pid, char **ret_reason)
{
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char self[64], buf[32];
        bool deleted;
        struct statx stx = {};
        struct stat st;
        int r;

        r = exe_open(proc_root, pid, &fd, &stx, ret_reason);
        if (r <= 0)
                return r;
        st = (struct stat){ .st_mode = stx.stx_mode, .st_uid = stx.stx_uid, .st_gid = stx.stx_gid,
                            .st_ino = stx.stx_ino,
                            .st_dev = makedev(stx.stx_dev_major, stx.stx_dev_minor) };
        r = on_fuse(st.st_dev);
        if (r < 0)
                return untrusted(ret_reason, "cannot tell its filesystem: %s", strerror(-r));
        if (r > 0)
                return untrusted(ret_reason,
                                 "its exe is on a FUSE filesystem, whose server says who owns "
                                 "its files");
        /* The path of the very file statted above (not of an exe the process
         * may have exec'd since), as latniced's root names it. */
        snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
        r = readlink_malloc(self, &path);
        if (r < 0) {
                if (r == -ENOMEM)
                        return r;
                return untrusted(ret_reason, "cannot read its exe: %s", strerror(-r));
        }
        /* Deleted is what the file says, never what its name says. */
        deleted = (stx.stx_mask & STATX_NLINK) && stx.stx_nlink == 0;
        /* The file's own problems first: they say the most. */
        if (!S_ISREG(st.st_mode) || ownership_problem(&st, buf))
                return exe_path_trusted(path, &st, false, ret_reason);
        if (deleted) {
                r = deleted_exe_checkable(proc_root, pid, stx.stx_mnt_id,
                                          stx.stx_mask & STATX_MNT_ID, ret_reason);
                if (r <= 0)
                        return r;
                (void)exe_link_strip_deleted(path, true);
        }
        /* Not deleted: the path must lead to this file in latniced's own
         * mount namespace, whichever namespace the process runs in. */
        return exe_path_trusted(path, &st, !deleted, ret_reason);
}

int proc_real_uid(const char *proc_root, pid_t pid, uid_t *ret)
{
        _cleanup_free_ char *path = NULL;
        _cleanup_close_ int fd = -EBADF;
        char buf[4096];
        uint32_t uid;
        ssize_t n;
        int r;

        r = task_path(proc_root, pid, "status", &path);
        if (r < 0)
                return r;
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        /* "Uid:" is among the first ten lines; the rest (Groups: can be
         * huge) is not needed. */
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return -errno;
        if (n == 0)
                return -ESRCH;
        buf[n] = 0;
        r = proc_status_get_u32(buf, (size_t)n, "Uid", &uid);
        if (r < 0)
                return r;
        *ret = (uid_t)uid;
        return 0;
}

/* The hard limit of the "Max nice priority" line of a limits file. */
int proc_limits_nice_max(const char *buf, uint64_t *ret)
{
        static const char key[] = "Max nice priority";
        const char *line = buf, *p;
        char soft[32], hard[32];

        for (;;) {
                if (strncmp(line, key, strlen(key)) == 0)
                        break;
                line = strchr(line, '\n');
                if (!line)
                        return -ENODATA;
                line++;
        }
        p = line + strlen(key);
        if (sscanf(p, " %31s %31s", soft, hard) != 2)
                return -EIO;
        if (streq(hard, "unlimited")) {
                *ret = UINT64_MAX;
                return 0;
        }
        return safe_atou64(hard, ret);
}

int proc_nice_floor(const char *proc_root, pid_t pid, int *ret)
{
        _cleanup_free_ char *path = NULL, *buf = NULL;
        uint64_t max;
        int r;

        /* /proc/PID/limits is readable by anyone; prlimit() on another
         * user's process would need CAP_SYS_RESOURCE. */
        r = task_path(proc_root, pid, "limits", &path);
        if (r < 0)
                return r;
        r = read_full_file(path, 64 * 1024, &buf, NULL);
        if (r == -ENOENT)
                return -ESRCH;
        if (r < 0)
                return r;
        r = proc_limits_nice_max(buf, &max);
        if (r < 0)
                return r;
        /* setpriority() allows nice N when 20 - N <= RLIMIT_NICE; a user
         * may raise its soft limit up to the hard one. */
        *ret = max >= 40 ? -20 : 20 - (int)max;
        return 0;
}

void boost_facts_done(BoostFacts *f)
{
        free(f->reason);
        f->reason = NULL;
        free(f->tamper_reason);
        f->tamper_reason = NULL;
        free(f->name_reason);
        f->name_reason = NULL;
}

int boost_facts_get(BoostFactsCache *c, const BoostFacts **ret)
{
        BoostFacts f = { .nice_floor = 20 };
        uid_t uid = c->uid;
        int r;

        if (c->have) {
                *ret = &c->facts;
                return 0;
        }
        if (uid == (uid_t)-1) {
                r = proc_real_uid(c->proc_root, c->pid, &uid);
                if (r == -ENOMEM || r == -ESRCH)
                        return r;
                if (r < 0)
                        uid = (uid_t)-1; /* unknown: not privileged */
        }
        f.base_slice_ns = c->base_slice_ns ?: sched_base_slice();
        f.privileged = uid == 0;
        if (!f.privileged) {
                r = proc_exe_trusted(c->proc_root, c->pid, &f.reason);
                if (r < 0)
                        return r;
                f.exe_trusted = r > 0;
                /* Unknown (no permission, as for latnicectl run by a user):
                 * the user may only raise its nice. */
                if (proc_nice_floor(c->proc_root, c->pid, &f.nice_floor) < 0)
                        f.nice_floor = 20;
        }
        c->facts = f;
        c->have = true;
        *ret = &c->facts;
        return 0;
}

int boost_facts_get_tamper(BoostFactsCache *c, const BoostFacts **ret)
{
        const BoostFacts *f;
        int r;

        r = boost_facts_get(c, &f);
        if (r < 0)
                return r;
        if (!c->have_tamper && !c->facts.privileged) {
                r = proc_tampered(c->proc_root, c->pid,
                                  c->uid == (uid_t)-1 ? UINT32_MAX : (uint32_t)c->uid, c->fresh,
                                  &c->facts.tamper_reason);
                if (r < 0)
                        return r;
                c->facts.tampered = r > 0;
        }
        c->have_tamper = true;
        *ret = &c->facts;
        return 0;
}

void boost_facts_cache_done(BoostFactsCache *c)
{
        boost_facts_done(&c->facts);
        c->have = false;
        c->have_tamper = false;
}
