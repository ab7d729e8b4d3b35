/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small file and number helpers shared by lib/ (no policy, no logging).
 *
 * Every function returns 0 or a negative errno and leaves its ret_ outputs
 * untouched on failure.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Default cap for files whose content another process controls (cmdline, stat). */
#define READ_FULL_FILE_MAX (1024u * 1024u)

/*
 * Read all of PATH (also /proc and sysfs files that report size 0) into a
 * NUL-terminated buffer grown as needed. More than MAX bytes: -EFBIG.
 * RET_SIZE (optional) gets the number of bytes read, without the added NUL.
 */
int read_full_file(const char *path, size_t max, char **ret, size_t *ret_size);
/* The same from an open file descriptor, read from its current offset to its end. */
int read_full_fd(int fd, size_t max, char **ret, size_t *ret_size);
/*
 * The first MAX bytes of PATH, NUL-terminated, for files whose length another
 * process controls but only whose beginning matters (/proc/PID/cmdline,
 * /proc/PID/status): a longer file is cut at MAX bytes, not an error.
 * *RET_TRUNCATED (optional) says whether it was cut. MAX must be below
 * SIZE_MAX - 2.
 */
int read_file_head(const char *path, size_t max, char **ret, size_t *ret_size,
                   bool *ret_truncated);
/* Both, and more: READ_TRUNCATE cuts at MAX as read_file_head() does;
 * READ_SHORT_IS_END takes a read() that returns less than asked for as the
 * end, which saves procfs files (handed over whole) the read() that would
 * return 0. */
enum {
        READ_TRUNCATE = 1u << 0,
        READ_SHORT_IS_END = 1u << 1,
};
int read_file_flags(const char *path, size_t max, unsigned flags, char **ret, size_t *ret_size,
                    bool *ret_truncated);
/* First line of PATH without its trailing newline. */
int read_one_line_file(const char *path, char **ret);
/*
 * Write VALUE (no newline added) to an existing file with a single write(),
 * as kernel interface files (procfs, sysfs, cgroupfs) want one value per
 * write(). The file is opened with O_TRUNC: a no-op on those file systems,
 * but a regular file (a test's stand-in tree) must not keep the tail of a
 * longer old value ("0" after "-15"). A short write is -EIO.
 */
int write_string_file(const char *path, const char *value);

/* Strict decimal parsing: optional sign (not for unsigned), no trailing junk
 * except one trailing newline. -EINVAL or -ERANGE. */
int safe_atoi(const char *s, int *ret);
int safe_atoi64(const char *s, int64_t *ret);
int safe_atou64(const char *s, uint64_t *ret);
int safe_atou32(const char *s, uint32_t *ret);
int parse_pid(const char *s, pid_t *ret); /* > 0 */

/* readlink() with a growing buffer. */
int readlink_malloc(const char *path, char **ret);
/* The part after the last '/', or NULL when that is empty. Points into PATH. */
const char *path_basename(const char *path);

/*
 * The name of user ID (GROUP false) or group ID from NSS (getpwuid_r(),
 * getgrgid_r(), with a buffer grown as needed): 0 and *RET, NULL when there
 * is no such id; -ENOMEM; another negative errno when the lookup itself
 * failed (EIO, EMFILE, ...: worth trying again later).
 */
int id_to_name(bool group, uint32_t id, char **ret);

/* Thread id of the caller. */
pid_t ln_gettid(void);

/* pidfd_open(2) of process PID (close-on-exec). -ESRCH: no such process;
 * -EINVAL (-ENOENT since Linux 6.9): PID is a thread, not a thread group
 * leader; -ENOSYS or -EPERM (seccomp): no pidfds here. */
int pidfd_open_process(pid_t pid);
/* 1 while the process of PIDFD runs, 0 once it has exited (a zombie counts
 * as exited), negative errno if that cannot be told. A pidfd turns readable
 * when its process exits; poll(2) needs no permission to signal it (latniced
 * runs without CAP_KILL, so pidfd_send_signal(0) would fail with EPERM for
 * other users' processes). While it returns 1, the pid names that process:
 * a pid is reused only after its process exited and was reaped. */
int pidfd_process_alive(int pidfd);
