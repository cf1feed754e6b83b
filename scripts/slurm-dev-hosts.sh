# The multi-host Slurm dev cluster, sourced by slurm-dev-cluster.sh (which
# defines log, and sources wait_until from scripts/lib/wait.sh): a login
# host, a controller host "ctl" and N compute hosts c1..cN, each its own
# network, mount, UTS, IPC and pid namespace on this machine, so each has
# its own hostname, address, /tmp, /run, /root, logs and process table.
# The hosts reach each other through a bridge in a namespace of its own;
# nothing routes out of their subnet, and
# this machine's own network, /run/munge, /etc/slurm and the single-host
# cluster's state are never touched. Everything made is listed in
# $hstate/made, and "down --hosts" removes what is listed, in reverse.
hstate=/var/lib/abbench-slurm-hosts
hnet=10.77.26       # the hosts' /24
hprefix=abh         # of every namespace and link made here
hswitch=$hprefix-switch
sftp_port=7022      # ctl's SFTP server for /shared
host_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

hosts_die() { log "$*"; exit 1; }
hosts_is_up() { [ -f "$hstate/up" ]; }
hosts_made() { echo "$*" >>"$hstate/made"; } # hosts_made KIND NAME: for down

hosts_names() { # every host, the controller first
	printf '%s\n' ctl login
	seq -f 'c%g' "$(cat "$hstate/n")"
}

host_addr() {
	case $1 in
	ctl) echo "$hnet.2" ;;
	login) echo "$hnet.3" ;;
	c[0-9]*) echo "$hnet.$((10 + ${1#c}))" ;;
	*) return 1 ;;
	esac
}

host_known() { # host_known HOST: HOST is a host of the running cluster
	hosts_is_up || [ -f "$hstate/n" ] || hosts_die "no multi-host cluster here (up --hosts N)"
	local all
	all=$(hosts_names | tr '\n' ' ')
	[[ " $all" == *" $1 "* ]] || hosts_die "no host $1 (hosts: $all)"
}

