#!/usr/bin/env bash
# compare of many runs from disk: one campaign of 10 real runs (a fast
# shell system, each run bundled), copied until there are RUNS runs
# (default 10,000), then `abbench compare` over every copy, as a CI job
# comparing a long history would. Each run is loaded, its bundle verified
# and its evidence derived again from its files; the copies make the
# comparison censored (duplicate-run), which changes nothing of that work.
# The in-memory gate and statistics of 10,000 runs are measured by
#   go test -bench Compare10000 ./internal/compare
# Goal: <= 2 s and <= 256 MiB for 10,000 runs. It prints the wall time
# beside the CPU time (user + system, which a machine shared with other
# work does not inflate as it does the wall time) and the peak memory.
#   bench/compare-many.sh [RUNS]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:-10000}
bench_setup compare-many
{ ab_scenario_head many; cat <<'YAML'; } >"$work/s.yaml"
roles:
  - {name: w, arm_env: true, ready: {log: 'up'}, command: [sh, -c, 'echo "mode rank=0 MODE=$MODE"; echo up; exec sleep 60']}
  - {name: client, client: true, after_ready: true,
     command: [sh, -c, 'printf "{\"num_prompts\": 1, \"completed\": 1, \"failed\": 0, \"output_throughput\": %d.5}" $((100 + $$ % 7)) > "{{.Out}}/t.json"']}
evidence:
  mode: {role: w, pattern: 'mode rank=(?P<rank>\d+) MODE=(?P<MODE>\S+)'}
  throughput: {file: t.json, format: vllm}
acceptance:
  - {requests: all}
  - {throughput: valid}
  - {mode: all-ranks}
deadlines: {ready: 10s, client: 10s, drain: 1s, teardown: 5s, kill_grace: 1s}
YAML
"$work/bin/abbench" run "$work/s.yaml" --repeat 5 --out "$work/c/0" >/dev/null 2>&1
for i in $(seq 1 $((runs / 10 - 1))); do cp -r "$work/c/0" "$work/c/$i"; done
n=$(find "$work/c" -name evidence.json -path '*/bundle/*' | wc -l)
/usr/bin/time -f "%e %U %S %M" -o "$work/t" "$work/bin/abbench" compare "$work"/c/* >"$work/out" 2>&1 || true
read -r secs user sys rss < <(tail -1 "$work/t")
grep -q 'duplicate-run' "$work/out" || { echo "compare did not read every run:"; tail "$work/out"; exit 1; }
awk -v s="$secs" -v u="$user" -v k="$sys" -v m="$rss" -v n="$n" -v cores="$(nproc)" 'BEGIN {
	printf "%d runs (bundles) on %d cores: abbench compare %.2f s wall (%.2f ms a run; goal <= 2 s: %s), %.2f s CPU (%.2f user + %.2f system), peak memory %.1f MiB (goal <= 256 MiB: %s)\n", n, cores, s, 1000 * s / n, s <= 2 ? "met" : "missed", u + k, u, k, m / 1024, m <= 256 * 1024 ? "met" : "missed"
}'
