#!/usr/bin/env bash
# A docker daemon for abbench's container tests and image, without systemd
# (a CI container, a VM): Debian's docker.io, its dockerd started directly.
#   scripts/docker-daemon.sh up     install docker.io where dockerd is missing; start dockerd where no daemon answers
#   scripts/docker-daemon.sh down   stop the dockerd "up" started (its pid file), nothing else
# A daemon that answers already is left as it is. It needs root to start
# one. up waits at most 60 s for the daemon to answer, down at most 30 s
# for it to stop (then SIGKILL). No registry is needed: every image the
# tests run is built here FROM scratch.
set -euo pipefail
action=${1:-up}
state=/run/abbench-dockerd
pidfile=$state/dockerd.pid
logfile=$state/dockerd.log

log() { echo "docker-daemon: $*" >&2; }

answers() { docker info >/dev/null 2>&1; }

started() { # the pid file names a live dockerd
	local pid
	[ -f "$pidfile" ] && pid=$(cat "$pidfile") && [ -n "$pid" ] &&
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]
}

# running PID: the process lives and is no zombie, whatever its name. Up's
# wait asks this, not started: until the background child has exec'd setsid
# and then dockerd its name is the shell's, and a fast "docker info" used to
# find it there and call a starting daemon dead.
running() {
	local state
	state=$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$state" ] && [ "$state" != Z ]
}

up() {
	if answers; then
		log "a docker daemon answers already: left as it is"
		return 0
	fi
	[ "$(id -u)" = 0 ] || { log "starting dockerd needs root"; return 1; }
	if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
		log "installing docker.io"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends docker.io >/dev/null
	fi
	mkdir -p "$state"
	# Its own session: a Ctrl-C of the caller's terminal reaches it only
	# through down. dockerd starts its own containerd.
	setsid dockerd >"$logfile" 2>&1 </dev/null &
	local pid=$!
	echo "$pid" >"$pidfile"
	local end=$((SECONDS + 60))
	until answers; do
		if ! running "$pid"; then
			log "dockerd exited before it answered:"
			tail -20 "$logfile" >&2 || true
			rm -f "$pidfile"
			return 1
		fi
		if [ "$SECONDS" -ge "$end" ]; then
			log "dockerd did not answer within 60 s:"
			tail -20 "$logfile" >&2 || true
			down
			return 1
		fi
		sleep 0.2
	done
	log "dockerd answers (pid $(cat "$pidfile"), log $logfile)"
}

down() {
	if ! started; then
		rm -f "$pidfile"
		log "no dockerd started by up: nothing to stop"
		return 0
	fi
	local pid
	pid=$(cat "$pidfile")
	kill -TERM "$pid" 2>/dev/null || true
	for _ in $(seq 300); do started || break; sleep 0.1; done
	if started; then
		log "dockerd (pid $pid) did not stop within 30 s: SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -f "$pidfile"
	log "dockerd stopped"
}

case "$action" in
up) up ;;
down) down ;;
*) log "usage: $0 up|down"; exit 2 ;;
esac
