package kubernetes

import (
	"context"
	"net/url"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/kubeapi"
	"github.com/abbench/abbench/internal/reason"
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
func (k *Driver) readOwnImage() {
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
		pr.r.SetImage(cs.ImageID)
	}
	t := cs.State.Terminated
	if cs.State.Running != nil || t != nil && t.StartedAt != nil && t.StartedAt.Unix() > 0 {
		pr.started = true
	}
}

// checkPodImages censors the run for every rank pod that ran another
// image than it should, or whose image the kubelet never reported: the
// ranks would not all have run the system under test. A rank of the
// controller's image is held to the digest the controller's own pod
// runs; a rank of its role's own image to the digest that image is
// pinned by (REPO@sha256:...), or, named by a tag, to the digest the
// role's first rank pod ran. It runs once the watch has ended.
func (k *Driver) checkPodImages() []reason.Reason {
	k.readOwnImage()
	own := k.own.imageID()
	roleFirst := map[string]*podRank{} // a tagged role image's first rank that ran
	var reasons []reason.Reason
	for _, pr := range k.sorted() {
		if !pr.started {
			continue // a pod that never ran is censored for that
		}
		got, role, rank := pr.r.Image(), pr.r.Role, pr.r.Index
		switch {
		case pr.image != "":
			if r := roleImage(pr, roleFirst); r != nil {
				reasons = append(reasons, *r)
			}
		case own == "":
			return append(reasons, reason.New(reason.ImageMismatch, "the controller's own pod %s reports no image digest: the rank pods' images cannot be held to it (kubectl get pod -n %s %s -o jsonpath='{.status.containerStatuses[0].imageID}')",
				k.own.Metadata.Name, k.namespace, k.own.Metadata.Name))
		case got == "":
			reasons = append(reasons, reason.New(reason.ImageMismatch, "%s rank %d: pod %s ran, but its kubelet reported no image digest: it cannot be held to the controller's %s",
				role, rank, pr.where(), own).At("", role, rank))
		case got != own:
			reasons = append(reasons, reason.New(reason.ImageMismatch, "%s rank %d: pod %s ran image %s, but the controller's pod %s ran %s: the image's name resolved to another image there (pin the image by digest, or load the same image on every node)",
				role, rank, pr.where(), got, k.own.Metadata.Name, own).At("", role, rank))
		}
	}
	return reasons
}

// roleImage holds a rank of its role's own image to the digest the image
// is pinned by, or to the one the role's first rank pod ran (first, by
// role): nil when it ran that image.
func roleImage(pr *podRank, first map[string]*podRank) *reason.Reason {
	got, role, rank := pr.r.Image(), pr.r.Role, pr.r.Index
	if got == "" {
		r := reason.New(reason.ImageMismatch, "%s rank %d: pod %s ran, but its kubelet reported no image digest: it cannot be held to the role's image %s",
			role, rank, pr.where(), pr.image).At("", role, rank)
		return &r
	}
	if _, pinned, ok := strings.Cut(pr.image, "@"); ok {
		if !strings.HasSuffix(got, pinned) {
			r := reason.New(reason.ImageMismatch, "%s rank %d: pod %s ran image %s, not the role's image %s it is pinned to",
				role, rank, pr.where(), got, pr.image).At("", role, rank)
			return &r
		}
		return nil
	}
	f, ok := first[role]
	if !ok {
		first[role] = pr
		return nil
	}
	if got != f.r.Image() {
		r := reason.New(reason.ImageMismatch, "%s rank %d: pod %s ran image %s, but rank %d's pod %s ran %s: the role's image %s resolved to two images (pin it by digest, REPO@sha256:...)",
			role, rank, pr.where(), got, f.r.Index, f.where(), f.r.Image(), pr.image).At("", role, rank)
		return &r
	}
	return nil
}

// sorted is every rank followed, in the order they started.
func (k *Driver) sorted() []*podRank {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.order)
}
