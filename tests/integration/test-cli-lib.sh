# Shared helpers for the latnicectl integration tests (sourced, not run).
# Usage: . "$(dirname "$0")/test-cli-lib.sh"
set -uo pipefail

PY=/usr/bin/python3
CTL=$(readlink -f "${CTL:?}")
T=$(mktemp -d /tmp/latnicectl-test.XXXXXX)
PIDS=()

cleanup() {
        local p
        for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
        wait 2>/dev/null
        rm -rf "$T"
}
trap cleanup EXIT

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

skip() {
        echo "SKIP: $*"
        exit 77
}

need_root() {
        [ "$(id -u)" -eq 0 ] || skip "needs root"
}

[ -x "$PY" ] || skip "$PY is missing (the tests parse JSON with it)"

# Run latnicectl ARGS..., keep stdout in $T/out, stderr in $T/err, status in $RC.
run() {
        "$CTL" "$@" >"$T/out" 2>"$T/err"
        RC=$?
}

# expect_rc N ARGS...: run and check the exit status.
expect_rc() {
        local want=$1
        shift
        run "$@"
        [ "$RC" -eq "$want" ] || {
                echo "--- stdout"; cat "$T/out"; echo "--- stderr"; cat "$T/err"
                fail "latnicectl $* exited $RC, expected $want"
        }
}

# Poll CMD... until it succeeds or TIMEOUT seconds, times the slack
# LATNICE_TEST_SLACK (default 5, for a busy machine), pass.
wait_until() {
        local timeout=$1 i
        shift
        for ((i = 0; i < timeout * 50 * ${LATNICE_TEST_SLACK:-5}; i++)); do
                "$@" && return 0
                sleep 0.02
        done
        return 1
}

# py 'python code' ARGS...: run a check in python (exit status is its verdict).
py() {
        local code=$1
        shift
        "$PY" -c "$code" "$@"
}

# fits80 FILE: every line is at most 80 characters (code points, not bytes).
fits80() {
        py 'import sys
bad = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if len(l) > 80]
if bad:
    print("wider than 80 columns:", bad[0], file=sys.stderr)
sys.exit(1 if bad else 0)' "$1"
}
