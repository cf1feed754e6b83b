#!/usr/bin/env bash
# Digest throughput against openssl's SHA-256 on the same file, and peak memory.
#   bench/digest.sh [SIZE_MIB]   (default 512)
# Generates a token prompts file (prompts of 100 to 8,000 token IDs below
# 200,000), warms the page cache, then times `openssl dgst -sha256` and
# `abbench digest` (with and without --records) and prints their ratio.
# Goal: abbench >= 0.5x openssl; peak RSS <= 64 MiB (+40 B/prompt with records).
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib=${1:-512}
work=$(mktemp -d "${TMPDIR:-/tmp}/abbench-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -n "${ABBENCH_BIN:-}" ]; then # prebuilt, for a machine without Go
	cp "$ABBENCH_BIN/abbench" "$ABBENCH_BIN/genprompts" "$work/"
else
	go build -o "$work/abbench" ./cmd/abbench
	go build -o "$work/genprompts" ./bench/genprompts
fi
file="$work/prompts.jsonl"
"$work/genprompts" -o "$file" -size $((size_mib << 20))
bytes=$(stat -c %s "$file")
prompts=$(wc -l <"$file")
cat "$file" >/dev/null # page cache

# best of 3 wall-clock seconds and the peak RSS (KiB) of that run
measure() {
	local best="" rss=""
	for _ in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null
		read -r t m <"$work/time"
		if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t rss=$m; fi
	done
	echo "$best $rss"
}
read -r t_ssl m_ssl < <(measure openssl dgst -sha256 "$file")
read -r t_ab m_ab < <(measure "$work/abbench" digest "$file")
read -r t_rec m_rec < <(measure "$work/abbench" digest --records "$work/r" "$file")

awk -v b="$bytes" -v n="$prompts" -v ts="$t_ssl" -v ta="$t_ab" -v tr="$t_rec" \
	-v ms="$m_ssl" -v ma="$m_ab" -v mr="$m_rec" 'BEGIN {
	mb = b / 1048576
	printf "file: %.0f MiB, %d prompts, %d cores\n", mb, n, '"$(nproc)"'
	printf "%-32s %8s %10s %10s\n", "tool", "seconds", "MiB/s", "peak MiB"
	printf "%-32s %8.2f %10.0f %10.1f\n", "openssl dgst -sha256", ts, mb/ts, ms/1024
	printf "%-32s %8.2f %10.0f %10.1f\n", "abbench digest", ta, mb/ta, ma/1024
	printf "%-32s %8.2f %10.0f %10.1f\n", "abbench digest --records", tr, mb/tr, mr/1024
	printf "ratio abbench/openssl throughput: %.2f (goal >= 0.5)\n", ts/ta
	printf "peak memory: %.1f MiB without records (goal <= 64), %.1f MiB with records (goal <= %.1f)\n", ma/1024, mr/1024, 64 + n*40/1048576
}'
