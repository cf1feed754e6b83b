#!/usr/bin/env bash
# A real single-host Slurm cluster for abbench's tests: two emulated nodes
# (two slurmd -N daemons), slurmctld and munged, from Debian's slurm-wlm and
# munge, without systemd.
#   scripts/slurm-dev-cluster.sh up     install if needed, configure, start, wait until idle
#   scripts/slurm-dev-cluster.sh down   stop what "up" started (pid files), nothing else
#   scripts/slurm-dev-cluster.sh status
# It writes /etc/slurm/slurm.conf and /etc/munge/munge.key only when it
# created them (a marker file says so), and needs root.
#
# A multi-host cluster beside it (scripts/slurm-dev-hosts.sh says how),
# sharing nothing with the single-host one:
#   up --hosts N          a login host, a controller "ctl" and compute hosts c1..cN (N >= 3), /shared on login and c1..cN
#   down --hosts          stop and remove everything "up --hosts" made
#   status --hosts        each host, and sinfo
#   exec HOST -- CMD...   CMD on HOST (login, ctl, c1..cN), stdin and exit status passed through
#   kill-node HOST        every process of HOST at once, and its network gone (a power loss)
#   start-node HOST       boot a killed HOST again
#   cut HOST | heal HOST  HOST's network silenced, or back
#   skew HOST SECONDS     says why a host's clock cannot be skewed here
set -euo pipefail
action=${1:-up}
script=$(realpath "$0")
repo=$(dirname "$(dirname "$script")")
# shellcheck source=scripts/lib/wait.sh
source "$(dirname "$script")/lib/wait.sh"
# shellcheck source=scripts/slurm-dev-hosts.sh
source "$(dirname "$script")/slurm-dev-hosts.sh"
state=/run/abbench-slurm
conf=/etc/slurm/slurm.conf
nodes=(node1 node2)

log() { echo "slurm-dev-cluster: $*" >&2; }

alive() { # alive PIDFILE NAME: the pid file names a live process called NAME
	local pid
	[ -f "$1" ] || return 1
	pid=$(cat "$1" 2>/dev/null) || return 1
	[ -n "$pid" ] && [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = "$2" ] &&
		! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null
}

munge_answers() { munge -n | unmunge; } # munged encodes a credential and decodes it
slurmctld_answers() { scontrol ping | grep -Eq ' (is|are) UP'; } # slurmctld answers its ping RPC
nodes_idle() { # every slurmd registered with slurmctld, and its node idle
	[ "$(sinfo -h -N -o '%N %T' | grep -c ' idle')" -ge "${#nodes[@]}" ]
}

# slurm_conf_common: the slurm.conf lines both dev clusters share: no
# cgroups or systemd needed, jobs scheduled at once, a node that comes back
# taken back, finished jobs kept 10 minutes for scontrol.
slurm_conf_common() {
	cat <<CONF
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
EnforcePartLimits=ALL
SlurmdParameters=config_overrides
JobCompType=jobcomp/filetxt
JobCompLoc=/var/log/slurm/jobcomp.log
MinJobAge=600
KillWait=5
InactiveLimit=0
CONF
}

# oci_conf: Slurm's OCI container support (srun --container=BUNDLE) with
# runc, beside slurm.conf: slurmstepd runs each task's container with
# RunTimeRun, its state kept under the cluster's own runc root. Slurm 22.05
# runs one task a node in a container.
oci_conf() {
	local runc="runc --root=$state/runc"
	cat >"$(dirname "$conf")/oci.conf" <<CONF
# abbench-dev-cluster: written by scripts/slurm-dev-cluster.sh
RunTimeQuery="$runc state %n.%u.%j.%s.%t"
RunTimeKill="$runc kill -a %n.%u.%j.%s.%t"
RunTimeDelete="$runc delete --force %n.%u.%j.%s.%t"
RunTimeRun="$runc run %n.%u.%j.%s.%t -b %b"
CONF
}

stop() { # stop PIDFILE NAME
	if alive "$1" "$2"; then
		local pid; pid=$(cat "$1")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 50); do alive "$1" "$2" || break; sleep 0.1; done
		alive "$1" "$2" && kill -9 "$pid" 2>/dev/null || true
	fi
	rm -f "$1"
}

down() {
	for n in "${nodes[@]}"; do stop "$state/slurmd-$n.pid" slurmd; done
	stop "$state/slurmctld.pid" slurmctld
	stop "$state/munged.pid" munged
	log "stopped"
}

