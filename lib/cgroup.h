/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Cgroup access: attribute files, member lists, path handling and tree walks
 * under a cgroup2 root given as a directory (the real mount or a test's own
 * tree), and finding the cgroup2 mount.
 *
 * Writes go straight to the interface files. libcgroup is not used here:
 * its cgroup_init() builds its mount table from /proc/mounts and cannot be
 * pointed at an arbitrary directory (latniced --cgroup-root, tests), and on
 * hybrid hosts (cgroup2 at /sys/fs/cgroup/unified beside v1 controllers) its
 * v2 support picks controllers per hierarchy rather than the one tree we
 * need. A cgroup attribute write is a single write() of one line, which is
 * also what libcgroup does underneath; doing it directly keeps one
 * consistent path for real and test roots and gives us the exact errno.
 *
 * A cgroup that vanished between listing and access is normal (a unit
 * stopped): every function maps ENOENT/ENODEV to -ENOENT and logs nothing.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Write VALUE to DIR/FILE. -ENOENT if the cgroup or file is gone (ENODEV,
 * which the kernel returns for files of a removed cgroup, included). */
int cg_write(const char *dir, const char *file, const char *value);
/* Contents of DIR/FILE without the trailing newline. */
int cg_read(const char *dir, const char *file, char **ret);
/* True if DIR/FILE exists. */
bool cg_has_file(const char *dir, const char *file);

/* The pids in DIR/cgroup.procs, or the tids of every thread in
 * DIR/cgroup.threads, in file order (not sorted, may repeat on cgroup v1). */
int cg_read_procs(const char *dir, pid_t **ret, size_t *ret_n);
int cg_read_threads(const char *dir, pid_t **ret, size_t *ret_n);

/* "ROOT/REL" with exactly one '/' between them; REL "" or "/" is ROOT. */
int cg_path_join(const char *root, const char *rel, char **ret);
/* A cgroup path as found in /proc/PID/cgroup made canonical: leading '/', no
 * trailing '/', no empty components ("/" for the root). -EINVAL for NULL and
 * for "." or ".." components. */
int cg_path_normalize(const char *path, char **ret);

/*
 * Pre-order walk of ROOT and every cgroup below it (directories only, no
 * symlinks, at most CG_WALK_DEPTH_MAX levels). CB gets the full path and the
 * path relative to ROOT ("/" for the root, "/system.slice/foo.service" ...).
 * CB returns < 0 to stop the walk with that error, CG_WALK_SKIP to not
 * descend into this directory, 0 to continue. Directories that vanish
 * during the walk are skipped. ROOT itself missing: -ENOENT.
 */
#define CG_WALK_SKIP 1
#define CG_WALK_DEPTH_MAX 128
typedef int (*cg_walk_func_t)(const char *path, const char *rel, void *userdata);
int cg_walk(const char *root, cg_walk_func_t cb, void *userdata);

/* The cgroup2 mount point from /proc/self/mounts (first "cgroup2" entry).
 * -ENOENT if there is none. */
int cg_find_mount(char **ret);
/* Same, from a mounts file in /proc/self/mounts format (octal escapes such as
 * \040 in the mount point are decoded). */
int cg_find_mount_in(const char *mounts_path, char **ret);

/* 1 if FILE exists in ROOT or in any direct child directory of ROOT (the
 * root cgroup has no cpu.* interface files of its own), 0 if not. */
int cg_tree_has_file(const char *root, const char *file);
/* 1 if CONTROLLER is listed in ROOT/cgroup.controllers, 0 if not. */
int cg_has_controller(const char *root, const char *controller);
