/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Namespaces: is this process in the initial PID and user namespaces?
 *
 * latniced must be. Inside another PID namespace (systemd-nspawn,
 * `unshare --pid`, a container without the host's PID namespace) the proc
 * connector accepts the subscription and then delivers no event; inside
 * another user namespace its capabilities do not reach the host's tasks.
 * Checked by latniced at start-up and reported by latnicectl.
 */
#pragma once

#include <stdint.h>

typedef struct NamespaceCheck {
        const char *which;   /* "PID" or "user": the first that is not the initial one; NULL if both are */
        uint64_t inode;      /* its inode (as in /proc/self/ns/pid -> pid:[INODE]) */
        const char *fix;     /* what to do about it (static text) */
} NamespaceCheck;

/* Fill *RET for the calling process. Returns 1 if it is in both initial
 * namespaces, 0 if not (RET->which says which), negative errno if
 * /proc/self/ns cannot be read (no /proc: RET untouched). */
int namespace_check(NamespaceCheck *ret);
