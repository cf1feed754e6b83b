#!/usr/bin/env bash
# Controller overhead: time from starting `abbench arm` to every one of 16
# ranks registered, minus the time a plain shell script takes to start the
# same 16 processes, each writing a timestamp as the rank wrapper writes its
# registration. Median of ROUNDS (default 7). Goal: <= 50 ms.
#   bench/arm-overhead.sh [ROUNDS]   (RANKS=N for another rank count;
#   READY=DURATION for the ready deadline, 30s by default; SLEEP=SECONDS
#   for how long each rank lives, 30 by default: longer than the start)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
rounds=${1:-7}
ranks=${RANKS:-16}
bench_setup arm-overhead
{ ab_scenario_head overhead; cat <<YAML; } >"$work/s.yaml"
roles:
  - {name: worker, ranks: $ranks, arm_env: true, command: [sleep, "${SLEEP:-30}"]}
  - {name: client, client: true, after_ready: true, command: ["true"]}
deadlines: {ready: ${READY:-30s}, teardown: 60s, kill_grace: 1s}
YAML

ns() { date +%s%N; }
# latest registration time (RFC 3339) of a run, in nanoseconds
last_registration() {
	local latest=0 t
	for f in "$1"/coord/ranks/worker-*.json; do
		t=$(sed -n 's/.*"time": "\(.*\)".*/\1/p' "$f")
		t=$(date -d "$t" +%s%N)
		((t > latest)) && latest=$t
	done
	echo "$latest"
}

abb=() sh_=()
for i in $(seq "$rounds"); do
	out="$work/out$i"
	t0=$(ns)
	"$work/bin/abbench" arm "$work/s.yaml" --arm a --out "$out" >/dev/null 2>&1
	tl=$(last_registration "$out/$(cat "$out/LATEST")")
	abb+=($(((tl - t0) / 1000)))

	d="$work/sh$i"; mkdir -p "$d"
	t0=$(ns)
	pids=()
	for r in $(seq 0 $((ranks - 1))); do
		sh -c 'date +%s%N > "$0"; exec sleep "$1"' "$d/$r" "${SLEEP:-30}" & pids+=($!)
	done
	# Each timestamp file is the process's own answer (written by it once
	# started); spin on it, as the measurement needs, but for at most 30 s.
	end=$((SECONDS + 30))
	for r in $(seq 0 $((ranks - 1))); do
		while [ ! -s "$d/$r" ]; do
			((SECONDS < end)) || { echo "arm-overhead: shell process $r wrote no timestamp within 30s" >&2; kill "${pids[@]}"; exit 1; }
		done
	done
	tl=$(cat "$d"/* | sort -n | tail -1)
	kill "${pids[@]}" 2>/dev/null || true
	wait 2>/dev/null || true
	sh_+=($(((tl - t0) / 1000)))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ma=$(median "${abb[@]}") ms=$(median "${sh_[@]}")
printf 'ranks: %d, rounds: %d, %d cores\n' "$ranks" "$rounds" "$(nproc)"
awk -v a="$ma" -v s="$ms" 'BEGIN {
	printf "%-44s %8.1f ms\n", "abbench arm: start to all ranks registered", a / 1000
	printf "%-44s %8.1f ms\n", "plain shell: start to all ranks started", s / 1000
	printf "%-44s %8.1f ms (goal <= 50)\n", "controller overhead", (a - s) / 1000
	printf "ratio abbench/shell: %.2f\n", a / s
}'