# host_pid HOST: the pid, in this machine's namespace, of HOST's init (pid 1
# of its pid namespace), checked against the start time recorded with it
# so a reused pid is never taken for it.
host_pid() {
	local f=$hstate/hosts/$1/pid pid start
	[ -f "$f" ] || return 1
	read -r pid start <"$f"
	[ "$(proc_start "$pid")" = "$start" ] || return 1
	echo "$pid"
}
proc_start() { # the start time of pid $1 (field 22 of its stat), empty if gone
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	stat=${stat##*) }
	# shellcheck disable=SC2086 # splitting the fields is the point
	set -- $stat
	[ "$1" != Z ] && echo "${20}"
}

# hosts_exec HOST CMD...: CMD in every namespace of HOST, with a clean
# environment (a login's: PATH, HOME, LANG, USER), in /root, standard input,
# output and exit status passed through.
hosts_exec() {
	local h=$1 pid
	shift
	host_known "$h"
	pid=$(host_pid "$h") || hosts_die "host $h is not running (killed? start-node $h)"
	[ $# -gt 0 ] || hosts_die "exec $h: no command"
	exec nsenter -t "$pid" -n -m -u -i -p --wd=/root -- env -i PATH="$host_path" HOME=/root USER=root LOGNAME=root \
		LANG=C.UTF-8 HOSTNAME="$h" TERM="${TERM:-dumb}" "$@"
}
hx() { (hosts_exec "$@"); } # hosts_exec in a subshell, for the script's own checks

hosts_write_config() {
	local n=$1 i nodes=""
	mkdir -p "$hstate/etc/slurm" "$hstate/etc/munge"
	dd if=/dev/urandom bs=1 count=1024 of="$hstate/etc/munge/munge.key" status=none
	chown -R munge:munge "$hstate/etc/munge"
	chmod 700 "$hstate/etc/munge"
	chmod 400 "$hstate/etc/munge/munge.key"
	{
		echo "127.0.0.1 localhost"
		for h in $(hosts_names); do echo "$(host_addr "$h") $h"; done
	} >"$hstate/etc/hosts"
	for i in $(seq "$n"); do nodes+="NodeName=c$i NodeHostname=c$i NodeAddr=$(host_addr "c$i") CPUs=4 RealMemory=2000 State=UNKNOWN"$'\n'; done
	# SlurmdTimeout: a node that stops answering is DOWN (and its jobs
	# NODE_FAIL) after 10 s, not the default 300.
	cat >"$hstate/etc/slurm/slurm.conf" <<CONF
# abbench-dev-hosts: written by scripts/slurm-dev-cluster.sh up --hosts $n
ClusterName=abbench-hosts
SlurmctldHost=ctl($(host_addr ctl))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
$(slurm_conf_common)
SlurmdTimeout=10
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
${nodes}PartitionName=debug Nodes=c[1-$n] Default=YES MaxTime=INFINITE State=UP
CONF
}

hosts_make_switch() {
	ip netns add "$hswitch" && hosts_made netns "$hswitch"
	ip -n "$hswitch" link add br0 type bridge
	ip -n "$hswitch" link set br0 up
}

host_make_net() { # host_make_net HOST: its namespace, and a cable to the switch
	local h=$1
	ip netns add "$hprefix-$h" && hosts_made netns "$hprefix-$h"
	ip link add "$hprefix-$h" netns "$hswitch" type veth peer name eth0 netns "$hprefix-$h"
	ip -n "$hswitch" link set "$hprefix-$h" master br0 up
	ip -n "$hprefix-$h" link set lo up
	ip -n "$hprefix-$h" addr add "$(host_addr "$h")/24" dev eth0
	ip -n "$hprefix-$h" link set eth0 up
}

# host_power_on HOST: start HOST's init in fresh pid, mount, UTS and IPC
# namespaces inside its network namespace, and record its pid. Its /tmp
# starts empty, as after a reboot.
host_power_on() {
	local h=$1 d=$hstate/hosts/$1 upid pid="" end=$((SECONDS + 10)) powered
	powered=$(date +%s)
	rm -rf "$d/tmp"
	mkdir -p "$d"/{tmp,root,log/slurm,log/munge,spool,munge}
	chmod 1777 "$d/tmp"
	chown munge:munge "$d/log/munge" "$d/munge"
	setsid nsenter --net="/run/netns/$hprefix-$h" -- unshare --pid --fork --mount-proc --mount --uts --ipc --propagation private \
		-- "$script" boot-host "$h" </dev/null >"$d/boot.log" 2>&1 &
	upid=$!
	until [ -n "$pid" ]; do
		pid=$(cat "/proc/$upid/task/$upid/children" 2>/dev/null) || true
		pid=${pid%% *}
		[ "$SECONDS" -lt "$end" ] || hosts_die "host $h: its init did not start within 10s (see $d/boot.log)"
		[ -n "$pid" ] || sleep 0.1
	done
	echo "$pid $(proc_start "$pid")" >"$d/pid"
	echo "$powered" >"$d/powered"
}

# boot_host HOST runs as pid 1 of HOST's namespaces: its own views of the
# machine's directories, then its daemons, then it reaps orphans forever.
boot_host() {
	local h=$1 d=$hstate/hosts/$1
	trap 'echo "boot $h: failed (status $?) at line $LINENO: $BASH_COMMAND" >&2' ERR
	cd /
	hostname "$h"
	# The machine's own mounts below /tmp and /run are not this host's
	# (a copy here would also keep them alive after the machine unmounts them).
	findmnt -rno TARGET | grep -E '^/(tmp|run)/' | tac | while read -r m; do umount -l "$m" || true; done
	mount -t tmpfs -o mode=755 tmpfs /run
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	mount --bind "$d/tmp" /tmp
	mount --bind "$d/root" /root
	mount --bind "$d/log" /var/log
	mount --bind "$d/spool" /var/spool
	mount --bind "$d/munge" /var/lib/munge
	mount --bind "$hstate/etc/hosts" /etc/hosts
	mount --bind "$hstate/etc/slurm" /etc/slurm
	mount --bind "$hstate/etc/munge" /etc/munge
	mount --bind "$hstate/bin" /usr/local/bin
	if [ "$h" = ctl ]; then mount --bind "$hstate/export" /srv; fi
	# Other hosts' directories are out of sight (the mounts above hold this
	# host's), and the rest of the machine's filesystem is read only here:
	# what a host shares with another goes through /shared, as between machines.
	mount -t tmpfs -o mode=700,size=1m tmpfs "$hstate"
	mount -o remount,bind,ro /
	mkdir -p /run/munge /var/spool/slurmd /var/spool/slurmctld
	chown munge:munge /run/munge
	runuser -u munge -- /usr/sbin/munged --force
	case $h in
	ctl)
		/usr/sbin/slurmctld -i
		setsid socat "TCP-LISTEN:$sftp_port,bind=$(host_addr ctl),fork,reuseaddr" EXEC:/usr/lib/openssh/sftp-server </dev/null >>/var/log/sftp.log 2>&1 &
		;;
	*)
		# /shared before slurmd: no job lands on a host without it.
		# dir_cache=no,direct_io: close-to-open consistency (docs/slurm.md
		# says why abbench needs it, and what sshfs's defaults do instead).
		local end=$((SECONDS + 30))
		until sshfs -o "directport=$sftp_port,reconnect,dir_cache=no,direct_io" ctl:/srv /shared; do
			[ "$SECONDS" -lt "$end" ] || { echo "boot $h: /shared not mounted within 30s" >&2; break; }
			sleep 0.2
		done
		[ "$h" = login ] || /usr/sbin/slurmd
		;;
	esac
	echo "boot $h: up"
	trap : CHLD # bash reaps every child, adopted ones too, when one ends
	while :; do
		sleep 3600 &
		wait $! || true
	done
}

