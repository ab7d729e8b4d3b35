/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The D-Bus calls latnicectl's daemon verbs share (cli/busctl.c): used by
 * verbs that live in files of their own (cli/monitor.c). Each prints what
 * went wrong and returns the exit status to return (0: went well).
 */
#pragma once

#include <systemd/sd-bus.h>

#include "cli/cli.h"

/* Connect to latniced's bus (--bus, else the system bus). */
int cli_bus_open(const CliOptions *o, sd_bus **ret);

/* A verb that takes no arguments: anything given is a usage error (2). */
int cli_no_arguments(int argc, char **argv, const char *verb);

/* Call METHOD of org.latnice.Daemon1, which takes no arguments. */
int cli_call_no_args(const CliOptions *o, sd_bus *bus, const char *method,
                     sd_bus_message **ret_reply);
