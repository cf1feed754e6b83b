#!/usr/bin/env bash
# The statistical validation suite, in full: every noise model under fixed
# designs of 2 to 10 pairs and the sequential design, 4,000 simulated
# campaigns per cell and effect (fixed seeds: the same table every time).
# Prints the Markdown table of docs/statistics.md; exits 1 when a cell
# misses a goal. The fast subset runs in go test (decide.TestValidationGoals).
#
#   bench/statistics.sh [TRIALS] [SMALLEST_EFFECT_PCT]
set -euo pipefail
cd "$(dirname "$0")/.."
go run ./bench/statval -trials "${1:-4000}" -effect "${2:-1}"
