#!/usr/bin/env bash
# A real single-host Kubernetes cluster for abbench's tests: etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler and kubelets,
# each a node (abk-node1, abk-node2; ABBENCH_KUBE_NODES=1 for one), each on
# a containerd of its own and runc, without systemd and
# without any registry: the Kubernetes binaries are built from the pinned Go
# module in scripts/kube (and cached), the pause and abbench images are
# written here as OCI archives and imported into each containerd.
#   scripts/kube-dev-cluster.sh build         build the Kubernetes commands if they are not cached (up does too)
#   scripts/kube-dev-cluster.sh up            build if needed, start, wait until every node is Ready
#   scripts/kube-dev-cluster.sh down          stop what "up" started (pid files) and remove its state
#   scripts/kube-dev-cluster.sh status
#   scripts/kube-dev-cluster.sh env           the KUBECONFIG and PATH a shell needs for kubectl and abbench
#   scripts/kube-dev-cluster.sh tenant-env    the same for the namespaced tenant "up" makes (its kubeconfig, claim and path)
#   scripts/kube-dev-cluster.sh tenant-up     make that tenant on a running cluster (up does)
#   scripts/kube-dev-cluster.sh images        build and import the images again into a running cluster
#   scripts/kube-dev-cluster.sh kubectl ARGS  kubectl against the cluster
# Needs root. Each containerd has its own root, state, sockets and
# configuration, so a Docker daemon's containerd beside them never meets one.
set -euo pipefail
action=${1:-up}
script=$(realpath "$0")
repo=$(dirname "$(dirname "$script")")
# shellcheck source=scripts/lib/wait.sh
source "$repo/scripts/lib/wait.sh"
# shellcheck source=scripts/kube/pki.sh
source "$repo/scripts/kube/pki.sh"
# shellcheck source=scripts/kube/image.sh
source "$repo/scripts/kube/image.sh"
# shellcheck source=scripts/kube/daemons.sh
source "$repo/scripts/kube/daemons.sh"

version=$(awk '$1 == "require" && $2 == "k8s.io/kubernetes" {print $3}' "$repo/scripts/kube/go.mod")
cache=${ABBENCH_KUBE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/abbench-kube}/$version
bin=$cache/bin
state=/var/lib/abbench-kube
run=/run/abbench-kube
pki_dir=$state/pki
# shellcheck source=scripts/kube/tenant.sh
source "$repo/scripts/kube/tenant.sh"
# The API server listens on the address it advertises, this machine's on
# its default route: pods reach it there (the cluster has no kube-proxy,
# so its Service address does not route), and so does kubectl.
api_host=$(node_address)
api=https://$api_host:16443
nodes=()
for ((i = 1; i <= ${ABBENCH_KUBE_NODES:-2}; i++)); do nodes+=("abk-node$i"); done
images=(abbench.local/pause:3.10 abbench.local/abbench:dev abbench.local/disaggsim:dev)
# The fake extended resource the last node advertises (patched onto its
# status, as a device plugin would): a role that requests it is scheduled
# there, one that requests more than it has is not scheduled at all.
gpu_resource=example.com/gpu gpu_count=2

log() { echo "kube-dev-cluster: $*" >&2; }

k() { "$bin/kubectl" --kubeconfig "$pki_dir/admin.kubeconfig" "$@"; }

