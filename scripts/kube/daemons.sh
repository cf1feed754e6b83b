# shellcheck shell=bash
# shellcheck disable=SC2154 # state, run, nodes, bin, api, api_host, pki_dir: set by kube-dev-cluster.sh
# The dev cluster's daemons: each started detached with its pid in
# $run/NAME.pid and its log in $state/log/NAME.log, and waited for until it
# answers a request (never for a socket or pid file alone), within a
# deadline; down stops exactly those pids. Needs $bin, $state, $run,
# $pki_dir, $api, $api_host, nodes, log() and wait_until (scripts/lib/wait.sh)
# from kube-dev-cluster.sh. Each node is a
# kubelet on a containerd of its own (a kubelet removes the containers of
# its runtime it does not know), with its own bridge and subnet.
control=(etcd kube-apiserver kube-controller-manager kube-scheduler)

# daemons: every daemon's name, in start order.
daemons() {
	local i
	echo "${control[@]::2}"
	for i in "${!nodes[@]}"; do echo "containerd-$((i + 1))"; done
	echo "${control[@]:2}"
	for i in "${!nodes[@]}"; do echo "kubelet-$((i + 1))"; done
}

# use_node N: the node of index N (from 1) is the one the functions below
# act on: its name, directories, containerd socket, bridge and ports.
use_node() {
	n=$1 node=${nodes[$1 - 1]} nd=$state/node$1 nr=$run/node$1
	sock=$nr/containerd.sock bridge=abk$(($1 - 1))
	subnet=10.244.$(($1 - 1)).0/24 kubelet_port=$((10250 + 10 * ($1 - 1))) healthz_port=$((10248 + 10 * ($1 - 1)))
}

