#!/usr/bin/env bash
# CPUAffinity= reaches the kernel and comes back like every other attribute.
# Every check reads the kernel (/proc/TID/status Cpus_allowed_list, which is
# sched_getaffinity()), never latniced. Written for a machine of 2 CPUs or
# more (0 and 1 online); skipped otherwise.
#   1. CPUAffinity=0, =1 (on every thread), =0-1 and =cache applied
#   2. a change by someone else (taskset) is theirs: kept on reload and exit,
#      the rest restored to what each thread had
#   3. a rule removed on reload: the original back
#   4. an invalid list: the file is rejected, naming file:line:column
#   5. a list with no CPU of the task's cpuset (cgroup v1 or v2 cpuset, when
#      one can be made): an error naming the thread; its other settings apply
#   6. latniced killed with SIGKILL: the next one (same state file) gives
#      each thread its own affinity back, and keeps a change someone else
#      made while none ran (run before 5, which may end the test early)
. "$(dirname "$0")/test-daemon-lib.sh" "$@"
command -v taskset >/dev/null || { echo "SKIP: taskset (util-linux) not installed"; exit 77; }
grep -q '^0-[1-9]' /sys/devices/system/cpu/online ||
        { echo "SKIP: needs CPUs 0 and 1 online"; exit 77; }

cpus_of() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
cpus_is() { [ "$(cpus_of "$1")" = "$2" ]; }

# What "cache" means here, from sysfs as the man page says: the CPUs sharing
# the largest cache of the highest level, else (no cache described) every
# online CPU.
CACHE=$(/usr/bin/python3 - <<'PY'
import glob, os
best = None
for d in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*"):
    try:
        level = int(open(d + "/level").read())
        lst = open(d + "/shared_cpu_list").read().strip()
        typ = open(d + "/type").read().strip() if os.path.exists(d + "/type") else ""
    except OSError:
        continue
    if typ == "Instruction":
        continue
    size = 0
    try:
        s = open(d + "/size").read().strip()
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
        size = int(s.rstrip("KMG")) * mult
    except (OSError, ValueError):
        pass
    first = min(int(x.split("-")[0]) for x in lst.split(","))
    key = (level, size, -first)
    if best is None or key > best[0]:
        best = (key, lst)
print(best[1] if best else open("/sys/devices/system/cpu/online").read().strip())
PY
)
[ -n "$CACHE" ] || fail "cannot tell what cache means on this machine"

cat >"$POL/10-aff.policy" <<'P'
[Rule lnaff0]
Match = comm:lnaff0
CPUAffinity = 0

[Rule lnaff1]
Match = comm:lnaff1
CPUAffinity = 1

[Rule lnaffall]
Match = comm:lnaffall
CPUAffinity = 0-1

[Rule lnaffc]
Match = comm:lnaffc
CPUAffinity = cache
P

# ---- 1. applied
ALL=$(cpus_of $$)
spawn --comm lnaff0
a0=$SPAWNED_PID
spawn --comm lnaff1 --threads 2
a1=("${SPAWNED_TIDS[@]}")
spawn --comm lnaffall
aall=$SPAWNED_PID
taskset -p -c 1 "$aall" >/dev/null || fail "taskset"
spawn --comm lnaffc
ac=$SPAWNED_PID
taskset -p -c 0 "$ac" >/dev/null || fail "taskset"
start_daemon
wait_until 5 cpus_is "$a0" 0 || fail "1: CPUAffinity=0 not applied: $(cpus_of "$a0")"
for t in "${a1[@]}"; do
        wait_until 5 cpus_is "$t" 1 || fail "1: CPUAffinity=1 not applied to $t: $(cpus_of "$t")"
done
wait_until 5 cpus_is "$aall" 0-1 || fail "1: CPUAffinity=0-1 not applied: $(cpus_of "$aall")"
wait_until 5 cpus_is "$ac" "$CACHE" || fail "1: CPUAffinity=cache ($CACHE) not applied: $(cpus_of "$ac")"
echo "ok 1: 0, 1 on ${#a1[@]} threads, 0-1, cache ($CACHE)"

# ---- 2. someone else's change is theirs; the rest is restored on exit
taskset -p -c 0 "${a1[1]}" >/dev/null || fail "taskset"
reload_daemon
cpus_is "${a1[1]}" 0 || fail "2: latniced undid taskset on reload: $(cpus_of "${a1[1]}")"
stop_daemon TERM || fail "2: latniced did not exit 0"
cpus_is "$a0" "$ALL" || fail "2: lnaff0 not restored: $(cpus_of "$a0")"
cpus_is "${a1[0]}" "$ALL" || fail "2: lnaff1 not restored: $(cpus_of "${a1[0]}")"
cpus_is "${a1[1]}" 0 || fail "2: taskset's change was restored over: $(cpus_of "${a1[1]}")"
cpus_is "$aall" 1 || fail "2: lnaffall not restored to its own 1: $(cpus_of "$aall")"
cpus_is "$ac" 0 || fail "2: lnaffc not restored to its own 0: $(cpus_of "$ac")"
echo "ok 2: taskset's change kept, the originals restored on exit"

