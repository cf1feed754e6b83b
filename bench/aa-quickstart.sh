#!/usr/bin/env bash
# The A/A quickstart, with SEEDS simulator seeds (default 20): both arms run
# the same system (scenarios/quickstart-aa.yaml), each campaign in abba pairs
# until conclusive, as `abbench run` does by default. Prints each campaign's
# verdict, pairs and delta, then the tally; exits 1 if any campaign said
# improved or regressed. A fast subset (2 seeds) runs in go test
# (cmd/abbench/testdata/script/run_aa.txtar).
#   bench/aa-quickstart.sh [SEEDS]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_setup aa
seeds=${1:-20}
declare -A tally
for seed in $(seq "$seeds"); do
	sed -e "s|DISAGGSIM_SEED: \"42\"|DISAGGSIM_SEED: \"$seed\"|" -e "s|prompts: ../testdata/|prompts: $PWD/testdata/|" \
		scenarios/quickstart-aa.yaml >"$work/aa-$seed.yaml"
	set +e
	"$work/bin/abbench" run "$work/aa-$seed.yaml" --out "$work/out-$seed" >"$work/report-$seed.txt" 2>"$work/log-$seed.txt"
	code=$?
	set -e
	verdict=$(sed -n 's/^verdict: \([a-z-]*\).*/\1/p' "$work/report-$seed.txt")
	pairs=$(grep -o 'over [0-9]* pair' "$work/report-$seed.txt" | grep -o '[0-9]*' || echo "?")
	line=$(grep '^verdict: ' "$work/report-$seed.txt")
	printf 'seed %2d: %-12s after %s pair(s), exit %d; %s\n' "$seed" "$verdict" "$pairs" "$code" "$line"
	tally[$verdict]=$(( ${tally[$verdict]:-0} + 1 ))
done
echo
for v in "${!tally[@]}"; do echo "$v: ${tally[$v]} of $seeds"; done
if [ "${tally[improved]:-0}" != 0 ] || [ "${tally[regressed]:-0}" != 0 ]; then
	echo "FAIL: an A/A campaign said improved or regressed"
	exit 1
fi
echo "every A/A campaign ended no-change or inconclusive"