# build: the Kubernetes commands of the pinned version, once per version
# (the Go build cache keeps the rest).
build() {
	local want=(kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl) missing=() c
	for c in "${want[@]}"; do [ -x "$bin/$c" ] || missing+=("k8s.io/kubernetes/cmd/$c"); done
	[ "${#missing[@]}" -eq 0 ] && return 0
	log "building ${missing[*]} $version into $bin (minutes the first time)"
	mkdir -p "$bin"
	# The version the binaries report (a node's kubeletVersion): a go build
	# of the module stamps none by itself.
	local minor=${version#v1.}
	local ldflags="-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1"
	ldflags+=" -X k8s.io/component-base/version.gitMinor=${minor%%.*} -X k8s.io/component-base/version.gitTreeState=clean"
	ldflags+=" -X k8s.io/client-go/pkg/version.gitVersion=$version"
	(cd "$repo/scripts/kube" && CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$bin/" "${missing[@]}")
}

# build_images: the pause image, the abbench image (the project's static
# binaries, the simulator, the scenarios and a static busybox for /bin/sh)
# and a server image of the simulator alone (nothing of abbench's, not
# even a shell: its PATH names where it is, so a role of its own image
# runs it only with the image's environment), written and imported into
# the cluster's containerd.
build_images() {
	local roots=$state/images
	rm -rf "$roots" && mkdir -p "$roots/pause" "$roots/abbench/usr/local/bin" "$roots/abbench/bin" "$roots/abbench/tmp" "$roots/abbench/opt/abbench/testdata" \
		"$roots/disaggsim/opt/disaggsim/bin" "$roots/disaggsim/tmp"
	(cd "$repo/scripts/kube" && CGO_ENABLED=0 go build -trimpath -o "$roots/pause/pause" ./pause)
	(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$roots/abbench/usr/local/bin/" ./cmd/abbench ./cmd/abbench-rank ./cmd/disaggsim)
	cp "$roots/abbench/usr/local/bin/disaggsim" "$roots/disaggsim/opt/disaggsim/bin/"
	chmod 1777 "$roots/disaggsim/tmp"
	local busybox
	busybox=$(command -v busybox) || { log "no busybox: apt-get install busybox-static"; return 1; }
	ldd "$busybox" >/dev/null 2>&1 && { log "$busybox is not static: apt-get install busybox-static"; return 1; }
	cp "$busybox" "$roots/abbench/bin/busybox"
	local applet
	for applet in $("$busybox" --list); do [ "$applet" = busybox ] || ln -s busybox "$roots/abbench/bin/$applet"; done
	chmod 1777 "$roots/abbench/tmp"
	cp -r "$repo/scenarios" "$roots/abbench/opt/abbench/"
	cp "$repo/testdata/prompts-256.jsonl" "$roots/abbench/opt/abbench/testdata/"
	oci_image "$roots/pause" "${images[0]}" "$roots/pause.tar" '["/pause"]'
	oci_image "$roots/abbench" "${images[1]}" "$roots/abbench.tar" null '["PATH=/usr/local/bin:/bin"]' /opt/abbench
	oci_image "$roots/disaggsim" "${images[2]}" "$roots/disaggsim.tar" null '["PATH=/opt/disaggsim/bin"]'
	local tar
	for tar in "$roots/pause.tar" "$roots/abbench.tar" "$roots/disaggsim.tar"; do
		for i in "${!nodes[@]}"; do
			use_node $((i + 1))
			ctr -a "$sock" -n k8s.io images import "$tar" >/dev/null
		done
	done
}

# fake_gpus NODE: NODE advertises gpu_count of gpu_resource, patched onto
# its status as Kubernetes documents for an extended resource (the kubelet
# keeps what it does not manage), and waits until the API server says so.
fake_gpus() {
	k patch node "$1" --subresource=status --type=json \
		-p "[{\"op\": \"add\", \"path\": \"/status/capacity/${gpu_resource/\//~1}\", \"value\": \"$gpu_count\"}]" >/dev/null
	wait_until 30 "$gpu_resource on node $1" "$state/log/kube-apiserver.log" gpus_allocatable "$1"
}
gpus_allocatable() { [ "$(k get node "$1" -o "jsonpath={.status.allocatable.${gpu_resource//./\\.}}")" = "$gpu_count" ]; }

case $action in
up)
	[ "$(id -u)" = 0 ] || { log "needs root (containerd, the kubelet)"; exit 1; }
	build
	mkdir -p "$state/log" "$run"
	pki "$pki_dir" "$api_host" "${nodes[@]}"
	kubeconfig "$pki_dir" admin "$api"
	for node in "${nodes[@]}"; do kubeconfig "$pki_dir" "$node" "$api"; done
	start_etcd
	start_apiserver
	for i in "${!nodes[@]}"; do use_node $((i + 1)) && start_containerd; done
	build_images
	start_controllers
	for i in "${!nodes[@]}"; do use_node $((i + 1)) && start_kubelet; done
	for i in "${!nodes[@]}"; do
		use_node $((i + 1))
		wait_until 180 "node $node" "$state/log/kubelet-$n.log" node_ready
	done
	fake_gpus "${nodes[-1]}"
	wait_until 60 "the default service account" "$state/log/kube-controller-manager.log" k get serviceaccount default
	pod_forwarding
	tenant_up
	log "up: nodes ${nodes[*]} Ready; for kubectl and abbench: eval \"\$($script env)\""
	;;
build) build ;;
down) down ;;
status)
	for d in $(daemons); do
		if alive "$run/$d.pid"; then echo "$d running (pid $(cat "$run/$d.pid"))"; else echo "$d stopped"; fi
	done
	if [ -x "$bin/kubectl" ] && [ -f "$pki_dir/admin.kubeconfig" ]; then k get nodes 2>&1 || true; fi
	;;
env)
	echo "export KUBECONFIG=$pki_dir/admin.kubeconfig"
	echo "export PATH=$bin:\$PATH"
	# The address abbench gives a run's controller pod for the API server.
	echo "export ABBENCH_KUBERNETES_API=$api"
	;;
tenant-env)
	# The tenant's: its kubeconfig (a fresh token), its claim and where
	# this host sees the claim's volume.
	tenant_kubeconfig
	echo "export KUBECONFIG=$pki_dir/tenant.kubeconfig"
	echo "export PATH=$bin:\$PATH"
	echo "export ABBENCH_KUBERNETES_API=$api"
	echo "export ABBENCH_KUBERNETES_CLAIM=$tenant_claim"
	echo "export ABBENCH_KUBERNETES_CLAIM_PATH=$tenant_share"
	;;
tenant-up)
	pod_forwarding
	tenant_up
	;;
images) build_images ;;
kubectl)
	shift
	k "$@"
	;;
*)
	log "unknown action $action: build, up, down, status, env, tenant-env, tenant-up, images or kubectl ARGS"
	exit 2
	;;
esac
