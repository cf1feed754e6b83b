#!/usr/bin/env bash
# A Hugging Face transformers A/B on a GPU: transformers' continuous
# batching serving a random-weight Llama-shaped model behind
# scenarios/hf/serve.py, measured by abbench's own client. SCENARIO names it
# (default hf-serving: SDPA against eager attention, a throughput claim;
# hf-latency: the engine's batch token budget, a p99 TTFT claim; hf-tp:
# SDPA against eager on a tensor-parallel engine, a rank a GPU, behind
# scenarios/hf/serve_tp.py, on a machine with two GPUs). abba pairs
# until a test decides (at most MAX_PAIRS, default 4: about a minute a run),
# each run in its own allocation, signed bundles, the comparison as
# Markdown, and the scenario's broken variant where it has one
# (scenarios/SCENARIO-broken.yaml: a server that hard-codes its attention),
# which must be stopped with arm-mode-mismatch.
#   bench/hf-gpu.sh BIN_DIR SIGN_KEY OUT_DIR
#   bench/hf-gpu.sh --dry-run BIN_DIR OUT_DIR   (no GPU needed: the checks,
#       then both arms and the broken variant on the CPU with a tiny model)
# BIN_DIR holds abbench and abbench-rank (CGO_ENABLED=0 builds where the
# GPU machine has no Go). OUT_DIR receives, as each is made: check.txt
# (every transformers and aiohttp name serve.py uses, checked), machine.txt,
# run.log, report.md, SCENARIO.svg, broken.txt, bundles/, plan.json,
# allowed_signers, verify.txt, then results.tar of them all. Exits 0 when
# every step did what it should (the A/B accepted, whatever its verdict; the
# broken variant censored), 1 naming the first step that did not.
set -uo pipefail
dry=""
if [ "${1:-}" = --dry-run ]; then dry=1; shift; fi
if [ -n "$dry" ] && [ $# -eq 2 ]; then
	bin=$1 key="" out=$2
elif [ -z "$dry" ] && [ $# -eq 3 ]; then
	bin=$1 key=$2 out=$3
else
	echo "usage: bench/hf-gpu.sh BIN_DIR SIGN_KEY OUT_DIR | bench/hf-gpu.sh --dry-run BIN_DIR OUT_DIR" >&2
	exit 2
fi
bin=$(cd "$bin" && pwd) out=$(mkdir -p "$out" && cd "$out" && pwd)
[ -z "$key" ] || key=$(cd "$(dirname "$key")" && pwd)/$(basename "$key")
cd "$(dirname "$0")/.." || exit 1
repo=$(pwd)
abb=$bin/abbench
max_pairs=${MAX_PAIRS:-4}
scenario=${SCENARIO:-hf-serving}
[ -f "scenarios/$scenario.yaml" ] || { echo "scenarios/$scenario.yaml: no such scenario (SCENARIO)" >&2; exit 2; }
broken=""
[ -f "scenarios/$scenario-broken.yaml" ] && broken=$scenario-broken
# The arms as validate prints them ("arms: a (baseline), b").
arms=$("$abb" validate "scenarios/$scenario.yaml" 2>/dev/null | sed -n 's/^arms: //p' | sed 's/ (baseline)//; s/,/ /g')
[ -n "$arms" ] || { "$abb" validate "scenarios/$scenario.yaml" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/abbench-hf.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=""
step() { echo "== $*" | tee -a "$out/steps.txt"; }
fail() {
	echo "FAILED: $*" | tee -a "$out/steps.txt" >&2
	[ -n "$failed" ] || failed=$*
}

step "preflight"
for f in "$abb" "$bin/abbench-rank"; do [ -x "$f" ] || { echo "$f: not an executable (build with CGO_ENABLED=0 go build -o BIN_DIR/ ./cmd/...)" >&2; exit 1; }; done
command -v python3 >/dev/null || { echo "python3 is not on PATH" >&2; exit 1; }
# The scenario's server: serve.py, or serve_tp.py for a tensor-parallel one.
server=$(grep -o 'hf/serve[a-z_]*\.py' "scenarios/$scenario.yaml" | head -n 1)
[ -n "$server" ] || { echo "scenarios/$scenario.yaml runs no scenarios/hf server" >&2; exit 2; }
if ! python3 "scenarios/$server" --check >"$out/check.txt" 2>&1; then
	cat "$out/check.txt" >&2
	echo "$server --check: a name it uses is missing (check.txt says which)" >&2
	exit 1
fi
grep '^check versions' "$out/check.txt"
{
	date -u
	"$abb" --version
	nvidia-smi -L 2>&1 || true
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 || true
	python3 -c 'import sys, torch, transformers, aiohttp; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "gpus", torch.cuda.device_count(), "transformers", transformers.__version__, "aiohttp", aiohttp.__version__)'
	nproc
} >"$out/machine.txt" 2>&1
"$abb" validate "scenarios/$scenario.yaml" ${broken:+"scenarios/$broken.yaml"} >>"$out/machine.txt" 2>&1 || { cat "$out/machine.txt" >&2; exit 1; }

if [ -n "$dry" ]; then
	# The same scenarios on the CPU: a model of 2 layers, 16 requests of 8
	# tokens, 4 in flight; everything else (the server, the client, the
	# evidence) as on the GPU.
	mkdir -p "$work/dry/hf"
	cp scenarios/hf/*.py "$work/dry/hf/"
	# serve.py's paged cache gets a size the CPU can hold, and a scenario
	# whose arms set the batch token budget keeps it; the others get a
	# small one. serve_tp.py has neither (its ranks talk over gloo).
	mbt=', --num-blocks, "256", --max-batch-tokens, "256"'
	grep -q HF_MAX_BATCH_TOKENS "scenarios/$scenario.yaml" && mbt=', --num-blocks, "256"'
	[ "$server" = hf/serve.py ] || mbt=""
	for s in $scenario $broken; do
		sed -e "s|prompts: ../testdata/|prompts: $repo/testdata/|" -e 's|requests: 256|requests: 16|' -e 's|concurrency: 64|concurrency: 4|' \
			-e "s|--device, cuda, --dtype, bfloat16, --layers, \"16\", --hidden, \"1024\", --heads, \"16\"|--device, cpu, --dtype, float32, --layers, \"2\", --hidden, \"64\", --heads, \"4\"$mbt|" \
			-e 's|max_tokens: 128|max_tokens: 8|' "scenarios/$s.yaml" >"$work/dry/$s.yaml"
		grep -q -- '--device, cpu' "$work/dry/$s.yaml" || fail "dry-run: the server command of $s.yaml no longer reads as this script expects"
	done
	for arm in $arms; do
		step "dry-run arm $arm (CPU)"
		"$abb" arm "$work/dry/$scenario.yaml" --arm "$arm" --out "$work/dry/out-$arm" >"$out/dry-$arm.txt" 2>&1 || fail "dry-run arm $arm: not accepted (dry-$arm.txt; the server's log: $out/dry-$arm-server.log)"
		cp "$work/dry/out-$arm"/*/server-0.log "$out/dry-$arm-server.log" 2>/dev/null
		grep -E '^evidence:|mode rank' "$out/dry-$arm.txt" "$out/dry-$arm-server.log" 2>/dev/null
	done
	if [ -n "$broken" ]; then
		step "dry-run broken variant (CPU)"
		"$abb" arm "$work/dry/$broken.yaml" --arm eager --out "$work/dry/out-broken" >"$out/dry-broken.txt" 2>&1
		grep -q 'arm-mode-mismatch' "$out/dry-broken.txt" || fail "dry-run broken variant: not stopped with arm-mode-mismatch (dry-broken.txt)"
	fi
	[ -z "$failed" ] || exit 1
	echo "dry run passed: both arms accepted on the CPU${broken:+, the broken variant censored}"
	exit 0
fi

step "GPU"
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' || { echo "torch sees no GPU" >&2; exit 1; }
[ -f "$key" ] || { echo "$key: no signing key (ssh-keygen -q -t ed25519 -N '' -f KEY)" >&2; exit 1; }

step "the A/B: abba pairs until a test decides, at most $max_pairs"
"$abb" run "scenarios/$scenario.yaml" --order abba --until conclusive --max-pairs "$max_pairs" --out "$work/hf" \
	--sign-key "$key" --archive --format markdown --plot "$out/$scenario.svg" >"$out/report.md" 2>"$out/run.log"
status=$?
echo "abbench run exit status $status" >>"$out/run.log"
[ "$status" -eq 0 ] || fail "abbench run exited $status (run.log)"
"$abb" compare "$work/hf" >>"$out/run.log" 2>&1
cp "$work/hf/plan.json" "$out/" 2>/dev/null

if [ -n "$broken" ]; then
	step "the broken variant"
	"$abb" arm "scenarios/$broken.yaml" --arm eager --out "$work/broken" --sign-key "$key" --archive >"$out/broken.txt" 2>&1
	echo "abbench arm exit status $?" >>"$out/broken.txt"
	grep -q 'arm-mode-mismatch' "$out/broken.txt" || fail "the broken variant was not stopped with arm-mode-mismatch (broken.txt)"
fi

step "bundles"
mkdir -p "$out/bundles"
for d in "$work"/hf/runs/*/; do
	run=$(basename "$d")
	[ -f "$d/LATEST" ] || continue
	cp "$d$(cat "$d/LATEST")/bundle.tar.gz" "$out/bundles/$run.tar.gz" 2>/dev/null || fail "run $run left no bundle"
	cp "$d/controller.log" "$out/bundles/$run.controller.log" 2>/dev/null
done
if [ -n "$broken" ]; then
	cp "$work/broken/$(cat "$work/broken/LATEST")/bundle.tar.gz" "$out/bundles/broken-eager.tar.gz" 2>/dev/null || fail "the broken variant left no bundle"
fi
# The public key: KEY.pub beside the key (a GPU machine may have no
# ssh-keygen), else derived from it.
if [ -f "$key.pub" ]; then pub=$(cut -d' ' -f1,2 "$key.pub"); else pub=$(ssh-keygen -y -f "$key"); fi
echo "gpu-runs@abbench namespaces=\"abbench-evidence\" $pub" >"$out/allowed_signers"
"$abb" verify "$out"/bundles/*.tar.gz --allowed-signers "$out/allowed_signers" >"$out/verify.txt" 2>&1 || fail "a bundle does not verify (verify.txt)"

tar -C "$out" -cf "$work/results.tar" --exclude results.tar . && mv "$work/results.tar" "$out/results.tar"
tail -n 3 "$out/report.md"
ls -la "$out" "$out/bundles"
[ -z "$failed" ] || { echo "first failed step: $failed" >&2; exit 1; }
