#!/usr/bin/env bash
# The fuzz targets of every parser of outside input, listed once here.
#
#   scripts/fuzz.sh [SECONDS]         fuzz each target for SECONDS (default 3),
#                                     one after another (.ci/run runs this)
#   scripts/fuzz.sh --build DIR       build each package's test binary,
#                                     static and instrumented for fuzzing,
#                                     into DIR (DIR/PKG.test, PKG with - for /)
#   scripts/fuzz.sh --run-built DIR SECONDS
#                                     fuzz every target from those binaries at
#                                     once, one process each; DIR/NAME.log
#                                     holds each target's output; a summary
#                                     line per target, exit 1 if any failed
#
# A failing input is written to PKG/testdata/fuzz/NAME/ in the source tree,
# where every plain go test runs it again: commit it with the fix. The
# --run-built mode runs in a checkout (the targets read their seeds from
# their package directories), built or copied with the binaries.
set -euo pipefail
cd "$(dirname "$0")/.."

# PACKAGE TARGET, one per line: every parser that reads bytes from outside.
targets="
internal/scenarios FuzzParse
internal/evidence FuzzScope
internal/evidence FuzzLineSearch
internal/evidence FuzzRankLogs
internal/evidence FuzzPlainMatcher
internal/evidence FuzzByteSet
internal/records FuzzRecords
internal/records FuzzRecordRegex
internal/records FuzzSentPrompts
internal/bundle FuzzUnpack
internal/bundle FuzzUnpackVerified
internal/bundle FuzzStatementRefusedAsTheLibraryRefusesIt
internal/sshsig FuzzSignature
internal/sshsig FuzzAllowedSigners
internal/sshsig FuzzPrincipalPattern
internal/dsse FuzzEnvelope
internal/history FuzzRead
internal/history FuzzDecodeEntry
internal/history FuzzFrameKey
internal/strictjson FuzzDecode
internal/digest FuzzReadPrompts
internal/digest FuzzReadConversations
internal/digest FuzzReadRecords
internal/rundir FuzzResolveCampaign
internal/rundir FuzzRunFiles
internal/loadgen FuzzDecodeChunk
internal/loadgen FuzzReadHead
internal/promtext FuzzParse
internal/gputelemetry FuzzParseLine
"

usage() {
	echo "usage: scripts/fuzz.sh [SECONDS] | --build DIR | --run-built DIR SECONDS" >&2
	exit 2
}

# binary is the test binary of package $1 in directory $2.
binary() { echo "$2/${1//\//-}.test"; }

# whole says whether $1 is a whole number of seconds above 0.
whole() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }

# fuzz_target PKG NAME SECONDS: fuzz one target. Go 1.26's coordinator can
# fail a target at the end of -fuzztime with a bare "context deadline
# exceeded" and no failing input (go.dev/issue/75804, fixed in Go 1.27: a
# race between the deadline and its workers' shutdown, frequent on a loaded
# machine). Such a failure, which wrote nothing to PKG/testdata/fuzz/NAME/,
# is judged by the target's corpus run again (go test -run NAME: every seed
# and every input ever written there); any other failure fails the target.
fuzz_target() {
	local pkg=$1 name=$2 seconds=$3 out before
	out=$(mktemp)
	echo "fuzz: $pkg $name for ${seconds}s"
	before=$(ls "$pkg/testdata/fuzz/$name" 2>/dev/null || true)
	if go test -run '^$' -fuzz "^$name\$" -fuzztime "${seconds}s" -parallel 1 "./$pkg" 2>&1 | tee "$out"; [ "${PIPESTATUS[0]}" = 0 ]; then
		rm -f "$out"
		return 0
	fi
	if ! grep -q '^    context deadline exceeded$' "$out" || grep -q 'Failing input written' "$out" ||
		[ "$(ls "$pkg/testdata/fuzz/$name" 2>/dev/null || true)" != "$before" ]; then
		rm -f "$out"
		return 1
	fi
	rm -f "$out"
	echo "fuzz: $pkg $name ended \"context deadline exceeded\" with no failing input (go.dev/issue/75804): its corpus run again"
	go test -count=1 -run "^$name\$" "./$pkg"
}

# Each package's targets are listed together, so its binary is built once.
packages() { awk 'NF { print $1 }' <<<"$targets" | uniq; }

# Every target in a test file must be listed, and every listed
# one must exist: a target left off the list would never run.
found=$(grep -ro --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . |
	sed -E 's#^\./(.*)/[^/]*:func (Fuzz.*)#\1 \2#' | sort)
if [ "$found" != "$(awk 'NF' <<<"$targets" | sort)" ]; then
	echo "fuzz: the targets in the code and the list in $0 differ:" >&2
	diff <(echo "$found") <(awk 'NF' <<<"$targets" | sort) >&2 || true
	exit 2
fi

case "${1:-}" in
--build)
	[ $# = 2 ] || usage
	dir=$2
	mkdir -p "$dir"
	for pkg in $(packages); do
		# -fuzz gives the coverage instrumentation that guides fuzzing;
		# without it a binary fuzzes blind.
		CGO_ENABLED=0 go test -c -fuzz=. -o "$(binary "$pkg" "$dir")" "./$pkg"
		echo "fuzz: built $(binary "$pkg" "$dir")"
	done
	;;
--run-built)
	[ $# = 3 ] && whole "$3" || usage
	dir=$(cd "$2" && pwd) seconds=$3
	pids=() names=()
	while read -r pkg name; do
		[ -n "$pkg" ] || continue
		bin=$(binary "$pkg" "$dir")
		[ -x "$bin" ] || { echo "fuzz: $bin is missing: scripts/fuzz.sh --build $2 first" >&2; exit 2; }
		(
			cd "$pkg"
			exec "$bin" -test.run='^$' -test.fuzz="^$name\$" -test.fuzztime="${seconds}s" \
				-test.fuzzcachedir="$dir/cache/${pkg//\//-}" -test.parallel=1
		) >"$dir/$name.log" 2>&1 &
		pids+=($!) names+=("$pkg $name")
	done <<<"$targets"
	failed=0
	for i in "${!pids[@]}"; do
		read -r pkg name <<<"${names[$i]}"
		status=PASS
		wait "${pids[$i]}" || { status=FAIL; failed=$((failed + 1)); }
		# go test's count of executions as it last printed it: it adds a
		# worker's executions only when the worker reports back, which it
		# may not do for long stretches without new coverage, so the count
		# lags (none yet: still gathering the corpus's coverage).
		execs=$(grep -o 'execs: [0-9]*' "$dir/$name.log" | tail -1 | cut -d' ' -f2 || true)
		printf 'fuzz: %s %-16s %-22s execs %s  %s\n' "$status" "$pkg" "$name" "${execs:-none}" "$dir/$name.log"
	done
	[ "$failed" = 0 ] || { echo "fuzz: $failed target(s) failed: their inputs are in PKG/testdata/fuzz/NAME/"; exit 1; }
	;;
*)
	[ $# -le 1 ] || usage
	seconds=${1:-3}
	whole "$seconds" || usage
	failed=()
	while read -r pkg name; do
		[ -n "$pkg" ] || continue
		fuzz_target "$pkg" "$name" "$seconds" || failed+=("$pkg $name")
	done <<<"$targets"
	if [ ${#failed[@]} -gt 0 ]; then
		printf 'fuzz: FAILED %s\n' "${failed[@]}"
		exit 1
	fi
	;;
esac
