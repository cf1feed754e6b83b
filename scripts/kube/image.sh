# shellcheck shell=bash
# oci_image ROOT NAME TAR [ENTRYPOINT-JSON [ENV-JSON [WORKDIR]]]: write TAR, an
# OCI image archive of the one-layer image whose filesystem is the directory
# ROOT, named NAME for `ctr images import` (annotation io.containerd.image.name).
# No registry and no image builder is needed: the layer is a plain tar of
# ROOT (owner root, mtimes 0, sorted, so the same ROOT gives the same digest).
oci_image() {
	local root=$1 name=$2 tar=$3 entrypoint=${4:-null} env=${5:-'["PATH=/usr/local/bin:/bin"]'} workdir=${6:-/}
	local work
	work=$(mktemp -d)
	mkdir -p "$work/blobs/sha256"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$root" -cf "$work/layer.tar" .
	local layer layer_size config config_digest manifest manifest_digest
	layer=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
	layer_size=$(stat -c %s "$work/layer.tar")
	mv "$work/layer.tar" "$work/blobs/sha256/$layer"
	config=$(printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":%s,"Env":%s,"WorkingDir":"%s"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
		"$entrypoint" "$env" "$workdir" "$layer")
	config_digest=$(blob "$work" "$config")
	manifest=$(printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%d},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%d}]}' \
		"$config_digest" "${#config}" "$layer" "$layer_size")
	manifest_digest=$(blob "$work" "$manifest")
	printf '{"imageLayoutVersion":"1.0.0"}' >"$work/oci-layout"
	printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%d,"platform":{"architecture":"amd64","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
		"$manifest_digest" "${#manifest}" "$name" "${name##*:}" >"$work/index.json"
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work" -cf "$tar.new" oci-layout index.json blobs
	mv "$tar.new" "$tar"
	rm -rf "$work"
}

# blob DIR CONTENT: store CONTENT (ASCII JSON: its length in bytes is ${#CONTENT})
# as a blob of the layout DIR and print its sha256.
blob() {
	local digest
	digest=$(printf '%s' "$2" | sha256sum | cut -d' ' -f1)
	printf '%s' "$2" >"$1/blobs/sha256/$digest"
	echo "$digest"
}
