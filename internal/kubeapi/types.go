package kubeapi

import (
	"strings"
	"time"
)

// Object is what abbench reads of a Job, a pod or a node: the fields its
// watches use, whatever the kind.
type Object struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name              string            `json:"name"`
		UID               string            `json:"uid"`
		Labels            map[string]string `json:"labels"`
		Annotations       map[string]string `json:"annotations"`
		CreationTimestamp time.Time         `json:"creationTimestamp"`
		DeletionTimestamp *time.Time        `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase             string            `json:"phase"`
		Reason            string            `json:"reason"`
		Message           string            `json:"message"`
		Conditions        []Condition       `json:"conditions"`
		ContainerStatuses []ContainerStatus `json:"containerStatuses"`
	} `json:"status"`
}

// What a rank pod carries, for the rank driver that makes it and the
// launcher that records its image: its role's label and its container's
// name.
const (
	LabelRole     = "abbench.dev/role"
	RankContainer = "rank"
)

// List is a list of objects and the resource version it was read at.
type List struct {
	Metadata struct {
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Items []Object `json:"items"`
}

// Condition is one of an object's status conditions.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// ContainerStatus is what the kubelet reports of one container of a pod.
type ContainerStatus struct {
	Name    string `json:"name"`
	Image   string `json:"image"`
	ImageID string `json:"imageID"`
	State   struct {
		Waiting    *Reasoned `json:"waiting"`
		Running    *struct{} `json:"running"`
		Terminated *struct {
			ExitCode  int        `json:"exitCode"`
			Reason    string     `json:"reason"`
			Message   string     `json:"message"`
			StartedAt *time.Time `json:"startedAt"` // the epoch for one that never started
		} `json:"terminated"`
	} `json:"state"`
}

// Reasoned is a waiting container's reason.
type Reasoned struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// FatalWaiting are the reasons a container waits for that no wait mends:
// an image that cannot be pulled (no registry serves it, or it is not on
// the node and the policy forbids a pull) or a container the runtime
// cannot make.
var FatalWaiting = map[string]bool{"ErrImagePull": true, "ImagePullBackOff": true, "ErrImageNeverPull": true,
	"InvalidImageName": true, "CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true}

// Find is the condition of type typ, or nil.
func Find(cs []Condition, typ string) *Condition {
	for i := range cs {
		if cs[i].Type == typ {
			return &cs[i]
		}
	}
	return nil
}

// Container is the status of the container named name, or nil.
func (o *Object) Container(name string) *ContainerStatus {
	for i := range o.Status.ContainerStatuses {
		if o.Status.ContainerStatuses[i].Name == name {
			return &o.Status.ContainerStatuses[i]
		}
	}
	return nil
}

// JoinReason is "reason: message", or whichever of them is set.
func JoinReason(reason, message string) string {
	switch {
	case reason == "":
		return message
	case message == "":
		return reason
	}
	return reason + ": " + message
}

// LabelValue is s made a valid label value: at most 63 of the characters
// a label allows, starting and ending with a letter or digit.
func LabelValue(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			b[i] = '_'
		}
	}
	s = string(b)
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "-_.")
}
