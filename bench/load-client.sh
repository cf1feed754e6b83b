#!/usr/bin/env bash
# abbench's own load client beside wrk on one plain HTTP endpoint that
# answers every request in 1 ms (bench/replyserver), at concurrency 256:
# requests per second, CPU per request and peak RSS of each client, from
# the same run.
#   bench/load-client.sh [SECONDS [REQUESTS [ROUNDS]]]
# SECONDS is wrk's time (default 10); abbench load makes as many requests
# as wrk made in the first round, or REQUESTS (rounded up to whole rounds
# of the 256 prompts; 0 or "" for wrk's), to see its peak RSS at a count
# (1024000: a million); the CPU per request of each is its own CPU over
# its own requests. ROUNDS (default 3) pairs of runs are made in abba
# order (wrk first, then abbench first, ...), so a machine that drifts
# (a server warming, a neighbour's load) weighs on both clients alike;
# the goal is judged on the median of the rounds' ratios, each ratio
# from one pair of runs minutes apart at most.
# The server gets one core and the client under test the other (taskset),
# so neither client is measured with the other's share of the machine;
# Both send requests of the same size: wrk posts the body abbench load
# sends for its first prompt, with abbench's User-Agent, and every prompt
# is 16 token IDs of four digits (a server's work grows with the bytes it
# reads, and its pace sets the client's). wrk comes
# from Debian (apt-get install wrk, done here when it is missing).
# Goals: abbench load reaches at least half wrk's requests per second, at
# no more CPU per request than wrk, its peak RSS flat in the requests.
# Two more lines, no goal: bench/epollfloor, the least a Go program does
# for as many requests as wrk made (an epoll loop, no client's work), its
# wait the runtime's system call ("Go epoll floor"), and a raw one on a
# locked thread ("... raw"): what the Go runtime costs beside wrk.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-10}
requests=${2:-}
[ "$requests" != 0 ] || requests=""
if [ -n "$requests" ] && ! [[ "$requests" =~ ^[0-9]+$ ]]; then
	echo "REQUESTS must be a whole number, not '$requests'" >&2
	exit 2
fi
nrounds=${3:-3}
if ! [[ "$nrounds" =~ ^[1-9][0-9]*$ ]]; then
	echo "ROUNDS must be a whole number of at least 1, not '$nrounds'" >&2
	exit 2
fi
conc=256
work=$(mktemp -d "${TMPDIR:-/tmp}/abbench-load.XXXXXX")
server=""
trap 'if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
if ! command -v wrk >/dev/null; then
	echo "installing wrk"
	as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
	as_root apt-get update -qq
	DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends wrk >/dev/null
fi
if [ -n "${ABBENCH_BIN:-}" ]; then # prebuilt, for a machine without Go
	mkdir -p "$work/bin" && cp "$ABBENCH_BIN/abbench" "$ABBENCH_BIN/replyserver" "$work/bin/"
	if [ -x "$ABBENCH_BIN/epollfloor" ]; then cp "$ABBENCH_BIN/epollfloor" "$work/bin/"; fi
else
	go build -o "$work/bin/" ./cmd/abbench ./bench/replyserver ./bench/epollfloor
fi
cores=$(nproc)
pin_server=() pin_client=()
if [ "$cores" -ge 2 ] && command -v taskset >/dev/null; then
	pin_server=(taskset -c 0) pin_client=(taskset -c 1)
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
"${pin_server[@]}" "$work/bin/replyserver" -addr "127.0.0.1:$port" -delay 1ms &
server=$!
for _ in $(seq 100); do curl -s -o /dev/null "$url/" 2>/dev/null && break; sleep 0.05; done

# 256 prompts of 16 token IDs of four digits each; the request body of
# the first, for wrk.
for i in $(seq 0 255); do printf '[%s]\n' "$(seq -s, $((1000 + i * 16)) $((1000 + i * 16 + 15)))"; done >"$work/prompts.jsonl"
body=$(printf '{"model":"bench","prompt":[%s],"max_tokens":1}' "$(seq -s, 1000 1015)")
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "abbench-load"
LUA

# user+system CPU seconds, wall seconds and peak RSS (KiB) of a command,
# its output in $1, from GNU time: the first on PATH, so a machine without
# it (or without wrk) can be given both in a folder put first on PATH.
timebin=$(type -P time || true)
if [ -z "$timebin" ] || ! "$timebin" -f %e true >/dev/null 2>&1; then
	echo "GNU time is needed (apt-get install time)" >&2
	exit 2
fi
timed() {
	local out=$1
	shift
	"$timebin" -f '%U %S %e %M' -o "$work/time" "$@" >"$out" 2>&1
	read -r u s e m <"$work/time"
	echo "$u $s $e $m"
}

