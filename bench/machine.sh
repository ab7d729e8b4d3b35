#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# bench/machine.sh: the machine a benchmark ran on, one "machine: KEY: VALUE"
# line each; every benchmark in bench/ prints them first (docs/benchmarks.md
# says what they mean). The kernel's lines come from latnicectl kernel
# --machine (the kernel version string, the preemption model, HZ, autogroup,
# the sched_ext state and scheduler, the latnice settings that act: the same
# reading as latnicectl kernel, lib/sched-info.c); this script adds the CPU
# model and count, whether it is a virtual machine, and which cgroup
# controllers are mounted where.
#
# usage: bench/machine.sh [LATNICECTL]
#   LATNICECTL: default the build directory's (BUILD/cli/latnicectl, with
#   BUILD from $LATNICE_BUILD, else build/ beside bench/), else latnicectl on
#   PATH. Without one the kernel lines say "unknown (no latnicectl)".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ctl=${1:-}
if [ -z "$ctl" ]; then
        ctl=${LATNICE_BUILD:-$here/../build}/cli/latnicectl
        [ -x "$ctl" ] || ctl=$(command -v latnicectl 2>/dev/null || true)
fi

if [ -n "$ctl" ] && [ -x "$ctl" ] && "$ctl" kernel --machine 2>/dev/null; then
        :
else
        echo "machine: kernel: $(uname -r) $(uname -v)"
        echo "machine: preemption: unknown (no latnicectl)"
        echo "machine: HZ: unknown (no latnicectl)"
        case $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null) in
        1) autogroup=on ;;
        0) autogroup=off ;;
        *) autogroup=unsupported ;;
        esac
        echo "machine: autogroup: $autogroup"
        echo "machine: sched_ext: $(cat /sys/kernel/sched_ext/state 2>/dev/null || echo absent)"
fi

# CPU: the model of the first CPU (or its architecture), online/present count
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
[ -n "$model" ] || model=$(uname -m)
echo "machine: CPU: $model, $(nproc) online of $(nproc --all)"

# Virtualization: systemd-detect-virt when present, a virtual machine and a
# container apart ("none": neither); else, and in any case, the hypervisor
# CPU flag and the DMI product name.
product=$(cat /sys/class/dmi/id/product_name 2>/dev/null || echo unknown)
flag=no
grep -qw hypervisor /proc/cpuinfo 2>/dev/null && flag=yes
if command -v systemd-detect-virt >/dev/null 2>&1; then
        vm=$(systemd-detect-virt --vm 2>/dev/null)
        ct=$(systemd-detect-virt --container 2>/dev/null)
        echo "machine: virtualization: VM ${vm:-none}, container ${ct:-none} (systemd-detect-virt); hypervisor CPU flag: $flag; DMI product: $product"
else
        echo "machine: virtualization: hypervisor CPU flag: $flag; DMI product: $product (no systemd-detect-virt)"
fi

# cgroups: the cgroup2 mount and its controllers, each v1 hierarchy and its
# controllers (a controller is in one place only).
awk '
$0 ~ / - cgroup2 / { printf "%s\n", $5; next }
' /proc/self/mountinfo | while read -r m; do
        echo "machine: cgroup2: $m: $(tr '\n' ' ' <"$m/cgroup.controllers" 2>/dev/null | sed 's/ $//' |
                sed 's/^$/no controllers/')"
done
awk '
{ for (i = 1; i <= NF; i++) if ($i == "-") break }
$(i + 1) == "cgroup" {
        n = split($(i + 3), o, ",")
        c = ""
        for (k = 1; k <= n; k++)
                if (o[k] !~ /^(rw|ro|nosuid|nodev|noexec|relatime|noatime|clone_children|nsdelegate|favordynmods|xattr|release_agent=.*)$/)
                        c = c (c == "" ? "" : ",") o[k]
        printf "machine: cgroup v1: %s: %s\n", $5, c
}' /proc/self/mountinfo
exit 0
