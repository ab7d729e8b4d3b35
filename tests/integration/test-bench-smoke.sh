#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Smoke run of every benchmark in bench/: each still starts, runs in a tiny
# configuration and prints its result table (the numbers are not judged:
# benchmarks are not tests). Also: no benchmark leaves a latniced behind,
# whether it ends normally, is interrupted (SIGTERM) or is SIGKILLed, and
# sched-effect leaves no cgroup and no process behind. sched-effect runs in
# each topology; where the sleeper and the hogs ran, and the group knobs of
# the g-* conditions, are read back from the kernel (/proc/PID/autogroup,
# /proc/PID/cgroup, the cgroup files) while they run. real-audio runs real
# PipeWire beside a real compile in the flat and cgroups topologies (a skip
# where PipeWire cannot run a session). frame-effect runs a frame loop
# beside a build in app scopes with and without latniced's focus, and the
# focus effect is read back from the cgroup files.
#
#   test-bench-smoke.sh BUILD_ROOT SOURCE_ROOT        (root; about 2 minutes)
set -uo pipefail
BUILD=$(cd "${1:?build root}" && pwd)
# bench/machine.sh's latnicectl: this build's, not build/ beside bench/ (which
# a run with LATNICE_CACHE_DIR, or of the sanitizer build alone, lacks)
export LATNICE_BUILD=$BUILD
SRC=$(cd "${2:?source root}" && pwd)
LATNICED=$BUILD/daemon/latniced
APPLY_LATENCY=$BUILD/bench/apply-latency
LN_STORM=$BUILD/tests/integration/ln-storm
LN_RACE=$BUILD/tests/helpers/ln-race

if [ "$(id -u)" -ne 0 ]; then
        echo "SKIP: needs root (the benchmarks run latniced)"
        exit 77
fi
for f in "$LATNICED" "$APPLY_LATENCY" "$LN_STORM" "$LN_RACE" "$BUILD/bench/policy-scale" \
        "$BUILD/bench/sleeper" "$BUILD/bench/setattr"; do
        [ -x "$f" ] || { echo "FAIL: $f is not built"; exit 1; }
done

TMP=$(mktemp -d /tmp/bench-smoke.XXXXXX)
# The benchmarks' own temp dirs go here too, so a killed one leaves nothing.
export TMPDIR=$TMP
BG=
cleanup() {
        [ -z "$BG" ] || kill -KILL "$BG" 2>/dev/null
        wait 2>/dev/null
        rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
        echo "FAIL: $*" >&2
        exit 1
}

# latniced processes of this build that are alive (not zombies).
our_daemons() {
        local p
        for p in $(pgrep -x latniced); do
                [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$LATNICED" ] || continue
                grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && continue
                echo "$p"
        done
}
# Fail if a latniced of this build that was not there at START is still running.
BEFORE=$(our_daemons | tr '\n' ' ')
no_leak() { # what
        local p left=""
        for _ in $(seq 300); do # 30 s: a sanitizer build on a busy machine exits slowly
                left=""
                for p in $(our_daemons); do
                        case " $BEFORE " in *" $p "*) ;; *) left="$left $p" ;; esac
                done
                [ -z "$left" ] && return 0
                sleep 0.1
        done
        ps -o pid,ppid,args -p "${left# }" >&2 || true
        fail "$1 left latniced running:$left"
}

# has FILE REGEX WHAT: the output has a line matching REGEX.
has() {
        grep -Eq "$2" "$1" || { echo "--- output of $3:" >&2; cat "$1" >&2; fail "$3: no line matching /$2/"; }
}