up() {
	[ "$(id -u)" = 0 ] || { log "needs root"; exit 1; }
	# runc: the OCI runtime of srun --container (oci.conf, below).
	if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null || ! command -v runc >/dev/null; then
		log "installing slurm-wlm, munge and runc"
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -qq --no-install-recommends slurm-wlm munge runc >/dev/null ||
			{ apt-get update -qq && apt-get install -y -qq --no-install-recommends slurm-wlm munge runc >/dev/null; }
	fi
	mkdir -p "$state" /run/slurm /var/log/slurm /var/spool/slurmctld /etc/slurm
	for n in "${nodes[@]}"; do mkdir -p "/var/spool/slurmd/$n"; done
	if [ ! -f /etc/munge/munge.key ]; then
		mkdir -p /etc/munge
		dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
		touch "$state/created-munge-key"
	fi
	chown munge:munge /etc/munge/munge.key; chmod 400 /etc/munge/munge.key
	mkdir -p /run/munge /var/lib/munge /var/log/munge
	chown munge:munge /run/munge /var/lib/munge /var/log/munge; chmod 755 /run/munge
	if [ ! -f "$conf" ] || grep -q 'abbench-dev-cluster' "$conf"; then
		cpus=8
		cat >"$conf" <<CONF
# abbench-dev-cluster: written by scripts/slurm-dev-cluster.sh
ClusterName=abbench
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd-%n.pid
SlurmctldPort=6817
$(slurm_conf_common)
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
NodeName=node1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17001 CPUs=$cpus RealMemory=4000 State=UNKNOWN
NodeName=node2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=17002 CPUs=$cpus RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=node1,node2 Default=YES MaxTime=INFINITE State=UP
CONF
		oci_conf
	else
		log "$conf exists and was not written by this script: using it as it is"
	fi
	# Each daemon is ready when it answers a request; its pid file is waited
	# for only to record the pid "down" stops.
	if ! alive "$state/munged.pid" munged; then
		runuser -u munge -- /usr/sbin/munged --force
		wait_until 30 munged /var/log/munge/munged.log munge_answers || exit 1
		wait_until 10 "munged's pid file" /var/log/munge/munged.log test -s /run/munge/munged.pid || exit 1
		cp /run/munge/munged.pid "$state/munged.pid"
	fi
	if ! alive "$state/slurmctld.pid" slurmctld; then
		/usr/sbin/slurmctld -i
		wait_until 30 slurmctld /var/log/slurm/slurmctld.log slurmctld_answers || exit 1
		wait_until 10 "slurmctld's pid file" /var/log/slurm/slurmctld.log test -s /run/slurm/slurmctld.pid || exit 1
		cp /run/slurm/slurmctld.pid "$state/slurmctld.pid"
	fi
	for n in "${nodes[@]}"; do
		if ! alive "$state/slurmd-$n.pid" slurmd; then
			/usr/sbin/slurmd -N "$n"
			wait_until 10 "slurmd $n's pid file" "/var/log/slurm/slurmd-$n.log" test -s "/run/slurm/slurmd-$n.pid" || exit 1
			cp "/run/slurm/slurmd-$n.pid" "$state/slurmd-$n.pid"
		fi
	done
	# A slurmd is ready when slurmctld has its registration: its node is idle.
	wait_until 30 "${#nodes[@]} idle nodes" /var/log/slurm/slurmctld.log nodes_idle || { sinfo -N >&2 || true; exit 1; }
	log "up: ${#nodes[@]} nodes idle"
}

usage() {
	echo "usage: $0 up|down|status [--hosts N] | exec HOST -- CMD... | kill-node|start-node|cut|heal HOST | skew HOST SECONDS" >&2
	exit 2
}

hosts_flag() { # hosts_flag ARGS...: whether the verb's arguments are --hosts [N]
	case ${1:-} in
	"") return 1 ;;
	--hosts) return 0 ;;
	*) usage ;;
	esac
}

case $action in
up) if hosts_flag "${@:2}"; then hosts_up "${3:-}"; else up; fi ;;
down) if hosts_flag "${@:2}"; then hosts_down; else down; fi ;;
status) if hosts_flag "${@:2}"; then hosts_status; else sinfo -N; fi ;;
exec)
	[ $# -ge 4 ] && [ "$3" = -- ] || usage
	hosts_exec "$2" "${@:4}"
	;;
kill-node) [ $# = 2 ] || usage; hosts_kill_node "$2" ;;
start-node) [ $# = 2 ] || usage; hosts_start_node "$2" ;;
cut) [ $# = 2 ] || usage; hosts_cut "$2" ;;
heal) [ $# = 2 ] || usage; hosts_heal "$2" ;;
skew) [ $# = 3 ] || usage; hosts_skew "$2" ;;
boot-host) boot_host "$2" ;; # inside the host's namespaces: started by up --hosts
*) usage ;;
esac
