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
i=0
until redis-cli -s "$sock" ping >/dev/null 2>&1; do
	i=$((i + 1))
	[ "$i" -gt 200 ] && { echo "redis-server did not answer on $sock"; kill "$pid"; exit 1; }
	sleep 0.05
done
echo "mode rank=${ABBENCH_RANK:-0} appendfsync=$(redis-cli -s "$sock" CONFIG GET appendfsync | tail -n 1)"
wait "$pid"
