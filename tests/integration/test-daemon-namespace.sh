#!/usr/bin/env bash
# latniced refuses to run outside the initial PID and user namespaces (the
# proc connector delivers no events there): a clear error naming the
# namespace and the fix, exit status not 0, and latnicectl kernel and status
# say the same. Root (unshare).
set -uo pipefail
LATNICED=${1:?latniced}
LATNICECTL=${2:?latnicectl}

if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: needs root (unshare)"
        exit 77
fi
T=$(mktemp -d /tmp/latniced-ns.XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() {
        echo "FAIL: $*" >&2
        [ -f "$T/out" ] && sed 's/^/  | /' "$T/out" >&2
        exit 1
}
: >"$T/conf"
mkdir "$T/pol"

# unshare --pid --fork: latniced is pid 1 of a new PID namespace
timeout $((20 * ${LATNICE_TEST_SLACK:-5})) unshare --pid --fork -- "$LATNICED" --bus none --config "$T/conf" \
        --policy-dir "$T/pol" --state-file "$T/state" >"$T/out" 2>&1
rc=$?
[ "$rc" -ne 0 ] || fail "latniced in a new PID namespace exited 0"
[ "$rc" -ne 124 ] || fail "latniced in a new PID namespace ran (killed by timeout)"
grep -q "PID namespace that is not the host's (pid:\[[0-9]*\])" "$T/out" ||
        fail "the error does not name the PID namespace"
grep -q -- "--pid=host" "$T/out" && grep -q "hostPID: true" "$T/out" ||
        fail "the error does not name the fix"
grep -q "Ready" "$T/out" && fail "latniced said Ready in a new PID namespace"
[ -e "$T/state" ] && fail "latniced touched its state file before refusing"
echo "ok: unshare --pid --fork: refused, exit status $rc"

# a new user namespace (root mapped): the user namespace is named
if unshare --user --map-root-user true 2>/dev/null; then
        timeout $((20 * ${LATNICE_TEST_SLACK:-5})) unshare --user --map-root-user -- "$LATNICED" --bus none \
                --config "$T/conf" --policy-dir "$T/pol" --state-file "$T/state" >"$T/out" 2>&1
        rc=$?
        [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "latniced in a new user namespace: status $rc"
        grep -q "user namespace that is not the host's (user:\[[0-9]*\])" "$T/out" ||
                fail "the error does not name the user namespace"
        grep -q "hostUsers: true" "$T/out" || fail "the error does not name the fix"
        echo "ok: unshare --user: refused, exit status $rc"
else
        echo "note: unprivileged user namespaces unavailable, user namespace case not run"
fi

# latnicectl kernel (text and JSON) and status report it too
unshare --pid --fork -- "$LATNICECTL" --no-pager kernel >"$T/out" 2>&1 ||
        fail "latnicectl kernel failed in a new PID namespace"
grep -q "^Namespaces: .*not the host's PID namespace.*--pid=host" "$T/out" ||
        fail "latnicectl kernel does not report the PID namespace"
unshare --pid --fork -- "$LATNICECTL" --json kernel >"$T/out" 2>&1 ||
        fail "latnicectl --json kernel failed"
grep -q '"initial_namespaces": *false' "$T/out" && grep -q '"namespace_problem": *"PID"' "$T/out" ||
        fail "latnicectl --json kernel does not report the PID namespace"
"$LATNICECTL" --json kernel >"$T/out" 2>&1
grep -q '"initial_namespaces": *true' "$T/out" || fail "the host's namespaces are not reported as such"
unshare --pid --fork -- "$LATNICECTL" status >"$T/out" 2>&1
grep -q "not the host's PID namespace, latniced cannot run here" "$T/out" ||
        fail "latnicectl status does not say why latniced cannot run here"
echo "ok: latnicectl kernel and status report the namespace"
exit 0
