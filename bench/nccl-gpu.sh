#!/usr/bin/env bash
# The NCCL all-reduce A/B on a machine with two GPUs (scenarios/nccl-allreduce.yaml):
# abba pairs until a test decides (at most 8 pairs), each run in its own
# allocation, signed bundles, the comparison as Markdown, and the
# deliberately broken variant.
#   bench/nccl-gpu.sh BIN_DIR SIGN_KEY OUT_DIR
#   SCENARIO=nccl-allreduce-1gpu bench/nccl-gpu.sh BIN_DIR SIGN_KEY OUT_DIR
#       (one GPU: a world of one rank; no broken variant, which needs rank 1)
# BIN_DIR holds abbench and abbench-rank (built for linux/amd64 with
# CGO_ENABLED=0 where the GPU machine cannot build). OUT_DIR receives
# results.tar: machine.txt, run.log, report.md, broken.txt and every bundle.
set -uo pipefail
bin=$1 key=$2 out=$3
cd "$(dirname "$0")/.."
# NVLink multicast stays off on shared machines, in abbench and every rank.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
scenario=${SCENARIO:-nccl-allreduce}
work=$(mktemp -d)
mkdir -p "$work/results" "$out"
{
	date -u
	nvidia-smi -L
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
	nvidia-smi topo -m
	nvidia-smi --query-gpu=clocks.sm,clocks.mem,clocks.applications.graphics,clocks.applications.memory,ecc.mode.current,power.limit,mig.mode.current --format=csv
	python3 -c 'import torch; print("torch", torch.__version__, "nccl", ".".join(map(str, torch.cuda.nccl.version())), "gpus", torch.cuda.device_count())'
	nproc
} >"$work/results/machine.txt" 2>&1

broken=scenarios/$scenario-broken.yaml
[ -f "$broken" ] || broken=""
"$bin/abbench" validate "scenarios/$scenario.yaml" $broken >>"$work/results/machine.txt" 2>&1
"$bin/abbench" run "scenarios/$scenario.yaml" --order abba --until conclusive --max-pairs 8 --out "$work/nccl" \
	--sign-key "$key" --archive --format markdown --plot "$work/results/$scenario.svg" \
	>"$work/results/report.md" 2>"$work/results/run.log"
echo "abbench run exit status $?" >>"$work/results/run.log"
"$bin/abbench" compare "$work/nccl" >>"$work/results/run.log" 2>&1
if [ -n "$broken" ]; then
	"$bin/abbench" arm "$broken" --arm tree --out "$work/broken" \
		--sign-key "$key" --archive >"$work/results/broken.txt" 2>&1
	echo "abbench arm exit status $?" >>"$work/results/broken.txt"
fi

mkdir -p "$work/results/bundles"
for d in "$work"/nccl/runs/*/; do
	run=$(basename "$d")
	cp "$d$(cat "$d/LATEST")/bundle.tar.gz" "$work/results/bundles/$run.tar.gz" 2>/dev/null
	cp "$d/controller.log" "$work/results/bundles/$run.controller.log" 2>/dev/null
done
[ -z "$broken" ] || cp "$work/broken/$(cat "$work/broken/LATEST")/bundle.tar.gz" "$work/results/bundles/broken-tree.tar.gz" 2>/dev/null
cp "$work/nccl/plan.json" "$work/results/" 2>/dev/null
tar -C "$work/results" -cf "$out/results.tar" .
cp "$work/results/report.md" "$work/results/run.log" "$out/" 2>/dev/null
ls -la "$work/results" "$work/results/bundles"