# ---- 3. rule removed on reload
start_daemon
wait_until 5 cpus_is "$a0" 0 || fail "3: CPUAffinity=0 not applied again"
sed -i '/^\[Rule lnaff0\]/,/^$/d' "$POL/10-aff.policy"
reload_daemon
wait_until 5 cpus_is "$a0" "$ALL" || fail "3: not restored on reload: $(cpus_of "$a0")"
cpus_is "$aall" 0-1 || fail "3: lnaffall lost its rule: $(cpus_of "$aall")"
stop_daemon TERM || fail "3: latniced did not exit 0"
echo "ok 3: rule removed on reload: original back, the other rules stay"

# ---- 4. an invalid list
printf '[Rule bad]\nMatch = comm:lnbad\nCPUAffinity = 0-x\n' >"$POL/20-bad.policy"
start_daemon
grep -q "20-bad.policy:3:17: .*expected the last CPU of a range" "$LOG" ||
        fail "4: CPUAffinity=0-x not reported with file:line:column: $(grep -i bad "$LOG" | head -3)"
stop_daemon TERM
rm -f "$POL/20-bad.policy"
echo "ok 4: an invalid list named with file:line:column"

# ---- 6. SIGKILL: the next latniced gives the affinity back
printf '[Rule lnaffk]\nMatch = comm:lnaffk\nCPUAffinity = 1\n' >"$POL/40-kill.policy"
spawn --comm lnaffk --threads 2
ak=("${SPAWNED_TIDS[@]}")
for t in "${ak[@]}"; do cpus_is "$t" "$ALL" || fail "6: $t does not start on $ALL: $(cpus_of "$t")"; done
start_daemon
for t in "${ak[@]}"; do
        wait_until 5 cpus_is "$t" 1 || fail "6: CPUAffinity=1 not applied to $t: $(cpus_of "$t")"
done
kill -KILL "$DAEMON"
wait "$DAEMON" 2>/dev/null
DAEMON=
cpus_is "${ak[0]}" 1 || fail "6: SIGKILL restored something (it cannot): $(cpus_of "${ak[0]}")"
taskset -p -c 0 "${ak[1]}" >/dev/null || fail "taskset"
start_daemon
grep -q "adopted [1-9][0-9]* task" "$LOG" || fail "6: the second latniced adopted nothing"
stop_daemon TERM || fail "6: latniced did not exit 0"
cpus_is "${ak[0]}" "$ALL" || fail "6: after SIGKILL, restart and stop, ${ak[0]} is on $(cpus_of "${ak[0]}"), not its own $ALL"
cpus_is "${ak[1]}" 0 || fail "6: taskset's change while no latniced ran was restored over: $(cpus_of "${ak[1]}")"
rm -f "$POL/40-kill.policy"
echo "ok 6: SIGKILL, restart, stop: affinity back ($ALL), a change made meanwhile kept"

# ---- 5. no CPU of the cpuset: an error with the thread, the rest applies
CG=
if [ -d /sys/fs/cgroup/cpuset ] && [ -f /sys/fs/cgroup/cpuset/cpuset.cpus ]; then
        CG=$(mktemp -d /sys/fs/cgroup/cpuset/lnaff.XXXXXX) || CG=
        if [ -n "$CG" ]; then
                echo 1 >"$CG/cpuset.cpus" && cat /sys/fs/cgroup/cpuset/cpuset.mems >"$CG/cpuset.mems" ||
                        { rmdir "$CG"; CG=; }
        fi
elif grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
        CG=$(mktemp -d /sys/fs/cgroup/lnaff.XXXXXX) || CG=
        [ -z "$CG" ] || echo 1 >"$CG/cpuset.cpus" || { rmdir "$CG"; CG=; }
fi
if [ -z "$CG" ]; then
        echo "ok 5 # SKIP no cpuset cgroup to make"
        exit 0
fi
trap 'cleanup; for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -KILL "$p"; done; sleep 0.2; rmdir "$CG"' EXIT
printf '[Rule lncs]\nMatch = comm:lncs\nCPUAffinity = 0\nNice = 5\n' >"$POL/30-cs.policy"
spawn --comm lncs
cs=$SPAWNED_PID
echo "$cs" >"$CG/cgroup.procs" || fail "5: cannot move $cs into $CG"
cpus_is "$cs" 1 || fail "5: the cpuset does not hold $cs to CPU 1: $(cpus_of "$cs")"
start_daemon
wait_until 5 attr_is "$cs" nice 5 || fail "5: Nice=5 not applied next to the refused affinity"
wait_until 5 grep -q "CPUAffinity=0 leaves thread $cs no CPU to run on" "$LOG" ||
        fail "5: no error naming thread $cs: $(grep -i affinity "$LOG" | head -3)"
cpus_is "$cs" 1 || fail "5: $cs left its cpuset's CPU: $(cpus_of "$cs")"
stop_daemon TERM || fail "5: latniced did not exit 0"
attr_is "$cs" nice 0 || fail "5: Nice not restored"
echo "ok 5: CPUAffinity=0 outside the cpuset {1}: an error naming $cs, Nice=5 applied"
