#!/usr/bin/env bash
# abbench's own load client beside wrk on one plain HTTP endpoint that
# answers every request in 1 ms (bench/replyserver), at concurrency 256:
# requests per second, CPU per request and peak RSS of each client, from
# the same run.
#   bench/load-client.sh [SECONDS [REQUESTS]]
# SECONDS is wrk's time (default 10); abbench load makes as many requests
# as wrk made, or REQUESTS (rounded up to whole rounds of the 256
# prompts), to see its peak RSS at a count (1024000: a million); the CPU
# per request of each is its own CPU over its own requests.
# The server gets one core and the client under test the other (taskset),
# so neither client is measured with the other's share of the machine;
# wrk posts the body abbench load sends for its first prompt. wrk comes
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
if [ -n "$requests" ] && ! [[ "$requests" =~ ^[0-9]+$ ]]; then
	echo "REQUESTS must be a whole number, not '$requests'" >&2
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

# 256 prompts of 16 token IDs; the request body of the first, for wrk.
for i in $(seq 0 255); do printf '[%s]\n' "$(seq -s, $((i * 16)) $((i * 16 + 15)))"; done >"$work/prompts.jsonl"
body=$(printf '{"model":"bench","prompt":[%s],"max_tokens":1}' "$(seq -s, 0 15)")
cat >"$work/post.lua" <<LUA
wrk.method = "POST"
wrk.body = '$body'
wrk.headers["Content-Type"] = "application/json"
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
read -r wu ws we wm < <(timed "$work/wrk.txt" "${pin_client[@]}" wrk -t"$threads" -c"$conc" -d"${secs}s" -s "$work/post.lua" "$url/v1/completions")
wrk_rps=$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk.txt")
wrk_n=$(awk '/requests in/ {print $1}' "$work/wrk.txt")

# As many requests as wrk made in its time (or REQUESTS): 256 prompts,
# that many rounds.
rounds=$(((${requests:-$wrk_n} + 255) / 256))
read -r au as ae am < <(timed "$work/load.txt" "${pin_client[@]}" "$work/bin/abbench" load --url "$url" --model bench \
	--prompts "$work/prompts.jsonl" --concurrency "$conc" --rounds "$rounds" --stream=false --max-tokens 1 \
	--out "$work/result.json" --progress-every 1h)
# The floor, as many requests as wrk made, each way of waiting.
fl=() flr=()
if [ -x "$work/bin/epollfloor" ]; then
	read -r fu fs fe fm < <(timed "$work/floor.txt" "${pin_client[@]}" "$work/bin/epollfloor" -addr "127.0.0.1:$port" -c "$conc" -n "$wrk_n" -body "$body")
	read -r ru rs re rm < <(timed "$work/floor-raw.txt" "${pin_client[@]}" "$work/bin/epollfloor" -raw -addr "127.0.0.1:$port" -c "$conc" -n "$wrk_n" -body "$body")
	fl=("$fu" "$fs" "$fe" "$fm") flr=("$ru" "$rs" "$re" "$rm")
fi
read -r ab_rps ab_n ab_failed < <(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["request_throughput"], r["completed"], r["failed"])' "$work/result.json")

echo "endpoint: 1 ms per answer, concurrency $conc, $cores cores (server pinned to core 0, client to core 1: ${pin_client[*]:-none})"
awk -v wr="$wrk_rps" -v wn="$wrk_n" -v wu="$wu" -v ws="$ws" -v we="$we" -v wm="$wm" \
	-v ar="$ab_rps" -v an="$ab_n" -v af="$ab_failed" -v au="$au" -v as="$as" -v ae="$ae" -v am="$am" \
	-v fu="${fl[0]:-}" -v fs="${fl[1]:-}" -v fe="${fl[2]:-}" -v fm="${fl[3]:-}" -v ru="${flr[0]:-}" -v rs="${flr[1]:-}" -v re="${flr[2]:-}" -v rm="${flr[3]:-}" 'BEGIN {
	printf "%-14s %10s %10s %9s %8s %16s %14s\n", "client", "requests", "req/s", "CPU s", "CPU %", "CPU us/request", "peak RSS MiB"
	printf "%-14s %10d %10.0f %9.2f %8.0f %16.1f %14.1f\n", "wrk", wn, wr, wu+ws, 100*(wu+ws)/we, 1e6*(wu+ws)/wn, wm/1024
	printf "%-14s %10d %10.0f %9.2f %8.0f %16.1f %14.1f\n", "abbench load", an, ar, au+as, 100*(au+as)/ae, 1e6*(au+as)/an, am/1024
	if (fe != "") {
		printf "%-14s %10d %10.0f %9.2f %8.0f %16.1f %14.1f\n", "Go epoll floor", wn, wn/fe, fu+fs, 100*(fu+fs)/fe, 1e6*(fu+fs)/wn, fm/1024
		printf "%-14s %10d %10.0f %9.2f %8.0f %16.1f %14.1f\n", "... raw", wn, wn/re, ru+rs, 100*(ru+rs)/re, 1e6*(ru+rs)/wn, rm/1024
	}
	printf "abbench load / wrk requests per second: %.2f (goal >= 0.5); CPU per request: %.2f (goal <= 1); failed requests: %d\n", ar/wr, (au+as)/an/((wu+ws)/wn), af
	printf "ceiling at concurrency 256 and 1 ms: %d req/s\n", 256000
}'
