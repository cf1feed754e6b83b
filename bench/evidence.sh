#!/usr/bin/env bash
# Evidence extraction benchmarks (results go in the issue note):
#  1. a 4 GiB cumulative log whose scope is its last 64 MiB: bytes read
#     (the reader's own count, in evidence.json) against 64 MiB, and the time
#     against the same scope with no prefix;
#  2. extraction throughput on the scoped bytes against ripgrep with the
#     same patterns (goal: abbench >= 0.5x ripgrep);
#  3. 1,024 rank logs of 8 MiB against ripgrep over the same files (goal:
#     abbench >= 1x ripgrep), wall and CPU seconds of each, interleaved so
#     both see the same load, and peak memory (goal <= 128 MiB).
#   bench/evidence.sh [--quick]   (--quick: 256 MiB prefix and 64 ranks)
#   bench/evidence.sh --many [RANKS]   (part 3 alone, with RANKS logs,
#     64 by default: the row for 16 cores)
# On a machine without Go or network: ABBENCH_BIN=DIR holds prebuilt
# abbench and genlogs (go build -o DIR/ ./cmd/abbench ./bench/genlogs), and
# RG=PATH names the ripgrep to run (else rg on PATH, installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=${1:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/abbench-evidence.XXXXXX")
trap 'rm -rf "$work"' EXIT
rg=${RG:-rg}
if [ -z "${RG:-}" ] && ! command -v rg >/dev/null; then
	echo "installing ripgrep"; apt-get install -y -qq ripgrep >/dev/null
fi
"$rg" --version | sed -n 1p # sed reads it all: head, closing early, fails ripgrep under pipefail
if [ -n "${ABBENCH_BIN:-}" ]; then # prebuilt, for a machine without Go
	mkdir -p "$work/bin" && cp "$ABBENCH_BIN/abbench" "$ABBENCH_BIN/genlogs" "$work/bin/"
else
	go build -o "$work/bin/" ./cmd/abbench ./bench/genlogs
fi
abb="$work/bin/abbench" gen="$work/bin/genlogs"
prefix=$((4 << 30)) ranks=1024
if [ "$quick" = --quick ]; then prefix=$((256 << 20)) ranks=64; fi
if [ "$quick" = --many ]; then ranks=${2:-64}; fi

best() { # best wall seconds of 5 runs of "$@", output discarded
	local b="" t0 t1 t
	for _ in 1 2 3 4 5; do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		t1=$(date +%s%N)
		t=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", (b-a)/1e9}')
		if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
	done
	echo "$b"
}
replay() { "$abb" replay "$1/s.yaml" --arm async --from "$1/run" --format json; }
replay_cmd() { echo "$abb" replay "$1/s.yaml" --arm async --from "$1/run" --format json; }

# ripgrep's patterns: every rule's of the scenario (a counter's with a
# value too), without group names
rg_args() {
	local p
	args=()
	while IFS= read -r p; do args+=(-e "$p"); done < <(sed -n "s/.*pattern: '\([^']*\)'.*/\1/p" "$1" | sed 's/(?P<[A-Za-z_]*>/(/g')
	[ "$((${#args[@]} / 2))" -eq "$(grep -c "pattern: '" "$1")" ] || { echo "evidence.sh: not every pattern of $1 was read for ripgrep" >&2; exit 1; }
}

if [ "$quick" != --many ]; then
echo "== 1. scope of 64 MiB at the end of a $((prefix >> 20)) MiB log"
"$gen" -dir "$work/big" -ranks 1 -prefix "$prefix" -scope $((64 << 20)) -sparse
"$gen" -dir "$work/small" -ranks 1 -prefix 0 -scope $((64 << 20))
read_bytes=$(replay "$work/big" | sed -n 's/.*"bytes_read": \([0-9]*\).*/\1/p' | head -1)
t_big=$(best $(replay_cmd "$work/big")) t_small=$(best $(replay_cmd "$work/small"))
awk -v r="$read_bytes" -v tb="$t_big" -v ts="$t_small" 'BEGIN {
	printf "bytes read: %d = %.3f%% of 64 MiB (goal: within 1%%)\n", r, 100 * r / 67108864
	printf "time with the prefix %.4fs, without %.4fs: ratio %.2f (goal: about 1)\n", tb, ts, tb / ts
}'

echo "== 2. extraction on one 256 MiB scope against ripgrep (same patterns)"
"$gen" -dir "$work/one" -ranks 1 -prefix 0 -scope $((256 << 20))
rg_args "$work/one/s.yaml"
cat "$work/one/scope-0.log" >/dev/null
t_rg=$(best "$rg" -c -j1 "${args[@]}" "$work/one/scope-0.log")
t_abb=$(best $(replay_cmd "$work/one"))
awk -v tr="$t_rg" -v ta="$t_abb" 'BEGIN {
	printf "ripgrep %.4fs (%.0f MiB/s), abbench replay %.4fs (%.0f MiB/s): abbench/ripgrep throughput %.2f (goal >= 0.7)\n", tr, 256/tr, ta, 256/ta, tr/ta
}'

fi

echo "== 3. $ranks rank logs of 8 MiB, against ripgrep over the same files"
"$gen" -dir "$work/many" -ranks "$ranks" -prefix 0 -scope $((8 << 20))
rg_args "$work/many/s.yaml"
cat "$work"/many/run/ctx-*.log >/dev/null
# five rounds, abbench then ripgrep in each: the best wall time and the
# least CPU time (user and system) of each, and abbench's peak memory
# (wall time from bash's clock, in microseconds: time's is in hundredths)
timed() { # OUT COMMAND...: "wall user system rss" of COMMAND into OUT
	local out=$1 t0 t1
	shift
	t0=${EPOCHREALTIME/./}
	/usr/bin/time -f '%U %S %M' -o "$out" "$@" >/dev/null || true
	t1=${EPOCHREALTIME/./}
	echo "$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.6f", d / 1e6 }') $(tail -1 "$out")" >"$out"
}
for i in 1 2 3 4 5; do
	timed "$work/a$i" "$abb" replay "$work/many/s.yaml" --arm async --from "$work/many/run" --format json
	timed "$work/r$i" "$rg" -c "${args[@]}" "$work/many/run"
done
least() { for f in "$@"; do tail -1 "$f"; done | awk -v k="$col" 'NR == 1 || $k + 0 < m { m = $k + 0 } END { print m }'; }
col=1 t_many=$(least "$work"/a?) t_rgm=$(least "$work"/r?)
cpu() { for f in "$@"; do tail -1 "$f"; done | awk 'NR == 1 || $2 + $3 < m { m = $2 + $3 } END { print m }'; }
c_many=$(cpu "$work"/a?) c_rgm=$(cpu "$work"/r?)
rss=$(for f in "$work"/a?; do tail -1 "$f"; done | awk '$4 > m { m = $4 } END { print m }')
awk -v s="$t_many" -v r="$t_rgm" -v cs="$c_many" -v cr="$c_rgm" -v m="$rss" -v n="$ranks" -v cores="$(nproc)" 'BEGIN {
	printf "%d ranks, %d MiB, %d cores\n", n, n*8, cores
	printf "abbench replay %.3fs wall (%.0f MiB/s), %.3fs CPU; ripgrep %.3fs wall, %.3fs CPU\n", s, n*8/s, cs, r, cr
	printf "abbench/ripgrep throughput %.2f by wall (goal >= 1), %.2f by CPU\n", r/s, cr/cs
	printf "peak memory %.1f MiB (goal <= 128)\n", m/1024
}'