alive() { # alive PIDFILE: the pid file names a live process, not a zombie
	local pid
	[ -f "$1" ] || return 1
	pid=$(cat "$1" 2>/dev/null) || return 1
	[ -n "$pid" ] && [ -d "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null
}

# wait_until (scripts/lib/wait.sh) asks every 0.2 s: kubectl and curl
# cost more than Slurm's commands.
# shellcheck disable=SC2034 # read by wait_until
wait_poll=0.2

# daemon NAME CMD...: start CMD detached unless NAME runs already.
daemon() {
	local name=$1
	shift
	alive "$run/$name.pid" && return 0
	setsid "$@" >>"$state/log/$name.log" 2>&1 </dev/null &
	echo $! >"$run/$name.pid"
}

etcd_answers() { curl -fsS http://127.0.0.1:12379/health | grep -q '"health":"true"'; }
api_answers() { k get --raw /readyz; }
containerd_answers() { ctr -a "$sock" version; }
node_ready() { [ "$(k get node "$node" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')" = True ]; }

start_etcd() {
	daemon etcd etcd --name abk --data-dir "$state/etcd" \
		--listen-client-urls http://127.0.0.1:12379 --advertise-client-urls http://127.0.0.1:12379 \
		--listen-peer-urls http://127.0.0.1:12380 --initial-advertise-peer-urls http://127.0.0.1:12380 \
		--initial-cluster abk=http://127.0.0.1:12380
	wait_until 30 etcd "$state/log/etcd.log" etcd_answers
}

start_apiserver() {
	daemon kube-apiserver "$bin/kube-apiserver" --etcd-servers http://127.0.0.1:12379 \
		--bind-address "$api_host" --secure-port 16443 --advertise-address "$api_host" \
		--service-cluster-ip-range 10.96.0.0/24 \
		--tls-cert-file "$pki_dir/apiserver.crt" --tls-private-key-file "$pki_dir/apiserver.key" \
		--client-ca-file "$pki_dir/ca.crt" --authorization-mode Node,RBAC \
		--service-account-key-file "$pki_dir/sa.pub" --service-account-signing-key-file "$pki_dir/sa.key" \
		--service-account-issuer https://kubernetes.default.svc \
		--kubelet-client-certificate "$pki_dir/admin.crt" --kubelet-client-key "$pki_dir/admin.key" \
		--kubelet-preferred-address-types InternalIP
	wait_until 90 kube-apiserver "$state/log/kube-apiserver.log" api_answers
}

# node_address: this machine's address on its default route (the API
# server advertises it, and refuses a loopback one).
node_address() {
	ip -4 route get 1.1.1.1 2>/dev/null | awk '{for (i = 1; i < NF; i++) if ($i == "src") {print $(i + 1); exit}}'
}

start_containerd() {
	mkdir -p "$nd/cni" "$nd/containerd" "$nr"
	cat >"$nd/cni/10-abk.conflist" <<CNI
{"cniVersion": "1.0.0", "name": "abk", "plugins": [{"type": "bridge", "bridge": "$bridge", "isGateway": true, "ipMasq": false,
 "ipam": {"type": "host-local", "ranges": [[{"subnet": "$subnet"}]], "routes": [{"dst": "0.0.0.0/0"}], "dataDir": "$nd/cni-ipam"}}]}
CNI
	cat >"$nd/containerd/config.toml" <<TOML
version = 2
root = "$nd/containerd/root"
state = "$nr/containerd"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
[grpc]
  address = "$sock"
[ttrpc]
  address = "$nr/containerd-ttrpc.sock"
[debug]
  address = "$nr/containerd-debug.sock"
[plugins."io.containerd.internal.v1.opt"]
  path = "$nd/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "abbench.local/pause:3.10"
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  # Never below containerd's own score: the sandbox's default (-998) needs
  # CAP_SYS_RESOURCE, which root on a shared or virtual machine may lack.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$nd/cni"
TOML
	daemon "containerd-$n" containerd --config "$nd/containerd/config.toml"
	wait_until 30 "containerd of $node" "$state/log/containerd-$n.log" containerd_answers
}

start_controllers() {
	daemon kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$pki_dir/admin.kubeconfig" \
		--bind-address 127.0.0.1 --leader-elect=false --use-service-account-credentials=false \
		--service-account-private-key-file "$pki_dir/sa.key" --root-ca-file "$pki_dir/ca.crt"
	daemon kube-scheduler "$bin/kube-scheduler" --kubeconfig "$pki_dir/admin.kubeconfig" \
		--bind-address 127.0.0.1 --leader-elect=false
}

# start_kubelet: the node's kubelet on its containerd. Pods are not
# put in per-QoS cgroups (cgroupsPerQOS false): this cgroup v1 machine is
# shared, and the node's capacity is all of it. Eviction thresholds are
# near zero and image garbage collection is off: the images come from no
# registry, so a collected one could never come back.
start_kubelet() {
	mkdir -p "$nd/kubelet"
	cat >"$nd/kubelet/config.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $(node_address)
port: $kubelet_port
healthzBindAddress: 127.0.0.1
healthzPort: $healthz_port
readOnlyPort: 0
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: "$pki_dir/ca.crt"}
authorization: {mode: AlwaysAllow}
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
containerRuntimeEndpoint: unix://$sock
podLogsDir: $nd/pod-logs
evictionHard: {memory.available: "50Mi", nodefs.available: "1%", imagefs.available: "1%", nodefs.inodesFree: "1%"}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
resolvConf: /etc/resolv.conf
YAML
	# --cert-dir: the serving certificate the kubelet makes itself, in the
	# node's own directory. Its default, /var/lib/kubelet/pki, is one for
	# every kubelet of the machine: on a fresh machine the two nodes' kubelets
	# wrote it at once, and one read the other's half-written pair and
	# exited ("certificate and key must be supplied as a pair").
	daemon "kubelet-$n" "$bin/kubelet" --config "$nd/kubelet/config.yaml" --kubeconfig "$pki_dir/$node.kubeconfig" \
		--root-dir "$nd/kubelet" --cert-dir "$nd/kubelet/pki" --hostname-override "$node"
}

# stop NAME: TERM to the pid NAME's pid file names, KILL after 15 s.
stop() {
	local f=$run/$1.pid pid i
	alive "$f" || { rm -f "$f"; return 0; }
	pid=$(cat "$f")
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 150; i++)); do
		alive "$f" || break
		sleep 0.1
	done
	if alive "$f"; then kill -KILL "$pid" 2>/dev/null || true; fi
	rm -f "$f"
}

