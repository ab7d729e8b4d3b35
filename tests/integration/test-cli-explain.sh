#!/usr/bin/env bash
# latnicectl explain and get on real processes started here with a chosen
# argv[0], exe, cmdline and thread names, against a test policy directory
# (no daemon); main-thread: on a process whose threads share its name.
#   $1 latnicectl  $2 ln-spawn  $3 ln-getattr
CTL=${1:?latnicectl path}
SPAWN=${2:?ln-spawn path}
GETATTR=${3:?ln-getattr path}
. "$(dirname "$0")/test-cli-lib.sh"

NAME=cli-test-very-long-process-name
POL=$T/policy
mkdir -p "$POL"
cat >"$POL/50-test.policy" <<P
[Profile audio]
LatencyNice = -15

[Rule by-name]
Match = name:$NAME
Profile = audio

[Rule by-exe]
Match = exe:*/ln-spawn && cmdline:"*--threads 2*"
Nice = 3

[Rule not-me]
Match = name:$NAME && !exe:*/ln-spawn
Nice = 10

[Rule data-loop]
Match = name:$NAME && thread:data-loop*
Slice = 0.1ms

[Rule spaced]
Match = name:"Crab Game.x86_64"
Nice = 4

[Rule final]
Match = comm:ln-spawn
Final = yes
TimerSlack = 1ms

[Rule after-final]
Match = user:root
Nice = 7
P