# machine_lines FILE WHAT: the benchmark's output starts with the lines of
# the machine it ran on (bench/machine.sh), every one of them.
machine_lines() {
        head -n1 "$1" | grep -q '^machine: kernel: ' ||
                { echo "--- output of $2:" >&2; head -n 5 "$1" >&2; fail "$2: does not start with the machine lines"; }
        has "$1" '^machine: kernel: [^ ]+ #' "$2"
        has "$1" '^machine: preemption: (none|voluntary|full|lazy|rt|unknown|dynamic)' "$2"
        has "$1" '^machine: HZ: ([0-9]+ \(from|unknown)' "$2"
        has "$1" '^machine: autogroup: (on|off|unsupported)$' "$2"
        has "$1" '^machine: sched_ext: (absent|disabled|enabling|enabled|disabling|unknown)' "$2"
        has "$1" '^machine: latnice settings that act: .*Nice=' "$2"
        has "$1" '^machine: CPU: .+, [0-9]+ online of [0-9]+$' "$2"
        has "$1" '^machine: virtualization: ' "$2"
        has "$1" '^machine: cgroup(2| v1): /' "$2"
}

cd "$SRC"

# ---- policy-scale: small rule sets --------------------------------------------
echo "# policy-scale"
bash bench/policy-scale.sh "$BUILD" --counts "100 1000" --no-build >"$TMP/ps.out" 2>&1 ||
        { cat "$TMP/ps.out" >&2; fail "policy-scale exited with $?"; }
cat "$TMP/ps.out"
has "$TMP/ps.out" '^set +rules +load_ms +match_ns +hit_ns +miss_ns' policy-scale
machine_lines "$TMP/ps.out" policy-scale
num='[0-9]+(\.[0-9]+)?'
for set in default generated-100 generated-1000; do
        has "$TMP/ps.out" "^$set +[0-9]+ +$num +$num +$num +$num +[0-9]+ KiB +[0-9]+ KiB$" policy-scale
done

# ---- apply-latency: 50 processes, idle, busy and beside a process that keeps its memory busy
echo "# apply-latency"
bash bench/apply-latency.sh "$LATNICED" "$APPLY_LATENCY" 50 --mmhog 64 >"$TMP/al.out" 2>&1 ||
        { cat "$TMP/al.out" >&2; fail "apply-latency exited with $?"; }
cat "$TMP/al.out"
for phase in idle busy hostile; do
        has "$TMP/al.out" "^$phase: processes 50 applied [1-9][0-9]* missed [0-9]+ +p50 $num us +p90 $num us +p99 $num us +max $num us" apply-latency
        has "$TMP/al.out" "^$phase: daemon CPU $num us per process" apply-latency
done
has "$TMP/al.out" '^VmRSS: [0-9]+ kB' apply-latency
machine_lines "$TMP/al.out" apply-latency
no_leak apply-latency

# ---- self-change-race: 20 runs per mode, idle and busy
echo "# self-change-race"
bash bench/self-change-race.sh "$LATNICED" "$LN_RACE" 20 >"$TMP/scr.out" 2>&1 ||
        { cat "$TMP/scr.out" >&2; fail "self-change-race exited with $?"; }
cat "$TMP/scr.out"
for mode in fifo nice; do
        for phase in idle busy; do
                has "$TMP/scr.out" "^$mode $phase: runs 20 lost [0-9]+ load $num$" self-change-race
        done
done
machine_lines "$TMP/scr.out" self-change-race
no_leak self-change-race

# ---- exec-storm: 500 processes, 3 long-lived ones in the middle, 10 matched ones beside a storm
echo "# exec-storm"
bash bench/exec-storm.sh "$LATNICED" "$LN_STORM" "$SRC/policy/default" 500 "" 3 >"$TMP/es.out" 2>&1 ||
        { cat "$TMP/es.out" >&2; fail "exec-storm exited with $?"; }
cat "$TMP/es.out"
has "$TMP/es.out" '^without latniced: done 500 [0-9]+ \([0-9]+ execs/s\)' exec-storm
has "$TMP/es.out" '^with latniced: +done 500 [0-9]+ \([0-9]+ execs/s\)' exec-storm
has "$TMP/es.out" "^latniced CPU: [0-9]+ ms, $num us per process" exec-storm
has "$TMP/es.out" '^long-lived matched processes started during the storm: 3, missed: [0-9]+$' exec-storm
has "$TMP/es.out" '^rescans after lost events: [0-9]+$' exec-storm
machine_lines "$TMP/es.out" exec-storm
has "$TMP/es.out" '^exec to applied beside a full-rate storm, one matched process every 20 ms \(apply-latency 10\):$' exec-storm
has "$TMP/es.out" "^  processes 10 applied [0-9]+ missed [0-9]+ +p50 $num us +p90 $num us +p99 $num us +max $num us" exec-storm
no_leak exec-storm

