# Shared setup of the controller benchmarks, sourced by them:
#   . "$(dirname "$0")/lib.sh"; bench_setup NAME
# leaves the repository root as the working directory, $work a temporary
# directory removed on exit, abbench, abbench-rank and disaggsim built into
# $work/bin (or copied from $ABBENCH_BIN, for a machine without Go), and a
# one-prompt workload in $work/prompts.jsonl.
bench_setup() {
	cd "$(dirname "$0")/.."
	work=$(mktemp -d "${TMPDIR:-/tmp}/abbench-$1.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	if [ -n "${ABBENCH_BIN:-}" ]; then
		mkdir -p "$work/bin" && cp "$ABBENCH_BIN"/abbench "$ABBENCH_BIN"/abbench-rank "$ABBENCH_BIN"/disaggsim "$work/bin/"
	else
		go build -o "$work/bin/" ./cmd/abbench ./cmd/abbench-rank ./cmd/disaggsim
	fi
	echo '[1]' >"$work/prompts.jsonl"
}

# ab_scenario_head NAME prints the head the controller benchmarks' scenarios
# share: arms a and b that differ only in MODE, b the baseline, and the
# one-prompt workload bench_setup wrote.
ab_scenario_head() {
	cat <<YAML
name: $1
arms:
  a: {env: {MODE: "1"}}
  b: {env: {MODE: "0"}}
baseline: b
workload: {prompts: prompts.jsonl}
YAML
}