# spawn NAME ARGS...: start ln-spawn, wait for its "pid=... tids=..." line;
# sets SPID and STIDS (array).
spawn() {
        local out=$T/spawn.$RANDOM line
        "$SPAWN" --argv0 "$@" >"$out" &
        PIDS+=($!)
        wait_until 5 grep -qs "^pid=" "$out" || fail "ln-spawn did not start"
        line=$(head -n1 "$out")
        SPID=${line#pid=}
        SPID=${SPID%% *}
        IFS=, read -r -a STIDS <<<"${line#*tids=}"
}

spawn "$NAME" --threads 2 --thread-name data-loop --thread-name io
P1=$SPID
TIDS=("${STIDS[@]}")
[ "${#TIDS[@]}" -eq 3 ] || fail "expected 3 threads, got ${TIDS[*]}"

# ---- text --------------------------------------------------------------------
expect_rc 0 --policy-dir "$POL" explain "$P1"
grep -q "^Process $P1 (ln-spawn)" "$T/out" || fail "explain header: $(head -3 "$T/out")"
grep -q "^  argv\[0\]: *$NAME$" "$T/out" || fail "argv[0] fact"
grep -q "^  exe: *$(readlink -f "$SPAWN")$" "$T/out" || fail "exe fact"
grep -q "^matched *by-name *50-test.policy:4 *name:cli-test.* LatencyNice=-15$" "$T/out" ||
        fail "by-name row: $(cat "$T/out")"
# by default only what applies, and a hint at the rest
grep -q "not-me\|after-final" "$T/out" && fail "explain shows rules that do not apply: $(cat "$T/out")"
grep -qx "(3 rules did not match, 1 rule came after Final=yes; --all shows them)" "$T/out" ||
        fail "hint at the hidden rules: $(cat "$T/out")"
grep -q "^Result for process $P1: LatencyNice=-15 Nice=3 TimerSlack=1ms" "$T/out" ||
        fail "result line: $(grep Result "$T/out")"
grep -q "^Threads (matched one by one" "$T/out" || fail "no per-thread section"
# piped: nothing is cut, the whole cmdline is there
grep -q "^  cmdline: *$NAME --threads 2 --thread-name data-loop --thread-name io$" "$T/out" ||
        fail "cmdline cut in a pipe: $(grep cmdline "$T/out")"
expect_rc 0 --policy-dir "$POL" explain --all "$P1"
grep -q "^no *not-me .*!exe:\*/ln-spawn" "$T/out" || fail "not-me row: $(cat "$T/out")"
grep -q "^skipped *after-final .*an earlier rule has Final" "$T/out" || fail "after-final row"
grep -q "all shows" "$T/out" && fail "--all still hints at hidden rules"
expect_rc 0 --policy-dir "$POL" --no-legend explain "$P1"
grep -q "^VERDICT\|all shows" "$T/out" && fail "--no-legend: $(cat "$T/out")"
grep -q "^matched *by-name " "$T/out" || fail "--no-legend lost the rows: $(cat "$T/out")"

# ---- JSON --------------------------------------------------------------------
expect_rc 0 --policy-dir "$POL" --json explain "$P1"
py 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["all_rules"] is False and [r["rule"] for r in d["rules"]] == ["by-name", "by-exe", "final"], d["rules"]' \
        "$T/out" || fail "explain --json without --all: $(cat "$T/out")"
expect_rc 0 --policy-dir "$POL" --json explain --all "$P1"
"$PY" - "$T/out" "$P1" "$NAME" "$(readlink -f "$SPAWN")" "$(cat /proc/$$/comm)" "${TIDS[@]}" <<'PYEOF' ||
import json, sys
d = json.load(open(sys.argv[1]))
pid, name, exe, parent_comm = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
tids = [int(x) for x in sys.argv[6:]]
t = d["task"]
assert d["pid"] == pid and d["tid"] is None, d
assert t["argv0"] == name and t["comm"] == "ln-spawn" and t["exe"] == exe, t
assert t["cmdline"].startswith(name + " ") and "--threads 2" in t["cmdline"], t
assert t["uid"] == 0 and t["user"] == "root" and t["kernel_thread"] is False, t
assert t["ancestors"][0]["comm"] == parent_comm, (t["ancestors"][0], parent_comm)
assert t["ancestors"][-1]["comm"] in ("systemd", "init") or len(t["ancestors"]) >= 1
rules = {r["rule"]: r for r in d["rules"]}
assert [r["rule"] for r in d["rules"]] == ["by-name", "by-exe", "not-me", "data-loop", "spaced",
                                          "final", "after-final"]
def v(n): return rules[n]["verdict"]
assert v("by-name") == "matched" and rules["by-name"]["decider"] == "name:" + name
assert rules["by-name"]["settings"] == {"LatencyNice": "-15"}
assert rules["by-name"]["line"] == 4 and rules["by-name"]["file"].endswith("/50-test.policy")
assert v("by-exe") == "matched"
assert v("not-me") == "not-matched" and rules["not-me"]["decider"] == "!exe:*/ln-spawn"
assert v("data-loop") == "not-matched" and rules["data-loop"]["decider"] == "thread:data-loop*"
assert v("spaced") == "not-matched" and rules["spaced"]["decider"] == 'name:"Crab Game.x86_64"'
assert v("final") == "matched"
assert v("after-final") == "skipped-final" and rules["after-final"]["decider"] is None
res = d["result"]
assert res["settings"] == {"LatencyNice": "-15", "Nice": "3", "TimerSlack": "1ms"}, res
assert res["matched_rules"] == 3 and res["last_rule"] == "final", res
assert d["policy"]["thread_rules"] is True
th = {x["tid"]: x for x in d["threads"]}
assert sorted(th) == sorted(tids), (th.keys(), tids)
names = {x["name"]: x["result"]["settings"] for x in d["threads"]}
assert names["data-loop"] == {"LatencyNice": "-15", "Slice": "0.1ms", "Nice": "3",
                              "TimerSlack": "1ms"}, names
assert names["io"] == res["settings"], names
PYEOF
        fail "explain --json: $(cat "$T/out")"

# one thread: --tid, and a thread id given as the PID
for args in "--tid ${TIDS[1]} $P1" "${TIDS[1]}"; do
        # shellcheck disable=SC2086
        expect_rc 0 --policy-dir "$POL" --json explain --all $args
        py 'import json,sys
d = json.load(open(sys.argv[1]))
assert d["pid"] == int(sys.argv[2]) and d["tid"] == int(sys.argv[3]) and d["thread"] == "data-loop", d
r = {x["rule"]: x for x in d["rules"]}
assert r["data-loop"]["verdict"] == "matched" and "thread:data-loop*" in r["data-loop"]["decider"], r["data-loop"]
assert d["result"]["settings"]["Slice"] == "0.1ms"' "$T/out" "$P1" "${TIDS[1]}" ||
                fail "explain $args: $(cat "$T/out")"
done
expect_rc 1 --policy-dir "$POL" explain --tid "${TIDS[1]}" 1

# a name with a blank, quoted in the policy
spawn "Crab Game.x86_64" --sleep 60
expect_rc 0 --policy-dir "$POL" --json explain -a "$SPID"
py 'import json,sys
d = json.load(open(sys.argv[1]))
r = {x["rule"]: x for x in d["rules"]}
assert r["spaced"]["verdict"] == "matched", r["spaced"]
assert r["by-name"]["verdict"] == "not-matched"
assert d["result"]["settings"] == {"Nice": "4", "TimerSlack": "1ms"}, d["result"]' "$T/out" ||
        fail "explain of a name with a blank"

# a process no rule matches
mkdir -p "$T/pol2"
printf '[Rule other]\nMatch = name:nothing-matches-this || user:nobody-at-all\nNice = 1\n' \
        >"$T/pol2/50-test.policy"
sleep 60 &
PIDS+=($!)
expect_rc 0 --policy-dir "$T/pol2" explain $!
grep -q "no rule matches; latniced leaves it alone" "$T/out" || fail "no-match result: $(tail -3 "$T/out")"

# a kernel thread (kthreadd)
expect_rc 0 --policy-dir "$POL" --json explain 2
py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["task"]["kernel_thread"] is True, d["task"]' \
        "$T/out" || fail "explain of a kernel thread"

# a pid that does not exist
expect_rc 1 --policy-dir "$POL" explain 2147483647
grep -qx "latnicectl: no process with PID 2147483647" "$T/err" || fail "missing pid: $(cat "$T/err")"
expect_rc 1 get 2147483647
grep -qx "latnicectl: no process with PID 2147483647" "$T/err" || fail "get missing pid: $(cat "$T/err")"

# ---- several PIDs: explain $(pidof NAME) (issue 34) ---------------------------
spawn "$NAME" --sleep 60
P2=$SPID
expect_rc 0 --policy-dir "$POL" explain "$P2" "$P1"
[ "$(grep -c "^Process " "$T/out")" -eq 2 ] || fail "explain of two PIDs: $(cat "$T/out")"
grep "^Process \|^Result for" "$T/out" | cut -d' ' -f1-4 | tr -d ':' >"$T/order"
printf '%s\n' "Process $P2 (ln-spawn)" "Result for process $P2" \
        "Process $P1 (ln-spawn)" "Result for process $P1" | diff - "$T/order" >&2 ||
        fail "explain of two PIDs: not each in the order given"
# one that does not exist (gone since pidof): the others are explained, exit 1
expect_rc 1 --policy-dir "$POL" explain "$P1" 2147483647 "$P2"
grep -qx "latnicectl: no process with PID 2147483647" "$T/err" || fail "missing pid among several: $(cat "$T/err")"
[ "$(grep -c "^Result for process " "$T/out")" -eq 2 ] || fail "the others were not explained: $(cat "$T/out")"
expect_rc 0 --policy-dir "$POL" --json explain -a "$P1" "$P2"
py 'import json,sys
d = json.load(open(sys.argv[1]))
assert [x["pid"] for x in d] == [int(sys.argv[2]), int(sys.argv[3])], d
assert all(x["result"]["last_rule"] == "final" for x in d), d' "$T/out" "$P1" "$P2" ||
        fail "explain --json of two PIDs: $(cat "$T/out")"
expect_rc 1 --policy-dir "$POL" --json explain 2147483647 "$P2"
py 'import json,sys; d = json.load(open(sys.argv[1])); assert [x["pid"] for x in d] == [int(sys.argv[2])], d' \
        "$T/out" "$P2" || fail "explain --json with a missing pid: $(cat "$T/out")"
# none: an empty $(pidof NAME)
expect_rc 2 --policy-dir "$POL" explain
grep -q "^latnicectl: explain needs a PID, found none (with \$(pidof NAME): no process of that name runs)" \
        "$T/err" || fail "explain without a PID: $(cat "$T/err")"
expect_rc 2 --policy-dir "$POL" explain --tid "${TIDS[1]}" "$P1" "$P2"
expect_rc 2 --policy-dir "$POL" explain "$P1" notapid
[ -s "$T/out" ] && fail "explain went on before a usage error: $(cat "$T/out")"

# ---- main-thread: threads named as their process -------------------------------
MT=$T/policy-mt
mkdir -p "$MT"
cat >"$MT/50-mt.policy" <<'P'
[Rule data-thread]
Match = name:cli-test-mt && thread:cli-test-mt && main-thread:no
Nice = 5
P
# --comm before the threads start: all three are named cli-test-mt
spawn cli-test-mt --comm cli-test-mt --threads 2
MTP=$SPID
MTT=("${STIDS[@]}")
[ "${#MTT[@]}" -eq 3 ] && [ "${MTT[0]}" = "$MTP" ] || fail "main-thread: tids ${MTT[*]} of $MTP"
expect_rc 0 --policy-dir "$MT" explain "$MTP"
grep -qx "Result for process $MTP: no rule matches it as a whole; its threads are matched one by one (below)." "$T/out" ||
        fail "main-thread: the process as a whole matched: $(cat "$T/out")"
grep -q "^Threads (matched one by one" "$T/out" || fail "main-thread: no per-thread section: $(cat "$T/out")"
expect_rc 0 --policy-dir "$MT" --json explain "$MTP"
py 'import json,sys
d = json.load(open(sys.argv[1]))
pid = int(sys.argv[2])
assert d["result"]["settings"] == {} and d["result"]["thread_dependent"] is True, d["result"]
th = {x["tid"]: x for x in d["threads"]}
assert sorted(th) == sorted(int(t) for t in sys.argv[2:]), th.keys()
assert {x["name"] for x in th.values()} == {"cli-test-mt"}, th
for tid, x in th.items():
    want = {} if tid == pid else {"Nice": "5"}
    assert x["result"]["settings"] == want, (tid, x)' "$T/out" "${MTT[@]}" ||
        fail "main-thread: explain --json: $(cat "$T/out")"
for tid in "${MTT[0]}" "${MTT[2]}"; do
        expect_rc 0 --policy-dir "$MT" --json explain --all --tid "$tid" "$MTP"
        py 'import json,sys
d = json.load(open(sys.argv[1]))
main = sys.argv[2] == sys.argv[3]
r = d["rules"][0]
assert r["rule"] == "data-thread" and r["verdict"] == ("not-matched" if main else "matched"), r
# false: the one predicate decided; true: all of them did
assert r["decider"] == ("main-thread:no" if main else
                        "name:cli-test-mt && thread:cli-test-mt && main-thread:no"), r
assert d["result"]["settings"] == ({} if main else {"Nice": "5"}), d["result"]' \
                "$T/out" "$MTP" "$tid" || fail "main-thread: explain --tid $tid: $(cat "$T/out")"
done

# ---- get ---------------------------------------------------------------------
need_root
renice -n 6 -p "${TIDS[2]}" >/dev/null || fail "renice"
expect_rc 0 get "$P1"
[ "$(grep -c '^ *[0-9]\+ ' "$T/out")" -eq 3 ] || fail "get: expected 3 thread rows: $(cat "$T/out")"
grep -q "^ *${TIDS[1]} data-loop *other " "$T/out" || fail "get: data-loop row: $(cat "$T/out")"
grep -q "^ *TID NAME " "$T/out" || fail "get: no header: $(cat "$T/out")"
expect_rc 0 --json get "$P1"
"$GETATTR" --json "${TIDS[@]}" >"$T/kernel.json" || fail "ln-getattr"
"$PY" - "$T/out" "$T/kernel.json" <<'PYEOF' || fail "get --json disagrees with sched_getattr: $(cat "$T/out")"
import json, os, sys
d = json.load(open(sys.argv[1]))
kern = {x["tid"]: x for x in map(json.loads, open(sys.argv[2]))}
th = {x["tid"]: x for x in d["threads"]}
assert sorted(th) == sorted(kern), (th.keys(), kern.keys())
for tid, k in kern.items():
    g = th[tid]
    assert g["policy"] == k["policy"], (g, k)
    assert g["nice"] == k["nice"], (g, k)
    assert g["slice_ns"] == k["slice_ns"], (g, k)
    assert g["custom_slice"] == k["custom_slice"], (g, k)
    assert g["latency_nice"] == k["latency_nice"], (g, k)
    assert g["timer_slack_ns"] == k["timerslack_ns"], (g, k)
# the test may run under nice (the spawned threads inherit it): renice set one to 6
assert sorted(x["nice"] for x in d["threads"]) == sorted([os.nice(0)] * 2 + [6]), d
assert {x["name"] for x in d["threads"]} == {"ln-spawn", "data-loop", "io"}
PYEOF

echo "PASS"
