#!/usr/bin/env bash
# Campaign overhead between runs (local launcher): from one run's end (its
# status.json "ended") to the next run's first rank started (the rank's own
# timestamp, printed as it starts), beside a plain shell starting the same
# rank command after the same end. The scenario's one rank starts and exits
# at once, so what is left is the campaign's own work between runs (the
# run's evidence and bundle, the next run's directory, launcher and
# controller). Median over the runs of one campaign of 2 x ROUNDS runs
# (default 10). Goal: <= 50 ms more than the shell.
#   bench/campaign-overhead.sh [ROUNDS]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
rounds=${1:-10}
bench_setup campaign-overhead
rank_cmd='echo "start $(date +%s%N)"'
{ ab_scenario_head overhead; cat <<YAML; } >"$work/s.yaml"
roles:
  - {name: client, client: true, command: [sh, -c, '$rank_cmd']}
YAML

ns_of() { date -d "$1" +%s%N; } # an RFC 3339 time, in nanoseconds
field() { sed -n "s/^  \"$1\": \"\(.*\)\",*$/\1/p" "$2"; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

/usr/bin/time -f '%e %U %S' -o "$work/t" "$work/bin/abbench" run "$work/s.yaml" --launcher local --repeat "$rounds" --out "$work/c" >/dev/null 2>&1 || true
read -r wall user sys < <(tail -1 "$work/t")
gaps=() between=() own=() prev=""
for dir in $(sed -n 's/^ *"dir": "\(.*\)",*$/\1/p' "$work/c/plan.json"); do
	[ -d "$dir" ] || dir="$work/c/$dir"
	run="$dir/$(cat "$dir/LATEST")"
	rank=$(sed -n 's/^start \([0-9]*\)$/\1/p' "$run/client-0.log")
	[ -n "$rank" ] || { echo "campaign-overhead: $run/client-0.log holds no start time: the run did not start its rank" >&2; exit 1; }
	started=$(ns_of "$(field started "$run/status.json")")
	if [ -n "$prev" ]; then
		gaps+=($(((rank - prev) / 1000))) between+=($(((started - prev) / 1000))) own+=($(((rank - started) / 1000)))
	fi
	prev=$(ns_of "$(field ended "$run/status.json")")
done
((${#gaps[@]} > 0)) || { echo "campaign-overhead: the campaign left fewer than two runs" >&2; exit 1; }

# The shell: the same rank command, started as soon as the last one ended.
sh_=()
for _ in $(seq "${#gaps[@]}"); do
	t0=${EPOCHREALTIME/./}
	t=$(sh -c "$rank_cmd" | sed -n 's/^start \([0-9]*\)$/\1/p')
	sh_+=($(((t / 1000) - t0)))
done

mg=$(median "${gaps[@]}") mb=$(median "${between[@]}") mo=$(median "${own[@]}") ms=$(median "${sh_[@]}")
printf 'runs: %d (%d gaps), %d cores; the campaign: %.2fs wall, %.2fs CPU\n' $((${#gaps[@]} + 1)) "${#gaps[@]}" "$(nproc)" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')"
awk -v g="$mg" -v b="$mb" -v o="$mo" -v s="$ms" 'BEGIN {
	printf "%-52s %8.1f ms\n", "run end to the next run started (status.json)", b / 1000
	printf "%-52s %8.1f ms\n", "run started to its rank started", o / 1000
	printf "%-52s %8.1f ms\n", "run end to the next run'"'"'s rank started", g / 1000
	printf "%-52s %8.1f ms\n", "plain shell: the rank command started", s / 1000
	printf "%-52s %8.1f ms (goal <= 50)\n", "campaign overhead between runs", (g - s) / 1000
}'
