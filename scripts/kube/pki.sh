# shellcheck shell=bash
# The dev cluster's certificates, made with openssl: a CA, the API
# server's serving certificate (for the address it listens on, 127.0.0.1,
# localhost and the cluster service address), a client certificate each for the administrator
# (system:masters: kubectl, the controller manager, the scheduler) and
# each kubelet (system:node:NAME, which the Node authorizer holds to its
# own node), and the service-account signing key. Kubernetes 1.34 has no
# insecure port any more: every client authenticates with TLS.

# pki DIR ADDRESS NODE...: make DIR's certificates unless they are there;
# ADDRESS is the API server's.
pki() {
	local dir=$1 address=$2
	shift 2
	mkdir -p "$dir"
	[ -f "$dir/ca.crt" ] || openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=abbench-kube-ca \
		-keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
	[ -f "$dir/sa.key" ] || { openssl genrsa -out "$dir/sa.key" 2048 2>/dev/null &&
		openssl rsa -in "$dir/sa.key" -pubout -out "$dir/sa.pub" 2>/dev/null; }
	signed "$dir" apiserver /CN=kube-apiserver "subjectAltName=IP:$address,IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default.svc
extendedKeyUsage=serverAuth"
	signed "$dir" admin "/O=system:masters/CN=abbench-admin" "extendedKeyUsage=clientAuth"
	local node
	for node in "$@"; do
		signed "$dir" "$node" "/O=system:nodes/CN=system:node:$node" "extendedKeyUsage=clientAuth"
	done
}

# signed DIR NAME SUBJECT EXTENSIONS: DIR/NAME.crt and .key, signed by DIR's CA.
signed() {
	local dir=$1 name=$2
	[ -f "$dir/$name.crt" ] && return 0
	openssl req -newkey rsa:2048 -nodes -subj "$3" -keyout "$dir/$name.key" -out "$dir/$name.csr" 2>/dev/null
	printf '%s\n' "$4" >"$dir/$name.ext"
	openssl x509 -req -in "$dir/$name.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 3650 \
		-extfile "$dir/$name.ext" -out "$dir/$name.crt" 2>/dev/null
	rm -f "$dir/$name.csr" "$dir/$name.ext"
}

# kubeconfig DIR NAME SERVER: DIR/NAME.kubeconfig, NAME's certificate against SERVER.
kubeconfig() {
	cat >"$1/$2.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: abbench-kube
  cluster: {server: "$3", certificate-authority: "$1/ca.crt"}
users:
- name: $2
  user: {client-certificate: "$1/$2.crt", client-key: "$1/$2.key"}
contexts:
- name: abbench-kube
  context: {cluster: abbench-kube, user: $2}
current-context: abbench-kube
KC
}