# ---- sleeper --warmup: the first seconds are not recorded ------------------
# (sched-effect reads the groups and attributes meanwhile.) 1 s of warm-up
# and 1 s recorded at 1 ms: about 1000 wake-ups, not 2000.
"$BUILD/bench/sleeper" --warmup 1 --duration 1 >"$TMP/warmup.txt" ||
        fail "sleeper --warmup 1 --duration 1 failed"
n=$(sed -n 's/^# Total: 0*\([0-9]\)/\1/p' "$TMP/warmup.txt")
[ -n "$n" ] && [ "$n" -ge 500 ] && [ "$n" -le 1000 ] ||
        fail "sleeper --warmup 1 --duration 1 recorded ${n:-no} wake-ups, expected 500-1000"

# ---- sleeper: wake-ups on another CPU are counted ---------------------------
# Pinned, none; moved between two CPUs every 50 ms while it sleeps, some.
if [ "$(nproc)" -ge 2 ]; then
        taskset -c 0 "$BUILD/bench/sleeper" --duration 1 >"$TMP/cpu0.txt" ||
                fail "sleeper pinned to CPU 0 failed"
        grep -qx "# Woke on another CPU: 0" "$TMP/cpu0.txt" ||
                fail "sleeper pinned to one CPU counted moves: $(grep Woke "$TMP/cpu0.txt")"
        "$BUILD/bench/sleeper" --duration 1 >"$TMP/moved.txt" &
        sp=$!
        for i in $(seq 16); do
                taskset -a -p -c $((i % 2)) "$sp" >/dev/null 2>&1 || break
                sleep 0.05
        done
        wait "$sp" || fail "sleeper moved between CPUs failed"
        m=$(sed -n 's/^# Woke on another CPU: \([0-9]*\)$/\1/p' "$TMP/moved.txt")
        [ -n "$m" ] && [ "$m" -ge 4 ] ||
                fail "sleeper moved between CPUs 16 times counted ${m:-no} wake-ups on another CPU"
        grep -Eq "^# Later than 250 us, on another CPU / the same: [0-9]+ / [0-9]+$" "$TMP/moved.txt" ||
                fail "sleeper's histogram has no line for its late wake-ups"
fi

# ---- sched-effect --smoke: baseline, one class, latniced; each topology ----------
# Is PID running (not gone, not a zombie waiting for us)?
running() {
        local s
        s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
        [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]
}
# The pids sched-effect saw its sleeper and hogs run as (attrs.txt) that are
# still one of them: names as in any condition, arguments as the script's.
run_procs() { # attrs.txt
        local p
        for p in $(grep -o ' pid=[0-9]*' "$1" | cut -d= -f2 | sort -u); do
                tr '\0' ' ' 2>/dev/null <"/proc/$p/cmdline" |
                        grep -Eq '^(ln-bench-hog|cc1plus) --cpu |^(ln-bench-sleeper|pipewire) --interval ' &&
                        echo "$p"
        done
}
# The top cgroup of the sched-effect run with that pid, if it exists.
bench_cgroup() { # pid
        find /sys/fs/cgroup -mindepth 1 -maxdepth 2 -type d -name "latnice-bench-$1" 2>/dev/null
}
# Fail if that run left its cgroup tree or its processes behind.
nothing_left() { # what pid attrs.txt
        local left
        [ -z "$(bench_cgroup "$2")" ] || fail "$1 left the cgroup tree $(bench_cgroup "$2") behind"
        for _ in $(seq 300); do
                left=$(run_procs "$3")
                [ -n "$left" ] || return 0
                sleep 0.1
        done
        ps -o pid,ppid,args -p "$(echo $left | tr ' ' ,)" >&2 || true
        fail "$1 left its sleeper or hogs behind"
}
# has_groups TOPO COND REGEX: the line of groups.txt for that run matches.
has_groups() {
        grep -q "^$1 $2 1 " "$TMP/se/groups.txt" ||
                { cat "$TMP/se/groups.txt" >&2; fail "sched-effect: no groups line for $1 $2"; }
        grep "^$1 $2 1 " "$TMP/se/groups.txt" | grep -Eq "$3" ||
                { cat "$TMP/se/groups.txt" >&2; fail "sched-effect $1 $2: groups not /$3/"; }
}
echo "# sched-effect"
bash bench/sched-effect.sh --smoke --topology flat,sessions --conditions base,h-idle,g-idle,latniced \
        --build "$BUILD" --out "$TMP/se" >"$TMP/se.out" 2>&1 ||
        { cat "$TMP/se.out" >&2; fail "sched-effect exited with $?"; }
