#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Install latnice into a DESTDIR the way a distribution package would, then
# check the installed latniced.service offline:
#   - every file lands where it belongs (unit, tmpfiles.d, the daemon binary
#     at the path ExecStart= names);
#   - `systemd-analyze verify` accepts the unit without a single warning
#     (PID 1 is not needed: --root= points at the DESTDIR, completed with the
#     host's own base units and kill(1) so dependencies and ExecReload= resolve);
#   - `systemd-analyze security --offline=true` rates the exposure 2.5 or lower;
#   - D-Bus activation names the unit's alias, which only `systemctl enable`
#     creates, so a bus call never starts a disabled latniced.
#
# Usage: test-systemd-verify.sh BUILD_ROOT
# Needs no root.
set -eu -o pipefail

build_root=${1:?usage: $0 BUILD_ROOT}

if ! command -v systemd-analyze >/dev/null; then
        echo "SKIP: systemd-analyze not installed" >&2
        exit 77
fi

tmp=$(mktemp -d /tmp/latnice-verify.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

echo "# meson install into $root"
DESTDIR=$root meson install -C "$build_root" --no-rebuild --quiet >"$tmp/install.log" 2>&1 ||
        { cat "$tmp/install.log" >&2; fail "meson install failed"; }

# Where the unit went: ask pkg-config as meson did.
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || true)
tmpfilesdir=$(pkg-config --variable=tmpfilesdir systemd 2>/dev/null || true)
unit=$(find "$root" -path "*${unitdir:-/lib/systemd/system}/latniced.service" -print -quit)
[ -n "$unit" ] || fail "latniced.service not installed under ${unitdir:-<prefix>/lib/systemd/system}"
echo "# unit: ${unit#"$root"}"
tmpfiles=$(find "$root" -path "*${tmpfilesdir:-/lib/tmpfiles.d}/latnice.conf" -print -quit)
[ -n "$tmpfiles" ] || fail "tmpfiles.d/latnice.conf not installed under ${tmpfilesdir:-<prefix>/lib/tmpfiles.d}"

# The unit must name the installed daemon.
exec_start=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit")
case "$exec_start" in
/*) ;;
*) fail "ExecStart= is not an absolute path: '$exec_start'" ;;
esac
[ -x "$root$exec_start" ] || fail "ExecStart= names $exec_start, which meson did not install"
grep -q '@[A-Z_]*@' "$unit" && fail "unsubstituted @VARIABLE@ left in the unit"

# Complete the root with what a real system has: the base units the unit
# depends on implicitly (sysinit.target, basic.target, ...) and kill(1) for
# ExecReload=. Files meson installed are never overwritten.
for d in /usr/lib/systemd/system /lib/systemd/system; do
        [ -d "$d" ] || continue
        mkdir -p "$root$d"
        cp -a -n "$d/." "$root$d/" 2>/dev/null || true
done
kill_path=$(sed -n 's/^ExecReload=\([^ ]*\).*/\1/p' "$unit")
case "$kill_path" in
/*)
        mkdir -p "$(dirname "$root$kill_path")"
        [ -e "$root$kill_path" ] || cp "$(readlink -f "$kill_path")" "$root$kill_path"
        ;;
esac

# Check man pages named in Documentation= when they were built and installed.
man_args=(--man=no)
mandir=$(find "$root" -type d -path '*/share/man' -print -quit)
if [ -n "$mandir" ] && [ -e "$mandir/man8/latniced.8" ]; then
        missing=0
        for page in $(sed -n 's/^Documentation=//p' "$unit"); do
                page=${page#man:}
                name=${page%(*}
                sec=${page#*(}
                sec=${sec%)}
                [ -e "$mandir/man$sec/$name.$sec" ] || { echo "# not installed: $page"; missing=1; }
        done
        if [ "$missing" = 0 ]; then
                man_args=(--man=yes)
                export MANPATH=$mandir
        fi
fi
echo "# systemd-analyze verify --root=$root ${man_args[*]} latniced.service"
rc=0
SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --root="$root" "${man_args[@]}" \
        latniced.service >"$tmp/verify.out" 2>&1 || rc=$?
cat "$tmp/verify.out"
[ "$rc" = 0 ] || fail "systemd-analyze verify exited $rc"
[ -s "$tmp/verify.out" ] && fail "systemd-analyze verify printed warnings"

echo "# systemd-analyze security --offline=true"
rc=0
systemd-analyze security --offline=true --threshold=25 --root="$root" "$unit" \
        >"$tmp/security.out" 2>&1 || rc=$?
grep -v '✓' "$tmp/security.out" || true
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' "$tmp/security.out")
[ -n "$score" ] || fail "no exposure score in the output"
echo "# exposure score: $score"
[ "$rc" = 0 ] || fail "exposure score $score is above 2.5"
awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }' || fail "exposure score $score is above 2.5"

echo "# D-Bus activation goes through the alias of an enabled unit"
activation=$(find "$root" -path '*/dbus-1/system-services/org.latnice.Daemon1.service' -print -quit)
[ -n "$activation" ] || fail "org.latnice.Daemon1.service not installed under share/dbus-1/system-services"
alias=$(sed -n 's/^SystemdService=//p' "$activation")
[ "$alias" = dbus-org.latnice.Daemon1.service ] ||
        fail "${activation#"$root"}: SystemdService=$alias, expected the alias dbus-org.latnice.Daemon1.service (a disabled unit would be bus-started)"
grep -qx "Alias=$alias" "$unit" || fail "latniced.service has no [Install] Alias=$alias"
[ -e "$root/etc/systemd/system/$alias" ] && fail "$alias exists before systemctl enable"
if command -v systemctl >/dev/null; then
        systemctl --root="$root" enable latniced.service >"$tmp/enable.out" 2>&1 ||
                { cat "$tmp/enable.out" >&2; fail "systemctl --root enable latniced.service failed"; }
        target=$(readlink "$root/etc/systemd/system/$alias") ||
                fail "systemctl enable did not create /etc/systemd/system/$alias"
        [ "$(basename "$target")" = latniced.service ] || fail "$alias points to $target, not latniced.service"
        systemctl --root="$root" disable latniced.service >"$tmp/disable.out" 2>&1 ||
                { cat "$tmp/disable.out" >&2; fail "systemctl --root disable latniced.service failed"; }
        [ -e "$root/etc/systemd/system/$alias" ] && fail "$alias still exists after systemctl disable"
        echo "# enable creates $alias -> latniced.service, disable removes it"
fi

echo "PASS"
