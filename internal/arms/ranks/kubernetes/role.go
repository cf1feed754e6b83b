package kubernetes

import (
	"encoding/json"
	"path"
	"slices"
)

// wrapperDir is where a rank pod of a role's own image finds the rank
// wrapper: an emptyDir an init container of the controller's image
// copies the static wrapper into, so the role's image needs nothing of
// abbench's.
const (
	wrapperDir    = "/abbench-rank"
	wrapperVolume = "abbench-rank"
	initContainer = "abbench-rank"
)

// roleKeys makes container and pod what the role's kubernetes: keys say:
// its resources, tolerations and node selector; and, for a role of its own
// image, that image, with the wrapper delivered by an init container of
// the controller's image (ownImage, ownPull) into a shared emptyDir.
func roleKeys(pod, container object, ownImage, ownPull string, j rankJobSpec) {
	k := j.kube
	resources := object{}
	if len(k.Resources.Requests) > 0 {
		resources["requests"] = k.Resources.Requests
	}
	if len(k.Resources.Limits) > 0 {
		resources["limits"] = k.Resources.Limits
	}
	if len(resources) > 0 {
		container["resources"] = resources
	}
	if len(k.Tolerations) > 0 {
		pod["tolerations"] = k.Tolerations
	}
	if len(k.NodeSelector) > 0 {
		pod["nodeSelector"] = k.NodeSelector
	}
	if k.Image == "" {
		return
	}
	container["image"], container["imagePullPolicy"] = k.Image, or(k.ImagePullPolicy, "IfNotPresent")
	// The wrapper as the controller runs it (abbench-rank, or abbench
	// rank-exec where it has none), copied under its own name.
	installed := append([]string{path.Join(wrapperDir, path.Base(j.wrapper[0]))}, j.wrapper[1:]...)
	container["command"] = append(installed, "--launch-image", j.launchDir, j.role)
	mount := object{"name": wrapperVolume, "mountPath": wrapperDir}
	container["volumeMounts"] = append(anySlice(container["volumeMounts"]), object{"name": wrapperVolume, "mountPath": wrapperDir, "readOnly": true})
	init := object{
		"name": initContainer, "image": ownImage, "imagePullPolicy": ownPull,
		"command":      append(slices.Clone(j.wrapper), "--install", wrapperDir),
		"volumeMounts": []object{mount},
	}
	if sc, ok := container["securityContext"]; ok {
		init["securityContext"] = sc // the controller's: a tenant's, restricted
	}
	pod["initContainers"] = []object{init}
	pod["volumes"] = append(anySlice(pod["volumes"]), object{"name": wrapperVolume, "emptyDir": object{}})
}

// anySlice is the volumes or mounts copied from the controller's pod, as
// values a made one can join.
func anySlice(v any) []any {
	var out []any
	for _, m := range v.([]json.RawMessage) {
		out = append(out, m)
	}
	return out
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
