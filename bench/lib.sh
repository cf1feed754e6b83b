# Shared setup of the controller benchmarks, sourced by them:
#   . "$(dirname "$0")/lib.sh"; bench_setup NAME
# leaves the repository root as the working directory, $work a temporary
# directory removed on exit, abbench and abbench-rank built into
# $work/bin, and a one-prompt workload in $work/prompts.jsonl.
bench_setup() {
	cd "$(dirname "$0")/.."
	work=$(mktemp -d "${TMPDIR:-/tmp}/abbench-$1.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	go build -o "$work/bin/" ./cmd/abbench ./cmd/abbench-rank
	echo '[1]' >"$work/prompts.jsonl"
}
