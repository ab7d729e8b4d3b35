/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bus names of org.latnice.Daemon1: the well-known name, the object path,
 * the interface and the error names, shared by latniced (daemon/bus/bus.c) and
 * latnicectl (cli/busctl.c). The API is in man/org.latnice.Daemon1.5.scd.
 */
#pragma once

#define LATNICE_BUS_NAME "org.latnice.Daemon1"
#define LATNICE_BUS_PATH "/org/latnice/Daemon1"
#define LATNICE_BUS_INTERFACE "org.latnice.Daemon1"

#define LATNICE_BUS_ERROR_ACCESS_DENIED "org.latnice.Daemon1.Error.AccessDenied"
#define LATNICE_BUS_ERROR_NO_SUCH_PROCESS "org.latnice.Daemon1.Error.NoSuchProcess"
#define LATNICE_BUS_ERROR_REFUSED "org.latnice.Daemon1.Error.Refused"
