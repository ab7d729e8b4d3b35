/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pager: long output on a terminal goes through a pager, as systemd's tools
 * do. $SYSTEMD_PAGER, else $PAGER, else less, else more; an empty value or
 * "cat" means none. less gets LESS=FRSXMK (quit if one screen, raw colours,
 * chop long lines, no init, quit on Ctrl-C), or $SYSTEMD_LESS if set, and
 * LESSCHARSET=utf-8 in a UTF-8 locale (or $SYSTEMD_LESSCHARSET).
 */
#pragma once

#include <sys/types.h>

/* Start the pager if stdout is a terminal and one is wanted, and point
 * stdout at it. Returns the pager's pid, 0 if none was started, or a
 * negative errno (the output then goes to the terminal as it is). */
pid_t pager_open(void);
/* Flush stdout, give the pager end of file and wait until the user quits
 * it. Does nothing for PID 0. */
void pager_close(pid_t pid);