tail -n 14 "$TMP/se.out"
[ -s "$TMP/se/latency.md" ] || fail "sched-effect wrote no latency.md"
machine_lines "$TMP/se.out" sched-effect
machine_lines "$TMP/se/machine.txt" "sched-effect's machine.txt"
# A percentile past the sleeper's histogram is "overflow": a result too (the
# flat latniced run printed it at load 100), not judged here.
pct='([0-9]+|overflow)'
row="\| +$pct \| +$pct \| +$pct \| +[0-9]+ \|"
for t in flat sessions; do
        for c in base h-idle latniced; do
                has "$TMP/se/latency.md" "^\| $t +\| $c +$row" sched-effect
        done
        has "$TMP/se/latency.md" "^# $t: latniced against base, p99.9 $pct -> $pct us" sched-effect
done
has "$TMP/se/latency.md" "^\| flat +\| g-idle +\| +n/a \|" sched-effect
has "$TMP/se/latency.md" "^\| sessions +\| g-idle +$row" sched-effect
# flat: one autogroup for both; sessions: one each, the hogs' at nice 19 in g-idle.
ag='/autogroup-([0-9]+) nice=(-?[0-9]+)'
has_groups flat base "^flat base 1 hogs=($ag) cgroup=.* sleeper=\1 "
has_groups sessions base "^sessions base 1 hogs=$ag cgroup=.* sleeper=$ag "
! grep -Eq "^sessions [a-z0-9-]+ 1 hogs=($ag) cgroup=.* sleeper=\1 " "$TMP/se/groups.txt" ||
        fail "sched-effect sessions: the hogs and the sleeper share an autogroup"
has_groups sessions g-idle "hogs=/autogroup-[0-9]+ nice=19 .* sleeper=/autogroup-[0-9]+ nice=0 "
# ... and flat is the autogroup of this test's session, sessions are others.
mine=$(cut -d' ' -f1 /proc/self/autogroup)
has_groups flat base "^flat base 1 hogs=$mine "
! grep -Eq "^sessions .*=$mine " "$TMP/se/groups.txt" ||
        fail "sched-effect sessions: a process runs in the autogroup of the session that started it"
no_leak sched-effect
nothing_left sched-effect none "$TMP/se/attrs.txt"

# The cgroups topology, where the machine has a cpu controller.
cgroups=0
rm -rf "$TMP/se"
# The top group at twice the default weight (--top-weight), read back.
bash bench/sched-effect.sh --smoke --topology cgroups --conditions base,g-idle,gs-weight,s-rt,latniced \
        --top-weight 2 --build "$BUILD" --out "$TMP/se" >"$TMP/se.out" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
        echo "SKIP: sched-effect --topology cgroups: $(grep -- '--topology cgroups' "$TMP/se.out")"
