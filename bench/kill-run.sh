#!/usr/bin/env bash
# Nothing outlives a run, even when abbench itself is killed: TRIALS
# (default 50) SIGKILLs of `abbench run` at random moments of runs whose
# ranks fork children and setsid daemons; every trial must leave no process
# of any run (found by its token) 5 s later, and the campaign must compare
# as censored (exit 3). The test suite runs 5 trials of the same test.
#   bench/kill-run.sh [TRIALS]
set -euo pipefail
cd "$(dirname "$0")/.."
ABBENCH_KILL_TRIALS=${1:-50} go test -count=1 -run 'TestKilledRunLeavesNothing$' -v ./cmd/abbench | grep -E '^(--- |ok|FAIL|PASS)'
