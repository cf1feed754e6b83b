package arms

import (
	"context"
	"net/url"

	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/reason"
)

// Rank pods take the controller's image by its name (a tag), which a
// node may resolve to another image than the controller's node did: each
// rank pod's image is held, by the digest its kubelet reports, to the one
// the controller's own container runs.

// imageID is the image the controller's own container runs by digest,
// "" when the API server reports none.
func (o *ownPod) imageID() string {
	if len(o.Spec.Containers) == 0 {
		return ""
	}
	for _, cs := range o.Status.ContainerStatuses {
		if cs.Name == o.Spec.Containers[0].Name {
			return cs.ImageID
		}
	}
	return ""
}

// readOwnImage reads the controller's own pod again while its status
// names no image digest: the kubelet posts a container's status after
// starting it, so the read at the controller's start may be too early.
func (k *kubeRanks) readOwnImage() {
	if k.own.imageID() != "" || k.api == nil {
		return
	}
	var again ownPod
	if err := k.api.Get(context.Background(), k.podsPath()+"/"+url.PathEscape(k.own.Metadata.Name), &again); err == nil {
		k.own.Status = again.Status
	}
}

// seeContainer records what the kubelet reports of the rank's container:
// the image by digest, and whether it started.
func (pr *podRank) seeContainer(cs *kubeapi.ContainerStatus) {
	if cs == nil {
		return
	}
	if cs.ImageID != "" {
		id := cs.ImageID
		pr.image.Store(&id)
	}
	t := cs.State.Terminated
	if cs.State.Running != nil || t != nil && t.StartedAt != nil && t.StartedAt.Unix() > 0 {
		pr.started = true
	}
}

// imageID is the image the rank's pod ran by digest, "" while unknown.
func (pr *podRank) imageID() string {
	if id := pr.image.Load(); id != nil {
		return *id
	}
	return ""
}

// podImage is the rank's pod's image by digest, for its status; "" for a
// rank that is no pod.
func (p *rankProc) podImage() string {
	if p.pod == nil {
		return ""
	}
	return p.pod.imageID()
}

// checkPodImages censors the run for every rank pod that ran another
// image than the controller's own pod, or whose image the kubelet never
// reported: the ranks would not all have run the system under test. It
// runs once the watch has ended.
func (c *controller) checkPodImages() {
	c.kube.readOwnImage()
	own := c.kube.own.imageID()
	for _, p := range c.procs {
		pr := p.pod
		if pr == nil || !pr.started {
			continue // a pod that never ran is censored for that
		}
		got := pr.imageID()
		switch {
		case own == "":
			c.fail(reason.New(reason.ImageMismatch, "the controller's own pod %s reports no image digest: the rank pods' images cannot be held to it (kubectl get pod -n %s %s -o jsonpath='{.status.containerStatuses[0].imageID}')",
				c.kube.own.Metadata.Name, c.kube.namespace, c.kube.own.Metadata.Name))
			return
		case got == "":
			c.fail(reason.New(reason.ImageMismatch, "%s rank %d: pod %s ran, but its kubelet reported no image digest: it cannot be held to the controller's %s",
				p.role, p.rank, pr.where(), own).At(c.arm, p.role, p.rank))
		case got != own:
			c.fail(reason.New(reason.ImageMismatch, "%s rank %d: pod %s ran image %s, but the controller's pod %s ran %s: the image's name resolved to another image there (pin the image by digest, or load the same image on every node)",
				p.role, p.rank, pr.where(), got, c.kube.own.Metadata.Name, own).At(c.arm, p.role, p.rank))
		}
	}
}
