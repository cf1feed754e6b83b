#!/usr/bin/env bash
# The statistical validation suite, in full: every noise model under fixed
# designs of 2 to 10 pairs, the sequential design of abbench run and the
# one it replaced, and benchstat, from the same simulated campaigns (fixed
# seeds: the same table every time), 4,000 per cell and effect unless
# --campaigns says otherwise. Prints the Markdown tables of
# docs/statistics-tables.md; exits 1 when a cell misses a goal. The fast subset
# runs in go test (decide.TestValidationGoals).
#
#   bench/statistics.sh [--campaigns N] [--effect PCT] [--pairs 2,3,...] [--models WORDS] [--candidates]
#
# --effect is the smallest effect of interest (default: decide's, 1%);
# --pairs the fixed designs (default 2,3,4,5,6,8,10); --candidates adds
# the sequential designs the default was chosen from; --models only the
# noise models whose names hold one of its comma-separated words (each
# from the seed it has in the full run, so its rows are the full run's).
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--campaigns | --effect | --pairs | --models)
		[ $# -ge 2 ] || { echo "statistics.sh: $1 needs a value" >&2; exit 2; }
		args+=("-${1#--}" "$2")
		shift 2
		;;
	--candidates)
		args+=(-candidates)
		shift
		;;
	*)
		echo "statistics.sh: unknown argument $1 (use --campaigns N, --effect PCT, --pairs LIST, --models WORDS, --candidates)" >&2
		exit 2
		;;
	esac
done
# Every noise model is one unit of work, spread over GOMAXPROCS cores (all
# of them unless set): the tables are the same whatever the cores.
go run ./bench/statval "${args[@]}"
