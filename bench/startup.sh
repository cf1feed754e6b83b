#!/usr/bin/env bash
# Start-up cost of two builds, run in turn (old, new, old, new ...) so both
# see the same load: wall time of ROUNDS pairs (default 100) of each of
#   1. abbench --version;
#   2. abbench-rank's cheapest call (no coordination environment: it
#      checks, says so and exits, as a rank's wrapper does before any work);
#   3. abbench replay of one 64 KiB rank log (bench/evidence.sh's call);
# and the package initialisation abbench and abbench-rank report
# (GODEBUG=inittrace=1: time, bytes and allocations of all packages).
# Medians of each, and the median of the pairs' new/old ratios.
#   bench/startup.sh OLD_DIR NEW_DIR [ROUNDS]
# Each DIR holds abbench and abbench-rank; NEW_DIR also genlogs
# (go build -o DIR/ ./cmd/abbench ./cmd/abbench-rank ./bench/genlogs).
set -euo pipefail
old=${1:?usage: bench/startup.sh OLD_DIR NEW_DIR [ROUNDS]} new=${2:?usage: bench/startup.sh OLD_DIR NEW_DIR [ROUNDS]}
rounds=${3:-100}
work=$(mktemp -d "${TMPDIR:-/tmp}/abbench-startup.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$new/genlogs" -dir "$work/ev" -ranks 1 -prefix 0 -scope 65536

us() { # microseconds of wall time of "$@", its output and status ignored
	local t0=${EPOCHREALTIME/./}
	"$@" >/dev/null 2>&1 || true
	echo $((${EPOCHREALTIME/./} - t0))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

pairs() { # NAME ARGS...: "$old/NAME ARGS" against "$new/NAME ARGS"
	local name=$1 i a b
	shift
	: >"$work/pairs"
	for ((i = 0; i < rounds; i++)); do
		a=$(us "$old/$name" "$@") b=$(us "$new/$name" "$@")
		echo "$a $b" >>"$work/pairs"
	done
	printf '%-40s old %6.2f ms, new %6.2f ms, new/old %.3f (medians of %d pairs)\n' "$name ${1:-}" \
		"$(awk '{ print $1 / 1000 }' "$work/pairs" | median)" "$(awk '{ print $2 / 1000 }' "$work/pairs" | median)" \
		"$(awk '{ print $2 / $1 }' "$work/pairs" | median)" "$rounds"
}

inits() { # DIR NAME: median over 21 starts of all packages' init time, bytes, allocations
	local i
	for ((i = 0; i < 21; i++)); do
		GODEBUG=inittrace=1 "$1/$2" --version 2>&1 >/dev/null | awk '/^init / { t += $5; b += $8; a += $10 } END { printf "%.3f %d %d\n", t, b, a }'
	done | sort -n | awk 'NR == 11 { printf "%.2f ms, %d KiB, %d allocations", $1, $2 / 1024, $3 }'
}

for name in abbench abbench-rank; do
	echo "package initialisation of $name: old $(inits "$old" $name), new $(inits "$new" $name) (median of 21)"
done
pairs abbench --version
pairs abbench-rank
pairs abbench replay "$work/ev/s.yaml" --arm async --from "$work/ev/run" --format json
