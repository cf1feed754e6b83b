#!/bin/sh
# The Redis server role: start redis-server with the arm's fsync policy
# (REDIS_APPENDFSYNC, which reaches this role alone), then print the mode
# line from what the server itself reports (CONFIG GET appendfsync), never
# an echo of the variable: a server that ignored the setting says so.
#   server.sh PORT SCRATCH_DIR
port=$1 dir=$2
sock="$dir/redis.sock" # in {{.Scratch}}: a unix socket path fits however deep the run directory is
redis-server --port "$port" --bind 127.0.0.1 --unixsocket "$sock" --dir "$dir" \
	--appendonly yes --appendfsync "$REDIS_APPENDFSYNC" --save "" &
pid=$!
trap 'kill -TERM "$pid"; wait "$pid"; exit $?' TERM INT
# Ready when it answers PING with PONG (not when its socket exists, nor with
# an error such as LOADING), within about 10 s.
i=0
until [ "$(redis-cli -s "$sock" ping 2>/dev/null)" = PONG ]; do
	kill -0 "$pid" 2>/dev/null || { wait "$pid"; echo "redis-server exited (status $?) before it answered PING on $sock"; exit 1; }
	i=$((i + 1))
	[ "$i" -gt 200 ] && { echo "redis-server did not answer PING with PONG on $sock within 10s"; kill "$pid"; exit 1; }
	sleep 0.05
done
echo "mode rank=${ABBENCH_RANK:-0} appendfsync=$(redis-cli -s "$sock" CONFIG GET appendfsync | tail -n 1)"
wait "$pid"