# Readiness: each is a request its daemon answers, from the host that needs it.
host_munge_answers() { hx "$1" sh -c 'munge -n | unmunge'; }
munge_crosses() { hx "$1" munge -n | hx ctl unmunge; } # one key: $1's credential decodes on ctl
host_ctld_answers() { hx "$1" scontrol ping | grep -q ' is UP'; }
sftp_answers() { hx ctl bash -c "exec 3<>/dev/tcp/ctl/$sftp_port"; }
# host_shared_answers HOST: a file HOST writes in /shared is on ctl's disk.
host_shared_answers() {
	local f=.ready-$1-$$
	hx "$1" sh -c "echo $1 > /shared/$f" && [ "$(cat "$hstate/export/$f" 2>/dev/null)" = "$1" ] && rm -f "$hstate/export/$f"
}
# node_idle HOST: HOST's slurmd registered since the host's power on (not
# a state slurmctld kept from before) and its node is idle.
node_idle() {
	local f t
	f=$(hx login scontrol -o show node "$1") || return 1
	[[ " $f " == *" State=IDLE "* ]] || return 1
	t=${f##*SlurmdStartTime=}
	[ "$(date -d "${t%% *}" +%s)" -ge "$(cat "$hstate/hosts/$1/powered")" ]
}

# host_wait_ready HOST: HOST's daemons answer, and other hosts reach them.
host_wait_ready() {
	local h=$1 d=$hstate/hosts/$1
	wait_until 30 "munged on $h" "$d/log/munge/munged.log" host_munge_answers "$h" || return 1
	case $h in
	ctl)
		wait_until 30 "slurmctld on ctl" "$d/log/slurm/slurmctld.log" host_ctld_answers ctl || return 1
		wait_until 10 "ctl's SFTP server on port $sftp_port" "$d/log/sftp.log" sftp_answers || return 1
		;;
	login | c*)
		wait_until 10 "a munge credential of $h decoded on ctl (one key)" "$d/log/munge/munged.log" munge_crosses "$h" || return 1
		;;&
	login)
		wait_until 30 "/shared on login" "$d/boot.log" host_shared_answers login || return 1
		wait_until 10 "slurmctld, asked from login" "$hstate/hosts/ctl/log/slurm/slurmctld.log" host_ctld_answers login || return 1
		;;
	*)
		wait_until 30 "/shared on $h" "$d/boot.log" host_shared_answers "$h" || return 1
		wait_until 60 "node $h idle in sinfo" "$d/log/slurm/slurmd.log" node_idle "$h" || { hx login sinfo -N >&2 || true; return 1; }
		;;
	esac
}

