#!/usr/bin/env bash
# abbench's own overhead per run on a Slurm cluster: the time of
# `abbench run --launcher slurm` for one run of a trivial job, against a bare
# `sbatch --wait` of the same trivial job script. Median of ROUNDS (default 5).
# Goal: <= 1 s. Needs a cluster (sudo scripts/slurm-dev-cluster.sh up).
#   bench/slurm-overhead.sh [ROUNDS]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
rounds=${1:-5}
bench_setup slurm-overhead
{ ab_scenario_head trivial; cat <<YAML; } >"$work/s.yaml"
roles:
  - {name: w, arm_env: true, command: [sleep, "30"]}
  - {name: client, client: true, after_ready: true, command: ["true"]}
deadlines: {ready: 30s, client: 30s, drain: 1s, teardown: 10s, kill_grace: 1s}
YAML
cat >"$work/bare.sbatch" <<'SH'
#!/bin/bash
#SBATCH --output=/dev/null
true
SH
ns() { date +%s%N; }
abb=() bare=()
for i in $(seq "$rounds"); do
	t0=$(ns)
	"$work/bin/abbench" run "$work/s.yaml" --launcher slurm --calibrate a --repeat 3 --out "$work/out$i" >/dev/null 2>&1 || true
	abb+=($((($(ns) - t0) / 3000))) # microseconds per run (3 runs)
	t0=$(ns)
	sbatch --wait --quiet "$work/bare.sbatch" >/dev/null
	bare+=($((($(ns) - t0) / 1000)))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ma=$(median "${abb[@]}") mb=$(median "${bare[@]}")
printf 'rounds: %d\n' "$rounds"
printf '%-46s %8.3f s\n' "abbench run --launcher slurm, per run" "$(echo "$ma/1000000" | bc -l)"
printf '%-46s %8.3f s\n' "sbatch --wait of the same trivial job" "$(echo "$mb/1000000" | bc -l)"
printf '%-46s %8.3f s (goal <= 1)\n' "abbench's overhead per run" "$(echo "($ma-$mb)/1000000" | bc -l)"