else
        [ $rc -eq 0 ] || { cat "$TMP/se.out" >&2; fail "sched-effect --topology cgroups exited with $rc"; }
        tail -n 8 "$TMP/se.out"
        # s-rt: a real-time sleeper, which v1 with RT group scheduling
        # refuses below the root unless its groups have real-time runtime.
        for c in base g-idle gs-weight s-rt latniced; do
                has "$TMP/se/latency.md" "^\| cgroups +\| $c +$row" sched-effect
        done
        unit='/latnice-bench-[0-9]+/user.slice/user-[0-9]+.slice/user@[0-9]+.service'
        knobs='idle=([0-9]) [a-z]+=([0-9]+) slice-idle=([0-9]) slice-[a-z]+=([0-9]+)'
        has_groups cgroups base "hogs=$unit/app.slice/app-build.scope idle=0 .* sleeper=$unit/session.slice/pipewire.service idle=0 .* top-[a-z]+=(200|2048)$"
        has "$TMP/se/latency.md" "top group at 2x the default weight" sched-effect
        has_groups cgroups g-idle "hogs=[^ ]* idle=1 [a-z]+=[0-9]+ slice-idle=0 .* sleeper=[^ ]* idle=0 "
        has_groups cgroups gs-weight "hogs=[^ ]* idle=0 [a-z]+=(100|1024) slice-idle=0 slice-[a-z]+=(1|2) sleeper=[^ ]* idle=0 [a-z]+=(100|1024) slice-idle=0 slice-[a-z]+=(10000|262144) top-[a-z]+=(200|2048)$"
        grep -Eq "$knobs" "$TMP/se/groups.txt" || fail "sched-effect: groups.txt has no cgroup knobs"
        no_leak sched-effect
        nothing_left "sched-effect --topology cgroups" \
                "$(sed -n 's|.*/latnice-bench-\([0-9]*\)/.*|\1|p' "$TMP/se/groups.txt" | head -1)" \
                "$TMP/se/attrs.txt"
        cgroups=1
fi

# ---- interrupted runs: SIGTERM and SIGKILL in the middle ---------------------------
# Wait until the script's latniced is up, then signal the script.
interrupt() { # signal what command...
        local sig=$1 what=$2 p
        shift 2
        "$@" >"$TMP/int.out" 2>&1 &
        BG=$!
        for _ in $(seq 200); do
                for p in $(our_daemons); do
                        case " $BEFORE " in *" $p "*) ;; *) break 2 ;; esac
                done
                sleep 0.05
        done
        sleep 0.3
        kill -"$sig" "$BG"
        wait "$BG" 2>/dev/null
        BG=
        no_leak "$what (SIG$sig)"
}
echo "# interrupted runs"
interrupt TERM apply-latency bash bench/apply-latency.sh "$LATNICED" "$APPLY_LATENCY" 2000
interrupt KILL apply-latency bash bench/apply-latency.sh "$LATNICED" "$APPLY_LATENCY" 2000
interrupt KILL exec-storm bash bench/exec-storm.sh "$LATNICED" "$LN_STORM" "$SRC/policy/default" 3000
# What the killed script started dies with it (--pdeathsig).
for _ in $(seq 300); do
        pgrep -f "lt-storm-keeper-x|ln-storm 3000" >/dev/null || break
        sleep 0.1
done
! pgrep -af "lt-storm-keeper-x|ln-storm 3000" || fail "exec-storm's children outlived it"

