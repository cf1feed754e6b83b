#!/usr/bin/env bash
# Controller memory with a huge rank log: a rank writes SIZE_GIB (default 3)
# of log lines before its ready line and its mode line, so the readiness
# probe and the mode checks poll the log the whole time it grows. Prints the
# controller's peak RSS (GNU time) beside the log's size. Goal: <= 64 MiB
# with a 3 GiB log (each poll reads only what the log gained).
#   bench/controller-memory.sh [SIZE_GIB]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
gib=${1:-3}
bench_setup controller-memory
{ ab_scenario_head ctlmem; cat <<YAML; } >"$work/s.yaml"
roles:
  - name: server
    arm_env: true
    command: [sh, -c, 'yes "a log line of the profiling lifecycle, nothing to see" | head -c ${gib}G; echo "mode=\$MODE"; echo up; exec sleep 60']
    ready: {log: '^up$'}
  - {name: client, client: true, after_ready: true, command: ["true"]}
evidence:
  mode: {role: server, pattern: 'mode=(?P<MODE>\d)(?P<rank>)'}
deadlines: {ready: 10m, teardown: 10s, kill_grace: 1s}
YAML
/usr/bin/time -f '%M %e' -o "$work/time" "$work/bin/abbench" arm "$work/s.yaml" --arm a --out "$work/out" >/dev/null 2>"$work/stderr" || true
read -r kib secs <"$work/time"
log=$(stat -c %s "$work"/out/*/server-0.log)
grep -q 'state": "succeeded' "$work"/out/*/status.json || { echo "the run did not succeed:"; cat "$work/stderr"; exit 1; }
awk -v kib="$kib" -v secs="$secs" -v logsize="$log" 'BEGIN {
	printf "rank log: %.2f GiB, written while the controller polled it\n", logsize / 2^30
	printf "abbench arm: peak RSS %.1f MiB, %.1f s (goal: <= 64 MiB)\n", kib / 1024, secs
}'