# down: every pod gone through the kubelet (which tears down its network
# and namespaces), then the daemons in reverse order, then the containers
# and shims the cluster's containerd left, its mounts, bridge and state.
down() {
	if alive "$run/kube-apiserver.pid"; then
		k delete pods --all --all-namespaces --force --grace-period=0 --wait=false >/dev/null 2>&1 || true
		for i in "${!nodes[@]}"; do
			use_node $((i + 1))
			alive "$run/kubelet-$n.pid" || continue
			wait_until 60 "removing every pod of $node" "$state/log/kubelet-$n.log" no_containers || true
		done
	fi
	local all i
	mapfile -t all < <(daemons | tr ' ' '\n')
	for ((i = ${#all[@]} - 1; i >= 0; i--)); do
		if [[ ${all[i]} == containerd-* ]]; then
			use_node "${all[i]#containerd-}"
			remove_containers
		fi
		stop "${all[i]}"
	done
	for i in "${!nodes[@]}"; do
		use_node $((i + 1))
		kill_shims
		if ip link show "$bridge" >/dev/null 2>&1; then ip link delete "$bridge"; fi
	done
	while iptables -D "${pod_forward[@]}" 2>/dev/null; do :; done
	unmount_under "$state" "$run"
	# The containers' cgroups (containerd's k8s.io namespace), once empty.
	rmdir /sys/fs/cgroup/*/k8s.io/* /sys/fs/cgroup/*/k8s.io 2>/dev/null || true
	rm -rf "$state" "$run"
	log "down"
}

no_containers() { [ -z "$(ctr -a "$sock" -n k8s.io containers ls -q)" ]; }

# remove_containers: whatever the kubelet did not remove, killed and removed.
remove_containers() {
	alive "$run/containerd-$n.pid" || return 0
	local id
	for id in $(ctr -a "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
		ctr -a "$sock" -n k8s.io tasks kill -s KILL "$id" >/dev/null 2>&1 || true
		ctr -a "$sock" -n k8s.io tasks delete -f "$id" >/dev/null 2>&1 || true
	done
	for id in $(ctr -a "$sock" -n k8s.io containers ls -q 2>/dev/null); do
		ctr -a "$sock" -n k8s.io containers delete "$id" >/dev/null 2>&1 || true
	done
}

# kill_shims: the runc shims of this cluster's containerd (their -address
# is its socket), which outlive it by design.
kill_shims() {
	local p
	for p in /proc/[0-9]*; do
		if { tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -q -- "-address $sock "; then
			kill -KILL "${p#/proc/}" 2>/dev/null || true
		fi
	done
}

# unmount_under DIR...: every mount below DIR, deepest first.
unmount_under() {
	local d m
	for d in "$@"; do
		awk -v d="$d/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r | while read -r m; do
			umount -l "$m" 2>/dev/null || true
		done
	done
}

# A pod off its node's network (a tenant's) reaches the API server on
# this machine's address by its default route (the bridge, isGateway),
# and a pod on the other node's bridge through this machine: forwarding
# between the cluster's bridges is accepted, ahead of a FORWARD policy of
# DROP (Docker's). down removes the rule.
pod_forward=(FORWARD -s 10.244.0.0/16 -d 10.244.0.0/16 -m comment --comment abbench-kube-pods -j ACCEPT)
pod_forwarding() {
	iptables -C "${pod_forward[@]}" 2>/dev/null || iptables -I "${pod_forward[@]}"
}