# sched-effect in the cgroups topology, SIGTERM and SIGINT once the sleeper
# and the hogs of the latniced condition run in their cgroups: the daemon,
# the processes and the whole tree go.
interrupt_cgroups() { # signal
        local top="" procs="$TMP/int.procs" p
        # A background job ignores SIGINT unless told otherwise (as Ctrl-C
        # would reach a script in the foreground).
        env --default-signal=INT bash bench/sched-effect.sh --topology cgroups \
                --conditions latniced --duration 60 \
                --repeats 1 --part latency --build "$BUILD" --out "$TMP/se-int" >"$TMP/int.out" 2>&1 &
        BG=$!
        : >"$procs"
        for _ in $(seq 300); do
                top=$(bench_cgroup "$BG")
                if [ -n "$top" ] && [ -n "$(cat "$top"/user.slice/*/*/session.slice/pipewire.service/cgroup.procs 2>/dev/null)" ]; then
                        break
                fi
                sleep 0.1
        done
        [ -n "$top" ] || { cat "$TMP/int.out" >&2; fail "sched-effect made no cgroup tree"; }
        # Past the first exec: the real programs run now (up to 60 s on a busy machine).
        for _ in $(seq 600); do
                : >"$procs"
                for p in $(find "$top" -name cgroup.procs -exec cat {} + 2>/dev/null); do
                        echo "x pid=$p" >>"$procs"
                done
                [ -n "$(run_procs "$procs")" ] && break
                sleep 0.1
        done
        [ -n "$(run_procs "$procs")" ] || { cat "$TMP/int.out" >&2; fail "no sleeper or hog in $top"; }
        kill -"$1" "$BG"
        # The run has a minute to go: it must stop now, not when it is done.
        for _ in $(seq 400); do
                running "$BG" || break
                sleep 0.1
        done
        running "$BG" && fail "sched-effect --topology cgroups still runs 40 s after SIG$1"
        wait "$BG" 2>/dev/null
        BG=
        no_leak "sched-effect --topology cgroups (SIG$1)"
        nothing_left "sched-effect --topology cgroups (SIG$1)" "${top##*-}" "$procs"
}
if [ "$cgroups" = 1 ]; then
        interrupt_cgroups TERM
        interrupt_cgroups INT
fi

# smoke_effect NAME OUT TAIL ARGS...: bench/NAME.sh --smoke ARGS, its output
# in $TMP/OUT.out, its results in $TMP/OUT, its pid in smoke_pid. Where it
# exits 77 (it cannot run here: the message says why), a skip and 1; where
# it exits otherwise than 0, a failure; else its last TAIL lines, the check
# that it printed the machine lines and the load average before and after
# (bench/bench-lib.sh), and 0.
smoke_pid=
smoke_effect() {
        local name=$1 dir=$2 n=$3 rc=0
        shift 3
        echo "# $name"
        bash "bench/$name.sh" --smoke "$@" --build "$BUILD" --out "$TMP/$dir" >"$TMP/$dir.out" 2>&1 &
        smoke_pid=$!
        wait "$smoke_pid" || rc=$?
        if [ $rc = 77 ]; then
                echo "# $name skipped: $(grep "^$name: " "$TMP/$dir.out" | head -n 3)"
                return 1
        fi
        [ $rc = 0 ] || { cat "$TMP/$dir.out" >&2; fail "$name exited with $rc"; }
        tail -n "$n" "$TMP/$dir.out"
        machine_lines "$TMP/$dir.out" "$name"
        has "$TMP/$dir.out" '^load before: [0-9.]+ [0-9.]+ [0-9.]+ ' "$name"
        has "$TMP/$dir.out" '^load after: [0-9.]+ [0-9.]+ [0-9.]+ ' "$name"
}

# ---- real-audio: real PipeWire beside a real compile, 3 s per run -----------------
# flat: every condition; cgroups: latniced (a skip if the machine has no cpu
# controller, or if PipeWire cannot run a session here). What each run's
# processes ran with is the benchmark's reading of /proc (attrs.txt).
ra_topo=flat
# (a v1 cpu hierarchy, or cgroup2 handing cpu to its children)
cg_find_ra() { awk '$3 == "cgroup" && ("," $4 ",") ~ /,cpu,/ { f = 1 } END { exit !f }' /proc/mounts ||
        grep -qw cpu "$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)/cgroup.subtree_control" 2>/dev/null; }