hosts_install() {
	local missing=()
	command -v slurmctld >/dev/null || missing+=(slurm-wlm)
	command -v munged >/dev/null || missing+=(munge)
	command -v sshfs >/dev/null || missing+=(sshfs)
	[ -x /usr/lib/openssh/sftp-server ] || missing+=(openssh-sftp-server)
	command -v socat >/dev/null || missing+=(socat)
	command -v ip >/dev/null || missing+=(iproute2)
	command -v nsenter >/dev/null && command -v unshare >/dev/null || missing+=(util-linux)
	[ ${#missing[@]} -eq 0 ] && return
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
}

hosts_up() {
	local n=$1 h
	[ "$(id -u)" = 0 ] || hosts_die "needs root"
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 3 ] && [ "$n" -le 200 ] || hosts_die "up --hosts N: N is a number of compute hosts, 3 to 200, not '$n'"
	if hosts_is_up; then
		[ "$(cat "$hstate/n")" = "$n" ] || hosts_die "a cluster of $(cat "$hstate/n") compute hosts is up: down --hosts first"
		for h in $(hosts_names); do host_wait_ready "$h" || exit 1; done
		log "up: already, $n compute hosts idle"
		return
	fi
	[ ! -e "$hstate" ] || hosts_die "$hstate is left from an up --hosts that did not finish: down --hosts first"
	hosts_install
	mkdir -p "$hstate"/{bin,export,hosts}
	echo "$n" >"$hstate/n"
	if [ ! -e /shared ]; then mkdir /shared && hosts_made dir /shared; fi
	[ -d /shared ] && [ -z "$(ls -A /shared)" ] || hosts_die "/shared exists and is not an empty directory: the hosts mount theirs there"
	# The checkout's binaries, as they are now, on every host's PATH.
	if [ -d "$repo/bin" ]; then cp -a "$repo/bin/." "$hstate/bin/"; else log "no bin/ in the checkout (go build -o bin/ ./cmd/...): hosts have no abbench on PATH"; fi
	hosts_write_config "$n"
	hosts_make_switch
	for h in $(hosts_names); do host_make_net "$h"; done
	host_power_on ctl
	host_wait_ready ctl || exit 1
	for h in $(hosts_names | grep -vx ctl); do host_power_on "$h"; done
	for h in $(hosts_names | grep -vx ctl); do host_wait_ready "$h" || exit 1; done
	touch "$hstate/up"
	log "up: login, ctl and $n compute hosts (c1..c$n) idle; /shared served by ctl"
}

# host_power_off HOST: every process of HOST at once (SIGKILL to its pid
# namespace's init kills the namespace), and its cable pulled, so its
# address answers nothing, as a machine without power.
host_power_off() {
	local h=$1 pid end=$((SECONDS + 10))
	ip -n "$hswitch" link set "$hprefix-$h" down 2>/dev/null || true
	pid=$(host_pid "$h") || return 0
	kill -KILL "$pid"
	while host_pid "$h" >/dev/null; do
		[ "$SECONDS" -lt "$end" ] || hosts_die "host $h: its init (pid $pid) still runs 10s after SIGKILL"
		sleep 0.1
	done
	rm -f "$hstate/hosts/$h/pid"
}

hosts_kill_node() {
	host_known "$1"
	host_pid "$1" >/dev/null || hosts_die "host $1 is not running"
	host_power_off "$1"
	log "killed $1: every process of it, its network gone"
}

hosts_start_node() {
	local h=$1
	host_known "$h"
	! host_pid "$h" >/dev/null || hosts_die "host $h is running"
	ip -n "$hswitch" link set "$hprefix-$h" up
	host_power_on "$h"
	host_wait_ready "$h" || exit 1
	log "started $h"
}

# cut/heal: the switch stops (or resumes) forwarding the host's port; its
# link stays up, so the host sees no carrier loss, only silence.
hosts_cut() { host_known "$1"; bridge -n "$hswitch" link set dev "$hprefix-$1" state 0 && log "cut $1 off the network"; }
hosts_heal() { host_known "$1"; bridge -n "$hswitch" link set dev "$hprefix-$1" state 3 && log "healed $1's network"; }

hosts_skew() {
	host_known "$1"
	hosts_die "skew $1: not possible here. The hosts share this machine's kernel, and a time namespace offsets only CLOCK_MONOTONIC and CLOCK_BOOTTIME, never the wall clock (CLOCK_REALTIME); setting the wall clock would skew every host and this machine alike, and an LD_PRELOAD clock (libfaketime) does not reach Go binaries, which read the clock without libc"
}

hosts_down() {
	local kind name h
	[ -d "$hstate" ] || { log "no multi-host cluster to stop"; return; }
	if [ -f "$hstate/n" ]; then
		for h in $(hosts_names); do host_power_off "$h"; done
	fi
	if [ -f "$hstate/made" ]; then
		tac "$hstate/made" | while read -r kind name; do
			case $kind in
			netns) ip netns del "$name" ;;
			dir) rmdir "$name" || log "$name is not empty: left" ;;
			esac
		done
	fi
	rm -rf "$hstate"
	log "multi-host cluster stopped and removed"
}

hosts_status() {
	local h
	hosts_is_up || { echo "no multi-host cluster up"; return 1; }
	for h in $(hosts_names); do
		if host_pid "$h" >/dev/null; then echo "$h $(host_addr "$h") running"; else echo "$h $(host_addr "$h") off"; fi
	done
	hx login sinfo -N
}
