package kubernetes

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/launcher"
)

var _ launcher.Attacher = (*Launcher)(nil)

// Attach implements launcher.Attacher: allocation is kubernetes-NAMESPACE,
// and the run is spec's while its namespace is there, not being deleted,
// labelled with spec's run, and its Job has not ended. A kubectl that does
// not answer is an error: starting the run again could run it twice.
func (l *Launcher) Attach(spec launcher.Spec, allocation string) (launcher.Run, error) {
	namespace, ok := strings.CutPrefix(allocation, "kubernetes-")
	if !ok || !strings.HasPrefix(namespace, "abbench-") {
		return nil, nil
	}
	ctx := context.Background()
	out, found, err := l.get(ctx, "namespace", namespace, "-o", "json")
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, nil
	}
	var ns struct {
		Metadata struct {
			Labels            map[string]string `json:"labels"`
			DeletionTimestamp *time.Time        `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(out, &ns); err != nil {
		return nil, err
	}
	if ns.Metadata.DeletionTimestamp != nil || ns.Metadata.Labels[labelRun] != labelValue(spec.ID) {
		return nil, nil
	}
	out, found, err = l.get(ctx, "job", jobName, "-n", namespace, "-o", "json")
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, nil
	}
	var job item
	if err := json.Unmarshal(out, &job); err != nil {
		return nil, err
	}
	if c := find(job.Status.Conditions, "Complete"); c != nil && c.Status == "True" || jobFailed(&job) != "" {
		return nil, nil // ended: the run's files say how
	}
	r := &run{l: l, spec: spec, namespace: namespace, started: time.Now(), Ending: launcher.NewEnding()}
	go r.watch()
	return r, nil
}
