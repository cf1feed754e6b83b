# shellcheck shell=bash
# The dev clusters' one readiness wait, sourced by scripts/kube-dev-cluster.sh
# (through scripts/kube/daemons.sh) and scripts/slurm-dev-cluster.sh (and
# used by scripts/slurm-dev-hosts.sh), each of which defines log().
#
# wait_until SECONDS WHAT LOG CMD...: run CMD every $wait_poll seconds
# (default 0.1) until it succeeds; after SECONDS, say WHAT did not become
# ready, show the end of LOG and return 1. A daemon's CMD is a request it
# answers: its socket or pid file existing does not say it accepts
# connections.
wait_until() {
	local within=$1 what=$2 logfile=$3 end=$((SECONDS + $1))
	shift 3
	until "$@" >/dev/null 2>&1; do
		if [ "$SECONDS" -ge "$end" ]; then
			log "$what did not become ready within ${within}s ($*)"
			tail -20 "$logfile" >&2 || true
			return 1
		fi
		sleep "${wait_poll:-0.1}"
	done
}
