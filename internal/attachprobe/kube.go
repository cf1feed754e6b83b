package attachprobe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Pod is what an attached Deployment's pod is, as its kubelet reports it:
// where it runs, its address, and the image digest of each container.
type Pod struct {
	Name  string `json:"name"`
	Node  string `json:"node"`
	IP    string `json:"ip"`
	Ready bool   `json:"ready"`
	// Images are the containers' status.containerStatuses[].imageID, in
	// container order.
	Images []string `json:"images"`
}

// KubectlTimeout bounds each kubectl call.
const KubectlTimeout = 30 * time.Second

// ErrNotReady is a Deployment with no pod, a pod that is not Ready, or a
// rollout under way: its address and its image are not one thing yet.
var ErrNotReady = errors.New("the deployment is not ready")

// Deployment lists the pods of the Deployment name in namespace, by its
// own selector, through kubectl (the caller's kubeconfig). Every pod must
// be Ready, with an IP and an image digest for every container, and the
// rollout done (every replica updated and available); else ErrNotReady
// says which. Pods come sorted by name.
func Deployment(ctx context.Context, kubectl, namespace, name string) ([]Pod, error) {
	var d struct {
		Spec struct {
			Replicas *int `json:"replicas"`
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
		} `json:"spec"`
		Status struct {
			Replicas          int `json:"replicas"`
			UpdatedReplicas   int `json:"updatedReplicas"`
			ReadyReplicas     int `json:"readyReplicas"`
			AvailableReplicas int `json:"availableReplicas"`
		} `json:"status"`
	}
	if err := kubectlJSON(ctx, kubectl, &d, "get", "deployment", name, "-n", namespace, "-o", "json"); err != nil {
		return nil, err
	}
	want := 1
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	st := d.Status
	if want < 1 || st.Replicas != want || st.UpdatedReplicas != want || st.ReadyReplicas != want || st.AvailableReplicas != want {
		return nil, fmt.Errorf("%w: deployment %s/%s wants %d replica(s) and has %d, %d updated, %d ready, %d available (kubectl rollout status -n %s deployment/%s)",
			ErrNotReady, namespace, name, want, st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas, namespace, name)
	}
	var sel []string
	for k, v := range d.Spec.Selector.MatchLabels {
		sel = append(sel, k+"="+v)
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("%w: deployment %s/%s has no matchLabels selector to find its pods by", ErrNotReady, namespace, name)
	}
	slices.Sort(sel)
	return selectedPods(ctx, kubectl, namespace, name, strings.Join(sel, ","), want)
}

// podList is what kubectl get pods -o json says, as far as it is read.
type podList struct {
	Items []struct {
		Metadata struct {
			Name              string  `json:"name"`
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
		Spec struct {
			NodeName string `json:"nodeName"`
		} `json:"spec"`
		Status struct {
			PodIP      string `json:"podIP"`
			Conditions []struct {
				Type   string `json:"type"`
				Status string `json:"status"`
			} `json:"conditions"`
			ContainerStatuses []struct {
				ImageID string `json:"imageID"`
			} `json:"containerStatuses"`
		} `json:"status"`
	} `json:"items"`
}

func selectedPods(ctx context.Context, kubectl, namespace, name, selector string, want int) ([]Pod, error) {
	var list podList
	if err := kubectlJSON(ctx, kubectl, &list, "get", "pods", "-n", namespace, "-l", selector, "-o", "json"); err != nil {
		return nil, err
	}
	var pods []Pod
	for _, it := range list.Items {
		if it.Metadata.DeletionTimestamp != nil {
			// Leaving (a rollout just done, kubectl set env): never the
			// address, and the rollout's own counts stand for the rest.
			continue
		}
		p := Pod{Name: it.Metadata.Name, Node: it.Spec.NodeName, IP: it.Status.PodIP}
		for _, c := range it.Status.Conditions {
			p.Ready = p.Ready || (c.Type == "Ready" && c.Status == "True")
		}
		for _, c := range it.Status.ContainerStatuses {
			p.Images = append(p.Images, c.ImageID)
		}
		if !p.Ready || p.IP == "" || len(p.Images) == 0 || slices.Contains(p.Images, "") {
			return nil, fmt.Errorf("%w: pod %s of deployment %s/%s is not Ready with an address and an image digest for every container (ready %v, ip %q, images %v)",
				ErrNotReady, p.Name, namespace, name, p.Ready, p.IP, p.Images)
		}
		pods = append(pods, p)
	}
	if len(pods) != want {
		return nil, fmt.Errorf("%w: deployment %s/%s wants %d pod(s), its selector %s finds %d", ErrNotReady, namespace, name, want, selector, len(pods))
	}
	slices.SortFunc(pods, func(a, b Pod) int { return strings.Compare(a.Name, b.Name) })
	return pods, nil
}

// kubectlJSON runs kubectl args within KubectlTimeout and decodes its
// JSON output into v; an error quotes kubectl's own last line.
func kubectlJSON(ctx context.Context, kubectl string, v any, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, KubectlTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, kubectl, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		last := strings.TrimSpace(errOut.String())
		if i := strings.LastIndexByte(last, '\n'); i >= 0 {
			last = last[i+1:]
		}
		if len(last) > 500 {
			last = last[:500]
		}
		return fmt.Errorf("%s %s: %v: %s", kubectl, strings.Join(args, " "), err, last)
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		return fmt.Errorf("%s %s printed no JSON it could read: %v", kubectl, strings.Join(args, " "), err)
	}
	return nil
}

// ImagesOf are the distinct image digests pods run, sorted: what two runs
// of one arm must share (their pods may be others, their images not).
func ImagesOf(pods []Pod) []string {
	var out []string
	for _, p := range pods {
		for _, im := range p.Images {
			if !slices.Contains(out, im) {
				out = append(out, im)
			}
		}
	}
	slices.Sort(out)
	return out
}

// Same says whether two listings are the same pods running the same images.
func Same(a, b []Pod) bool {
	return slices.EqualFunc(a, b, func(x, y Pod) bool { return x.Name == y.Name && slices.Equal(x.Images, y.Images) })
}
