#!/usr/bin/env bash
# The history store at the size a nightly job with a few dozen series
# reaches in a few years: SERIES series of POINTS runs (default 100 x 1,000:
# 100,000 entries) written in the store's real format by bench/genhistory,
# every other series with a 3% step, the rest flat. Then
#  - abbench history show over the whole store (every series searched for
#    change points; the table output), goal <= 2 s;
#  - abbench history add of a real campaign (6 runs and a comparison, each
#    run's bundle verified) into that store, goal <= 100 ms, beside the same
#    add into an empty store (what the store's size costs is the difference).
# Each is timed three times (the median printed), wall and CPU (user+sys),
# since other work on the machine stretches wall time. The change points
# found are counted: on the stepped series and on the flat ones.
#   bench/history.sh            SERIES=10 POINTS=100 bench/history.sh
# With ABBENCH_BIN=DIR, DIR holds abbench, abbench-rank, disaggsim and
# genhistory, built CGO_ENABLED=0 (no Go on the machine).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
series=${SERIES:-100} points=${POINTS:-1000}
bench_setup history
if [ -n "${ABBENCH_BIN:-}" ]; then
	cp "$ABBENCH_BIN/genhistory" "$work/bin/"
else
	go build -o "$work/bin/" ./bench/genhistory
fi
abb="$work/bin/abbench"
"$work/bin/genhistory" -store "$work/big.jsonl" -series "$series" -points "$points"
# The campaign to add: a shell "server" and a client that writes a vLLM
# result, three runs an arm.
{ ab_scenario_head nightly; cat <<'YAML'; } >"$work/s.yaml"
roles:
  - {name: server, arm_env: true, ready: {log: 'up'}, command: [sh, -c, 'echo up; exec sleep 60']}
  - {name: client, client: true, after_ready: true, command: [sh, -c, 'echo "{\"num_prompts\": 1, \"completed\": 1, \"failed\": 0, \"output_throughput\": 1$$.5}" > "{{.Out}}/t.json"']}
evidence: {throughput: {file: t.json, format: vllm}}
acceptance: [{requests: all}, {throughput: valid}]
deadlines: {ready: 10s, client: 10s, drain: 1s, teardown: 5s, kill_grace: 1s}
YAML
"$abb" run "$work/s.yaml" --repeat 3 --out "$work/campaign" >/dev/null 2>&1

# timed LABEL CMD...: appends "LABEL wall user+sys" (seconds, to the
# microsecond and the millisecond) to $work/times. The CPU time is the
# shell's children's, from the times builtin (run in this shell: a
# subshell's children would not be the command).
timed() {
	local label=$1 w0 w1
	shift
	times >"$work/cpu0"
	w0=$(date +%s%N)
	"$@" >"$work/out" 2>&1 || { echo "$label failed:"; tail "$work/out"; exit 1; }
	w1=$(date +%s%N)
	times >"$work/cpu1"
	awk -v l="$label" -v w=$(((w1 - w0) / 1000)) 'function s(t) { split(t, a, "m"); return a[1] * 60 + a[2] }
		FNR == 2 { c[FILENAME] = s($1) + s($2) } END { print l, w / 1e6, c[ARGV[2]] - c[ARGV[1]] }' "$work/cpu0" "$work/cpu1" >>"$work/times"
}
for _ in 1 2 3; do
	timed show "$abb" history show --store "$work/big.jsonl"
	cp "$work/big.jsonl" "$work/h.jsonl"
	timed add "$abb" history add "$work/campaign" --store "$work/h.jsonl"
	grep -q 'added 7 entries' "$work/out" || { echo "the add added other than 7 entries:"; cat "$work/out"; exit 1; }
	rm -f "$work/empty.jsonl"
	timed add-empty "$abb" history add "$work/campaign" --store "$work/empty.jsonl"
done
"$abb" history show --store "$work/big.jsonl" >"$work/show.txt"
median() { awk -v l="$1" -v f="$2" '$1 == l { print $f }' "$work/times" | sort -g | sed -n 2p; }
# genhistory steps series s when s is even: its scenario nightly-(s/4), arm arm-(s%4).
read -r stepped found falses < <(awk '
	/^nightly-/ { split($1, sc, "-"); split($3, arm, "-"); s = sc[2] * 4 + arm[2]; step = s % 2 == 0; steps += step }
	/^  change at run/ && !seen[s]++ { if (step) found++; else falses++ }
	END { print steps + 0, found + 0, falses + 0 }' "$work/show.txt")
size=$(stat -c %s "$work/big.jsonl")
awk -v series="$series" -v points="$points" -v size="$size" -v cores="$(nproc)" \
	-v sw="$(median show 2)" -v sc="$(median show 3)" -v aw="$(median add 2)" -v ac="$(median add 3)" \
	-v ew="$(median add-empty 2)" -v ec="$(median add-empty 3)" \
	-v stepped="$stepped" -v found="$found" -v falses="$falses" 'BEGIN {
	printf "store: %d series x %d runs = %d entries, %.1f MiB; %d cores\n", series, points, series * points, size / 1048576, cores
	printf "history show: %.2f s wall, %.2f s CPU (goal <= 2 s); a change found in %d of %d stepped series, in %d of %d flat ones\n", sw, sc, found, stepped, falses, series - stepped
	printf "history add (7 entries): %.0f ms wall, %.0f ms CPU into the store (goal <= 100 ms); %.0f ms wall, %.0f ms CPU into an empty one\n", 1000 * aw, 1000 * ac, 1000 * ew, 1000 * ec
}'
