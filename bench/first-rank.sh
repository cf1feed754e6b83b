#!/usr/bin/env bash
# Time from `abbench run scenarios/quickstart.yaml --repeat 1` starting to
# its first rank starting: what a user waits for before anything of the
# benchmark runs (the plan, the scenario's checks, the run directory, the
# controller, the launcher). The first rank's start is its registration
# (coord/ranks/ROLE-RANK.json, written by the rank wrapper just before it
# executes the rank's command): the earliest of the first run's. The
# campaign is stopped there (SIGTERM), so a round costs seconds, not the
# campaign. Median of ROUNDS (default 5).
#   bench/first-rank.sh [ROUNDS]
# Goal: under 0.5 s (issue 47: no Monte Carlo or other table computed at
# start-up).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
rounds=${1:-5}
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
	echo "ROUNDS must be a whole number of at least 1, not '$rounds'" >&2
	exit 2
fi
bench_setup first-rank
export PATH="$work/bin:$PATH" # the quickstart's roles run disaggsim from PATH

ms=()
for r in $(seq "$rounds"); do
	out="$work/c$r"
	t0=$(date +%s%N)
	"$work/bin/abbench" run scenarios/quickstart.yaml --repeat 1 --out "$out" >"$work/run.log" 2>&1 &
	pid=$!
	first=""
	for _ in $(seq 600); do # 30 s at most
		first=$(find "$out/runs" -path '*/coord/ranks/*.json' -printf '%T@\n' 2>/dev/null | sort -n | head -1 || true)
		[ -n "$first" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	if [ -z "$first" ]; then
		echo "first-rank: round $r: no rank registered within 30 s; the run's output:" >&2
		tail -20 "$work/run.log" >&2
		exit 1
	fi
	ms+=("$(awk -v f="$first" -v t="$t0" 'BEGIN {printf "%.0f", f * 1000 - t / 1e6}')")
done
median=$(printf '%s\n' "${ms[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "rounds: ${ms[*]} ms; $(nproc) cores"
echo "abbench run to its first rank started: $median ms at the median (goal < 500)"
