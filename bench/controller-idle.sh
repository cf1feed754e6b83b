#!/usr/bin/env bash
# Controller CPU while RANKS (default 1,024) idle ranks wait through a
# client phase of WINDOW seconds (default 60): the controller's user+system
# CPU time over the window, from /proc, as a share of one core. Goal: <= 5%
# (no busy polling).
#   bench/controller-idle.sh [WINDOW_S]   (RANKS=N for another rank count)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
window=${1:-60}
ranks=${RANKS:-1024}
bench_setup controller-idle
{ ab_scenario_head idle; cat <<YAML; } >"$work/s.yaml"
roles:
  - {name: worker, ranks: $ranks, arm_env: true, command: [sleep, "3600"]}
  - {name: client, client: true, after_ready: true, command: [sh, -c, 'echo client up; exec sleep $((window + 30))']}
deadlines: {ready: 120s, client: $((window + 120))s, teardown: 30s, kill_grace: 2s}
YAML
"$work/bin/abbench" arm "$work/s.yaml" --arm a --out "$work/out" >/dev/null 2>&1 &
pid=$!
# Wait for the client phase: every rank started and the client running.
for _ in $(seq 600); do
	if grep -qs 'client up' "$work"/out/*/client-0.log; then break; fi
	sleep 0.2
done
grep -qs 'client up' "$work"/out/*/client-0.log || { echo "the client never started"; kill "$pid"; exit 1; }
sleep 2
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
t0=$(ticks)
sleep "$window"
t1=$(ticks)
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
hz=$(getconf CLK_TCK)
awk -v a="$t0" -v b="$t1" -v hz="$hz" -v w="$window" -v n="$ranks" 'BEGIN {
	printf "%d idle ranks, client phase of %d s: controller CPU %.2f s = %.2f%% of one core (goal <= 5%%)\n", n, w, (b - a) / hz, 100 * (b - a) / hz / w
}'
