#!/usr/bin/env bash
# A DESTDIR install puts every file where Debian's own packages put theirs,
# and nothing anywhere else. The places are asked of this system where a
# Debian package or pkg-config names them (Debian 12's values otherwise):
# the unit and tmpfiles directories of systemd.pc, the D-Bus directories
# systemd's own bus files are in, zsh's $fpath, bash-completion.pc.
# Usage: test-install.sh BUILD_DIR
set -uo pipefail
BUILD=${1:?build directory}
T=$(mktemp -d /tmp/latnice-install.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() {
        echo "FAIL: $*" >&2
        exit 1
}

# the directory of the first file of PACKAGE matching PATTERN, or DEFAULT
pkg_dir() {
        local f
        f=$(dpkg -L "$1" 2>/dev/null | grep -m1 -E "$2")
        if [ -n "$f" ]; then dirname "$f"; else echo "$3"; fi
}
pc_var() {
        pkg-config --variable="$2" "$1" 2>/dev/null | grep . || echo "$3"
}

unitdir=$(pc_var systemd systemdsystemunitdir /lib/systemd/system)
tmpfilesdir=$(pc_var systemd tmpfilesdir /usr/lib/tmpfiles.d)
dbuspolicydir=$(pkg_dir systemd '/dbus-1/system\.d/org\.freedesktop\.login1\.conf$' /usr/share/dbus-1/system.d)
dbusservicedir=$(pkg_dir systemd '/dbus-1/system-services/org\.freedesktop\.login1\.service$' \
        /usr/share/dbus-1/system-services)
bashdir=$(pc_var bash-completion completionsdir /usr/share/bash-completion/completions)
zshdir=/usr/share/zsh/vendor-completions
if command -v zsh >/dev/null; then
        zsh -fc 'print -l $fpath' | grep -qx "$zshdir" || fail "$zshdir is not on zsh's \$fpath"
fi

meson install -C "$BUILD" --no-rebuild --quiet --destdir "$T/root" >"$T/log" 2>&1 ||
        { cat "$T/log" >&2; fail "meson install"; }

expected=(
        /usr/bin/latnicectl
        /usr/sbin/latniced
        "$unitdir/latniced.service"
        "$tmpfilesdir/latnice.conf"
        "$dbuspolicydir/org.latnice.Daemon1.conf"
        "$dbusservicedir/org.latnice.Daemon1.service"
        "$bashdir/latnicectl"
        "$zshdir/_latnicectl"
)
# man pages, when scdoc built them (-Dman=auto)
for page in latnicectl.1 latniced.8 latnice.policy.5 latniced.conf.5 org.latnice.Daemon1.5; do
        [ -e "$BUILD/man/$page" ] && expected+=("/usr/share/man/man${page##*.}/$page")
done
for f in "${expected[@]}"; do
        [ -f "$T/root$f" ] || fail "not installed: $f"
done
# the vendor policy, every file of policy/default
for f in "$(dirname "$0")"/../policy/default/*.policy; do
        expected+=("/usr/lib/latnice/policy.d/$(basename "$f")")
        [ -f "$T/root/usr/lib/latnice/policy.d/$(basename "$f")" ] ||
                fail "not installed: /usr/lib/latnice/policy.d/$(basename "$f")"
done

# nothing else
(cd "$T/root" && find . \( -type f -o -type l \) | sed 's|^\.||' | sort) >"$T/installed"
printf '%s\n' "${expected[@]}" | sort >"$T/expected"
extra=$(comm -23 "$T/installed" "$T/expected")
[ -z "$extra" ] || fail "installed where no Debian package would: $extra"
echo "ok: ${#expected[@]} files where Debian puts them"
