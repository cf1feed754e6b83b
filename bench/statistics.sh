#!/usr/bin/env bash
# The statistical validation suite, in full: every noise model under fixed
# designs of 2 to 10 pairs and the sequential design, from the same
# simulated campaigns (fixed seeds: the same table every time), 4,000 per
# cell and effect unless --campaigns says otherwise. Prints the Markdown
# table of docs/statistics.md; exits 1 when a cell misses a goal. The fast
# subset runs in go test (decide.TestValidationGoals).
#
#   bench/statistics.sh [--campaigns N] [--effect PCT] [--pairs 2,3,...]
#
# --effect is the smallest effect of interest (default: decide's, 1%);
# --pairs the fixed designs (default 2,3,4,5,6,8,10).
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--campaigns | --effect | --pairs)
		[ $# -ge 2 ] || { echo "statistics.sh: $1 needs a value" >&2; exit 2; }
		args+=("-${1#--}" "$2")
		shift 2
		;;
	*)
		echo "statistics.sh: unknown argument $1 (use --campaigns N, --effect PCT, --pairs LIST)" >&2
		exit 2
		;;
	esac
done
go run ./bench/statval "${args[@]}"
