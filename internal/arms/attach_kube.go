package arms

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/abbench/abbench/internal/attachprobe"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// kubectl is the client attached Deployments are read with, on PATH with
// the caller's kubeconfig.
const kubectl = "kubectl"

// attachDeployment resolves a's Deployment of this arm, if it is one, to
// its pods: before the client every pod must be Ready and the rollout
// done, and the first pod's IP is the server's address (a Service's
// ClusterIP need not route, where no kube-proxy runs); after the drain the
// pods must be the same, running the same images. It says, as a reason,
// why the server cannot be held to the arm (nil when it can).
func (c *controller) attachDeployment(ctx context.Context, a scenarios.Attached, when string, pr *attachprobe.Probe) *reason.Reason {
	d := a.Arms[c.arm].Kubernetes
	if d == nil {
		return nil
	}
	pods, err := attachprobe.Deployment(ctx, kubectl, d.Namespace, d.Deployment)
	if err != nil {
		code := reason.RankMissing
		if !errors.Is(err, attachprobe.ErrNotReady) {
			code = reason.LaunchFailed
		}
		r := reason.New(code, "attached server %s %s: %v", a.Name, phrase(when), err).At(c.arm, a.Name, 0)
		return &r
	}
	pr.Pods = pods
	if when == attachprobe.Before {
		if c.attached == nil {
			c.attached = map[string]string{}
		}
		c.attached[a.Name] = fmt.Sprintf("%s://%s", d.Scheme, net.JoinHostPort(pods[0].IP, strconv.Itoa(d.Port)))
		c.podsBefore[a.Name] = pods
		return nil
	}
	if before := c.podsBefore[a.Name]; !attachprobe.Same(before, pods) {
		r := reason.New(reason.ImageMismatch, "attached server %s: deployment %s/%s had pods %v before the client but %v after the drain: the server changed during the run",
			a.Name, d.Namespace, d.Deployment, podNames(before), podNames(pods)).At(c.arm, a.Name, 0)
		return &r
	}
	return nil
}

// podNames are the pods with their images, for a reason.
func podNames(pods []attachprobe.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, fmt.Sprintf("%s %v", p.Name, p.Images))
	}
	return out
}