threads=1
[ ${#pin_client[@]} -eq 0 ] && threads=$cores
# One run of each client; each appends "name requests req/s user sys wall
# rss failed" to $work/runs.
run_wrk() {
	local u s e m rps n
	read -r u s e m < <(timed "$work/wrk.txt" "${pin_client[@]}" wrk -t"$threads" -c"$conc" -d"${secs}s" -s "$work/post.lua" "$url/v1/completions")
	rps=$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk.txt")
	n=$(awk '/requests in/ {print $1}' "$work/wrk.txt")
	echo "wrk $n $rps $u $s $e $m 0" >>"$work/runs"
}
run_abbench() {
	local u s e m rps n failed
	read -r u s e m < <(timed "$work/load.txt" "${pin_client[@]}" "$work/bin/abbench" load --url "$url" --model bench \
		--prompts "$work/prompts.jsonl" --concurrency "$conc" --rounds "$rounds" --stream=false --max-tokens 1 \
		--out "$work/result.json" --progress-every 1h)
	read -r rps n failed < <(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["request_throughput"], r["completed"], r["failed"])' "$work/result.json")
	echo "abbench $n $rps $u $s $e $m $failed" >>"$work/runs"
}
: >"$work/runs"
run_wrk
wrk_n=$(awk 'END {print $2}' "$work/runs")
# As many requests as wrk made in its first run (or REQUESTS): 256
# prompts, that many rounds.
rounds=$(((${requests:-$wrk_n} + 255) / 256))
run_abbench
for ((r = 2; r <= nrounds; r++)); do
	if ((r % 2 == 0)); then run_abbench && run_wrk; else run_wrk && run_abbench; fi
done
# The floor, as many requests as wrk made, each way of waiting.
fl=() flr=()
if [ -x "$work/bin/epollfloor" ]; then
	read -r fu fs fe fm < <(timed "$work/floor.txt" "${pin_client[@]}" "$work/bin/epollfloor" -addr "127.0.0.1:$port" -c "$conc" -n "$wrk_n" -body "$body")
	read -r ru rs re rm < <(timed "$work/floor-raw.txt" "${pin_client[@]}" "$work/bin/epollfloor" -raw -addr "127.0.0.1:$port" -c "$conc" -n "$wrk_n" -body "$body")
	fl=("$fu" "$fs" "$fe" "$fm") flr=("$ru" "$rs" "$re" "$rm")
fi

echo "endpoint: 1 ms per answer, concurrency $conc, $cores cores (server pinned to core 0, client to core 1: ${pin_client[*]:-none}); $nrounds rounds, abba order"
awk -v wn="$wrk_n" -v fu="${fl[0]:-}" -v fs="${fl[1]:-}" -v fe="${fl[2]:-}" -v fm="${fl[3]:-}" -v ru="${flr[0]:-}" -v rs="${flr[1]:-}" -v re="${flr[2]:-}" -v rm="${flr[3]:-}" '
function row(name, n, rps, cpu, wall, rss) {
	printf "%-14s %10d %10.0f %9.2f %8.0f %16.1f %14.1f\n", name, n, rps, cpu, 100*cpu/wall, 1e6*cpu/n, rss/1024
}
# median of a[1..k]
function median(a, k,   i, j, t) {
	for (i = 2; i <= k; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return k % 2 ? a[(k+1)/2] : (a[k/2] + a[k/2+1]) / 2
}
BEGIN { printf "%-14s %10s %10s %9s %8s %16s %14s\n", "client", "requests", "req/s", "CPU s", "CPU %", "CPU us/request", "peak RSS MiB" }
{
	cpu = $4 + $5
	if ($1 == "wrk") { w++; wcpu[w] = cpu / $2; wrps[w] = $3; wN += $2; wC += cpu; wU += $4; row("wrk", $2, $3, cpu, $6, $7) }
	else { a++; acpu[a] = cpu / $2; arps[a] = $3; aN += $2; aC += cpu; aU += $4; failed += $8; row("abbench load", $2, $3, cpu, $6, $7) }
}
END {
	if (fe != "") {
		row("Go epoll floor", wn, wn/fe, fu+fs, fe, fm)
		row("... raw", wn, wn/re, ru+rs, re, rm)
	}
	for (i = 1; i <= a; i++) { cr[i] = acpu[i] / wcpu[i]; rr[i] = arps[i] / wrps[i]; line = line sprintf(" %.2f", cr[i]) }
	printf "CPU per request, abbench load / wrk, round by round:%s\n", line
	printf "user + system CPU us/request, all rounds pooled: wrk %.1f + %.1f, abbench load %.1f + %.1f\n", 1e6*wU/wN, 1e6*(wC-wU)/wN, 1e6*aU/aN, 1e6*(aC-aU)/aN
	printf "abbench load / wrk requests per second: %.2f (goal >= 0.5); CPU per request: %.2f (goal <= 1; all rounds pooled: %.2f); failed requests: %d\n", median(rr, a), median(cr, a), (aC/aN)/(wC/wN), failed
	printf "ceiling at concurrency 256 and 1 ms: %d req/s\n", 256000
}' "$work/runs"
