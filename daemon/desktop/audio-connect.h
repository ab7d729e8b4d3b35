/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Connecting to a user's PipeWire socket safely: latniced is root, the
 * socket and the directory it is in (/run/user/UID) are the user's.
 *
 * The directory is opened with O_PATH|O_NOFOLLOW and must be owned by UID;
 * the socket in it must be a socket (not a symbolic link) owned by UID; it
 * is connected through the opened directory (/proc/self/fd/N/NAME), without
 * blocking; and the process listening on it must be of UID (SO_PEERCRED),
 * whatever happened to the path in between. Only then does libpipewire get
 * the connected socket (daemon/desktop/audio-pw.c).
 */
#pragma once

#include <sys/types.h>

/*
 * Connect to socket NAME in directory UID below the directory ROOT_FD
 * (/run/user). Returns the connected socket (non-blocking, close-on-exec),
 * or: -ENOENT no directory or socket; -EPERM something there is not UID's
 * or not a socket, or the peer is not of UID (*RET_WHY says what); -EAGAIN
 * the server's backlog is full; -ECONNREFUSED nobody listens; another
 * negative errno.
 */
int audio_connect_user(int root_fd, uid_t uid, const char *name, const char **ret_why);
