# shellcheck shell=bash
# shellcheck disable=SC2154 # state, pki_dir, api: set by kube-dev-cluster.sh
# A namespaced tenant of the dev cluster, as a platform team gives one: a
# namespace whose Pod Security admission enforces "restricted", a
# ReadWriteMany claim there bound to a volume the administrator made (a
# hostPath PersistentVolume on this one-host cluster: the pods mount only
# the claim), a ServiceAccount holding only the Role abbench-tenant of
# docs/kubernetes.md, and a kubeconfig of that account whose context's
# namespace is the tenant's. Idempotent: `up` applies it to a running
# cluster as well.
tenant_ns=abbench-tenant
tenant_claim=campaign
# Where this host sees the claim's volume, and so where pods mount it.
tenant_share=$state/share

tenant_objects() {
	cat <<YAML
apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: Namespace
    metadata:
      name: $tenant_ns
      labels:
        pod-security.kubernetes.io/enforce: restricted
        pod-security.kubernetes.io/enforce-version: latest
  - apiVersion: v1
    kind: PersistentVolume
    metadata:
      name: abbench-tenant-share
    spec:
      capacity: {storage: 1Gi}
      accessModes: [ReadWriteMany]
      persistentVolumeReclaimPolicy: Retain
      storageClassName: abbench-share
      hostPath: {path: $tenant_share, type: Directory}
      claimRef: {namespace: $tenant_ns, name: $tenant_claim}
  - apiVersion: v1
    kind: PersistentVolumeClaim
    metadata:
      name: $tenant_claim
      namespace: $tenant_ns
    spec:
      accessModes: [ReadWriteMany]
      storageClassName: abbench-share
      volumeName: abbench-tenant-share
      resources: {requests: {storage: 1Gi}}
  - apiVersion: v1
    kind: ServiceAccount
    metadata:
      name: tenant
      namespace: $tenant_ns
  - apiVersion: rbac.authorization.k8s.io/v1
    kind: RoleBinding
    metadata:
      name: abbench-tenant
      namespace: $tenant_ns
    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: abbench-tenant}
    subjects: [{kind: ServiceAccount, name: tenant, namespace: $tenant_ns}]
YAML
	# The Role, as docs/kubernetes.md documents it (one source, no copy).
	echo "---"
	sed -n '/^### A namespaced tenant/,/^```$/p' "$repo/docs/kubernetes.md" | sed -n '/^```yaml$/,/^```$/p' | sed '1d;$d' | sed "s/^  namespace: .*/  namespace: $tenant_ns/"
}

# tenant_up makes the tenant and its kubeconfig, and waits until the claim is bound.
tenant_up() {
	mkdir -p "$tenant_share"
	tenant_objects | k apply -f - >/dev/null
	wait_until 30 "the tenant's claim bound" "$state/log/kube-controller-manager.log" claim_bound
	tenant_kubeconfig
}
claim_bound() { [ "$(k get pvc "$tenant_claim" -n "$tenant_ns" -o 'jsonpath={.status.phase}')" = Bound ]; }

# tenant_kubeconfig writes the tenant account's kubeconfig (a token of a
# day: made again by every `up` and `tenant-env`).
tenant_kubeconfig() {
	local token
	token=$(k create token tenant -n "$tenant_ns" --duration=24h)
	KUBECONFIG=$pki_dir/tenant.kubeconfig "$bin/kubectl" config set-cluster abk --server="$api" --certificate-authority="$pki_dir/ca.crt" --embed-certs >/dev/null
	KUBECONFIG=$pki_dir/tenant.kubeconfig "$bin/kubectl" config set-credentials tenant --token="$token" >/dev/null
	KUBECONFIG=$pki_dir/tenant.kubeconfig "$bin/kubectl" config set-context tenant --cluster=abk --user=tenant --namespace="$tenant_ns" >/dev/null
	KUBECONFIG=$pki_dir/tenant.kubeconfig "$bin/kubectl" config use-context tenant >/dev/null
	chmod 600 "$pki_dir/tenant.kubeconfig"
}