cg_find_ra && ra_topo=flat,cgroups
if smoke_effect real-audio ra 6 --topology "$ra_topo"; then
        ra_pid=$smoke_pid
        # The quantum is the one asked for (2666 µs: 128 samples at 48 kHz),
        # not the 1024 of PipeWire's vm.overrides.
        for t in ${ra_topo//,/ }; do
                has "$TMP/ra/results.md" "^\| $t \| 128 \| 2666 \| " real-audio
        done
        m="($num|-)"
        has "$TMP/ra/results.md" "^\| flat \| 128 \| 2666 \| $m \| $m \| $m \| ($num|inf|n/a) \| ($num|inf|n/a) \| (yes|no|n/a) \| [01]/[01]/[01] \|$" real-audio
        has "$TMP/ra/results.md" '^# runs left out \(another latniced on the machine changed their processes\): [0-9]+$' real-audio
        # One line per run: cycles, late, per 10,000, the quantum, whether
        # another latniced on the machine touched the run (then left out).
        runs=3
        [ "$ra_topo" = flat ] || runs=6
        [ "$(grep -cP "^1\t(flat|cgroups)\t128\t(none|latniced|rt)\t[1-9][0-9]*\t[0-9]+\t[0-9.]+\t2666\t[01]$" \
                "$TMP/ra/results.tsv")" = "$runs" ] ||
                { cat "$TMP/ra/results.tsv" >&2; fail "real-audio: results.tsv has not one line per run"; }
        # none: no real-time thread anywhere (module-rt left out); rt: the
        # server's data thread SCHED_FIFO; latniced: the audio profile's
        # nice on pipewire and pipewire-pulse, the compilers SCHED_IDLE.
        ra_attr() { grep "^$1 128 $2 1 $3 " "$TMP/ra/attrs.txt" ||
                { cat "$TMP/ra/attrs.txt" >&2; fail "real-audio: no $3 in $1 $2"; }; }
        ! grep -E "^flat 128 (none|latniced) .*=fifo/" "$TMP/ra/attrs.txt" ||
                fail "real-audio: a real-time thread without module-rt"
        ra_attr flat rt pipewire | grep -q '=fifo/[1-9]' || fail "real-audio rt: pipewire has no SCHED_FIFO thread"
        for p in pipewire pipewire-pulse; do
                ra_attr flat latniced "$p" | grep -Eq "^([^ ]+ ){8}[0-9]+=other/0/-11( |$)" ||
                        fail "real-audio latniced: $p not at nice -11"
        done
        ra_attr flat latniced cc1 | grep -Eq '=idle/0/19( |$)' || fail "real-audio latniced: cc1 not SCHED_IDLE nice 19"
        if [ "$ra_topo" = flat,cgroups ]; then
                u='/latnice-bench-[0-9]+/user.slice/user-[0-9]+.slice/user@[0-9]+.service'
                ra_attr cgroups latniced pipewire | grep -Eq " cg=$u/session.slice/pipewire.service " ||
                        fail "real-audio cgroups: pipewire not in session.slice/pipewire.service"
                ra_attr cgroups latniced pipewire-pulse | grep -Eq " cg=$u/session.slice/pipewire-pulse.service " ||
                        fail "real-audio cgroups: pipewire-pulse not in its service"
                ra_attr cgroups latniced cc1 | grep -Eq " cg=$u/app.slice/app-build.scope " ||
                        fail "real-audio cgroups: cc1 not in app.slice/app-build.scope"
                ra_attr cgroups latniced pw-play | grep -Eq " cg=$u/app.slice/app-player.scope " ||
                        fail "real-audio cgroups: pw-play not in app.slice/app-player.scope"
                [ -z "$(find /sys/fs/cgroup -mindepth 1 -maxdepth 2 -name "latnice-bench-$ra_pid" 2>/dev/null)" ] ||
                        fail "real-audio left its cgroup tree behind"
        fi
        # Nothing of the runs is left: no latniced, none of their processes.
        no_leak real-audio
        for p in $(grep -o ' pid=[0-9]*' "$TMP/ra/attrs.txt" | cut -d= -f2 | sort -u); do
                if running "$p"; then
                        c=$(cat "/proc/$p/comm" 2>/dev/null)
                        grep -q " $c pid=$p " "$TMP/ra/attrs.txt" && fail "real-audio left $c ($p) running"
                fi
        done
fi

# ---- io-effect: 16 MiB, one repeat (77: no O_DIRECT under $TMP) --------------------
echo "# io-effect"
rc=0
bash bench/io-effect.sh --smoke --dir "$TMP" --out "$TMP/io" >"$TMP/io.out" 2>&1 || rc=$?
if [ $rc = 77 ]; then
        echo "# io-effect skipped: $(cat "$TMP/io.out")"
else
        [ $rc = 0 ] || { cat "$TMP/io.out" >&2; fail "io-effect exited with $rc"; }
        cat "$TMP/io.out"
        for c in alone writer writer-be7 writer-idle writer-nice19; do
                has "$TMP/io.out" "^\\| $c \\| $num \\| $num""x \\| ($num|-) \\|$" io-effect
        done
        ls -d "$TMP"/latnice-io-effect.* 2>/dev/null && fail "io-effect left its files behind"
        machine_lines "$TMP/io.out" io-effect
fi
# ---- frame-effect --smoke: a frame loop beside a build, off / nofocus / focused / unfocused
# (77: no cpu controller or no cgroup2 here). The script itself waits until
# the kernel shows the focus effect before it measures, and fails if not;
# knobs.txt has what it read back, checked here too.
if smoke_effect frame-effect fe 7; then
        # (an off run another latniced on the machine configured is left
        # out: its medians are "-", its count 0)
        m="($num|-)"
        has "$TMP/fe/table.md" "^\| build \| off +\| +$m \| +($num ms|-) \| +($num ms|-) \| +$m \| +$m \| +[01] \|$" frame-effect
        for c in nofocus focused unfocused; do
                has "$TMP/fe/table.md" "^\| build \| $c +\| +$num \| +$num ms \| +$num ms \| +$num \| +$num \| +1 \|$" frame-effect
        done
        has "$TMP/fe/table.md" "^# build: frame deadline misses per 1000 without latniced $m; with latniced nofocus $num, focused $num, unfocused $num$" frame-effect
        has "$TMP/fe/table.md" '^# runs left out \(another latniced on the machine configured them\): [01]$' frame-effect
        [ "$(grep -cP "^build\t(off|nofocus|focused|unfocused)\t1\t[1-9][0-9]*\t[0-9]+\t[0-9.]+\t[0-9]+\t[0-9]+\t[0-9]+\t[0-9]+\t[0-9.]+\t[01]$" \
                "$TMP/fe/runs.tsv")" = 4 ] ||
                { cat "$TMP/fe/runs.tsv" >&2; fail "frame-effect: runs.tsv has not one line per run"; }
        # What the kernel showed before each run: off, the defaults (the
        # frame loop's scope, the load's unless another latniced acted on
        # it); nofocus (no focus rules), the frame loop's at the default;
        # focused, the build's scope at the unfocused weight (v1 shares 512,
        # v2 50) or idle (the compilers' class), the frame loop's at the
        # default; unfocused, the frame loop's scope at that weight.
        has "$TMP/fe/knobs.txt" "^build\.off\.1 before: game: [a-z]+=(1024|100) idle=[-0] nice=0 \| load: " frame-effect
        has "$TMP/fe/knobs.txt" "^build\.nofocus\.1 before: game: [a-z]+=(1024|100) idle=[-0] nice=0 \| load: " frame-effect
        has "$TMP/fe/knobs.txt" "^build\.focused\.1 before: game: [a-z]+=(1024|100) .* load: ([a-z]+=(512|50) |[a-z]+=[0-9]+ idle=1 )" frame-effect
        has "$TMP/fe/knobs.txt" "^build\.unfocused\.1 before: game: [a-z]+=(512|50) " frame-effect
        no_leak frame-effect
        [ -z "$(bench_cgroup "$(sed -n 's|.*/latnice-bench-\([0-9]*\)/.*|\1|p' "$TMP/fe/info.txt" | head -1)")" ] ||
                fail "frame-effect left its cgroup tree behind"
        fe_dir=$(sed -n 's/.*; build directory: //p' "$TMP/fe/info.txt")
        [ -n "$fe_dir" ] || fail "frame-effect: info.txt names no build directory"
        [ ! -e "$fe_dir" ] || fail "frame-effect left its build directory $fe_dir behind"
fi
echo "PASS"
