#!/usr/bin/env bash
# A process that forks and exits before latniced has read it does not take
# its child out of the policy. An unprivileged user (nobody) runs a storm of
# processes nothing matches, which latniced then reads in batches (every
# 2 ms, see latniced(8)), and meanwhile, 30 times, a program a rule demotes
# (Nice=7) that forks at once and exits: its exec is read together with its
# exit, or after its fork, and the child, which never calls exec, must
# still get the rule's settings (the kernel's nice value, ln-getattr).
#   $4: ln-storm, $5: ln-forkexit
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
STORM=${4:?ln-storm path}
FORKEXIT=${5:?ln-forkexit path}
ROUNDS=30

cat >"$POL/50-forkexit.policy" <<'P'
[Rule demoted]
Match = name:lt-forkexit-*
Nice = 7
P
mkdir "$T/bin"
cp "$FORKEXIT" "$T/bin/lt-forkexit-x"
chmod 755 "$T" "$T/bin" "$T/bin/lt-forkexit-x"

start_daemon --log-level info

"${NOBODY[@]}" "$STORM" 100000000 2 >/dev/null &
storm=$!
PIDS+=("$storm")
sleep 0.5

kids=$T/kids
: >"$kids"
for _ in $(seq $ROUNDS); do
        "${NOBODY[@]}" "$T/bin/lt-forkexit-x" >>"$kids" || fail "lt-forkexit-x failed"
        sleep 0.05
done
wait_until 5 eval '[ "$(grep -c "^child=" "$kids")" -eq '$ROUNDS' ]' || fail "not every child started"
kill "$storm"
for c in $(sed -n 's/^child=\([0-9]*\).*/\1/p' "$kids"); do
        PIDS+=("$c")
done

all_demoted() {
        local c
        for c in $(sed -n 's/^child=\([0-9]*\).*/\1/p' "$kids"); do
                attr_is "$c" nice 7 || return 1
        done
}
wait_until 5 all_demoted
escaped=0
for c in $(sed -n 's/^child=\([0-9]*\).*/\1/p' "$kids"); do
        [ "$(stat -c %u "/proc/$c")" = 65534 ] || fail "child $c does not run as nobody"
        attr_is "$c" nice 7 && continue
        escaped=$((escaped + 1))
        parent=$(sed -n "s/^child=$c parent=//p" "$kids")
        echo "child $c of $parent: nice $(attr "$c" nice); latniced's lines of either:"
        grep -E "(^|[^0-9])($c|$parent)([^0-9]|\$)" "$LOG" | head -n 20
done
[ $escaped -eq 0 ] || fail "$escaped of $ROUNDS children kept nice 0 (their parent forked and exited before latniced read it)"
stop_daemon || fail "exit status"
echo "PASS"
