package kubeapi

import (
	"encoding/json"
	"fmt"
	"slices"
)

// restrictedVolumes are the volume types Pod Security "restricted"
// admits: no hostPath, nor any other that reaches the node.
var restrictedVolumes = []string{"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"}

type securityContext struct {
	RunAsNonRoot             *bool  `json:"runAsNonRoot"`
	RunAsUser                *int64 `json:"runAsUser"`
	AllowPrivilegeEscalation *bool  `json:"allowPrivilegeEscalation"`
	Privileged               *bool  `json:"privileged"`
	SeccompProfile           *struct {
		Type string `json:"type"`
	} `json:"seccompProfile"`
	Capabilities *struct {
		Add  []string `json:"add"`
		Drop []string `json:"drop"`
	} `json:"capabilities"`
}

type restrictedContainer struct {
	Name            string           `json:"name"`
	SecurityContext *securityContext `json:"securityContext"`
	Ports           []struct {
		HostPort int `json:"hostPort"`
	} `json:"ports"`
}

type restrictedPod struct {
	HostNetwork, HostPID, HostIPC bool
	SecurityContext               *securityContext `json:"securityContext"`
	Volumes                       []map[string]json.RawMessage
	Containers                    []restrictedContainer `json:"containers"`
	InitContainers                []restrictedContainer `json:"initContainers"`
}

// RestrictedViolations are the rules of Pod Security "restricted" (the
// Kubernetes Pod Security Standards) a pod spec breaks, each named with
// the field; none: the admission would admit it. The fields checked are
// those the profile holds: host namespaces, privileged, host ports,
// volume types, privilege escalation, non-root, seccomp and
// capabilities.
func RestrictedViolations(podSpec []byte) ([]string, error) {
	var p restrictedPod
	if err := json.Unmarshal(podSpec, &p); err != nil {
		return nil, fmt.Errorf("pod spec: %w", err)
	}
	var v []string
	if p.HostNetwork || p.HostPID || p.HostIPC {
		v = append(v, "host namespaces (hostNetwork, hostPID, hostIPC)")
	}
	for _, vol := range p.Volumes {
		for k := range vol {
			if k != "name" && !slices.Contains(restrictedVolumes, k) {
				v = append(v, fmt.Sprintf("volume %s is %s", vol["name"], k))
			}
		}
	}
	pod := p.SecurityContext
	if pod == nil {
		pod = &securityContext{}
	}
	if pod.RunAsUser != nil && *pod.RunAsUser == 0 {
		v = append(v, "pod runAsUser 0")
	}
	for _, c := range append(p.InitContainers, p.Containers...) {
		v = append(v, c.violations(pod)...)
	}
	return v, nil
}

func (c restrictedContainer) violations(pod *securityContext) []string {
	sc := c.SecurityContext
	if sc == nil {
		sc = &securityContext{}
	}
	var v []string
	say := func(f string, a ...any) { v = append(v, "container "+c.Name+": "+fmt.Sprintf(f, a...)) }
	if sc.Privileged != nil && *sc.Privileged {
		say("privileged")
	}
	for _, p := range c.Ports {
		if p.HostPort != 0 {
			say("hostPort %d", p.HostPort)
		}
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		say("allowPrivilegeEscalation not false")
	}
	nonRoot := sc.RunAsNonRoot
	if nonRoot == nil {
		nonRoot = pod.RunAsNonRoot
	}
	if nonRoot == nil || !*nonRoot {
		say("runAsNonRoot not true (neither the container's nor the pod's)")
	}
	if sc.RunAsUser != nil && *sc.RunAsUser == 0 {
		say("runAsUser 0")
	}
	seccomp := sc.SeccompProfile
	if seccomp == nil {
		seccomp = pod.SeccompProfile
	}
	if seccomp == nil || (seccomp.Type != "RuntimeDefault" && seccomp.Type != "Localhost") {
		say("seccompProfile not RuntimeDefault or Localhost")
	}
	if sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		say("capabilities do not drop ALL")
	}
	if sc.Capabilities != nil {
		for _, a := range sc.Capabilities.Add {
			if a != "NET_BIND_SERVICE" {
				say("capability %s added", a)
			}
		}
	}
	return v
}
