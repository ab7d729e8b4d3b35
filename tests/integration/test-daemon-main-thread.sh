#!/usr/bin/env bash
# main-thread: processes whose threads all carry the process's name, as
# Debian 12's PipeWire 0.3.65 names its data thread "pipewire": a
# main-thread:no rule reaches the other threads only (also one created after
# latniced looked at the process), a main-thread:yes rule the main thread
# only (the threads it starts inherit its nice and get their own back);
# every value read back with sched_getattr() (ln-getattr). SIGTERM gives
# every thread its original.
. "$(dirname "$0")/test-daemon-lib.sh" "$@"

cat >"$POL/50-main-thread.policy" <<'P'
[Rule data-threads]
Match = name:lt-mt && thread:lt-mt && main-thread:no
Nice = 4

[Rule main-only]
Match = name:lt-mt-main && main-thread:yes
Nice = 6

[Rule late]
Match = cmdline:"*lt-mt-late-marker*" && main-thread:no
Nice = 3

[Rule barrier]
Match = name:lt-mt-barrier
Nice = 1
P

# A process a rule matches, started after the ones looked at: once the
# kernel shows it changed, latniced has read every event before its exec.
barrier() {
        spawn --argv0 lt-mt-barrier
        wait_until 5 attr_is "$SPAWNED_PID" nice 1 || fail "barrier $SPAWNED_PID not applied"
}

same_names() { # pid name tids...
        local pid=$1 name=$2 t
        shift 2
        for t in "$@"; do
                [ "$(cat "/proc/$pid/task/$t/comm")" = "$name" ] ||
                        fail "thread $t of $pid is $(cat "/proc/$pid/task/$t/comm"), not $name"
        done
}

# What the spawned processes inherit from this shell (0 unless run under nice).
BASE=$(attr $$ nice)
[ -n "$BASE" ] || fail "cannot read this shell's nice"

start_daemon

# --comm before the threads start: they are born with the process's name.
spawn --argv0 lt-mt --comm lt-mt --threads 2
mt=("${SPAWNED_TIDS[@]}")
[ ${#mt[@]} -eq 3 ] || fail "expected 3 tids, got ${mt[*]}"
[ "${mt[0]}" = "$SPAWNED_PID" ] || fail "the first tid is not the process's"
same_names "${mt[0]}" lt-mt "${mt[@]}"
wait_until 5 attr_is "${mt[1]}" nice 4 || fail "thread ${mt[1]} of lt-mt: nice $(attr "${mt[1]}" nice), not 4"
wait_until 5 attr_is "${mt[2]}" nice 4 || fail "thread ${mt[2]} of lt-mt: nice $(attr "${mt[2]}" nice), not 4"

spawn --argv0 lt-mt-main --comm lt-mt-main --threads 2
mm=("${SPAWNED_TIDS[@]}")
[ ${#mm[@]} -eq 3 ] || fail "expected 3 tids, got ${mm[*]}"
same_names "${mm[0]}" lt-mt-main "${mm[@]}"
wait_until 5 attr_is "${mm[0]}" nice 6 || fail "main thread of lt-mt-main: nice $(attr "${mm[0]}" nice), not 6"

barrier
attr_is "${mt[0]}" nice "$BASE" || fail "main thread of lt-mt got nice $(attr "${mt[0]}" nice)"
for t in "${mm[1]}" "${mm[2]}"; do
        attr_is "$t" nice "$BASE" || fail "thread $t of lt-mt-main: nice $(attr "$t" nice), not $BASE"
done

# A thread started after latniced applied nothing to its process.
thread_later lt-mt-late-marker late
late=$LATER_PID
barrier # latniced has seen the helper's exec
attr_is "$late" nice "$BASE" || fail "main thread of the late helper got nice $(attr "$late" nice)"
thread_later_go late
late_tid=$LATER_TID
[ "$late_tid" != "$late" ] || fail "late thread id"
wait_until 5 attr_is "$late_tid" nice 3 || fail "late thread $late_tid: nice $(attr "$late_tid" nice), not 3"
barrier
attr_is "$late" nice "$BASE" || fail "main thread of the late helper got nice $(attr "$late" nice)"

stop_daemon || fail "latniced exited with $?"
for t in "${mt[@]}" "${mm[@]}" "$late" "$late_tid"; do
        attr_is "$t" nice "$BASE" || fail "thread $t not restored on SIGTERM (nice $(attr "$t" nice))"
done
echo "PASS"
