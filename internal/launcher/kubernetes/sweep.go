package kubernetes

import (
	"context"
	"encoding/json"
	"time"
)

// sweep deletes the namespaces of runs whose expiry has passed: their
// abbench was killed before its teardown, the API server ended their Job
// at its activeDeadlineSeconds, and nothing else would remove them. Best
// effort: a namespace it misses the next Start removes.
func (l *Launcher) sweep(ctx context.Context) {
	out, err := l.kubectl(ctx, nil, "get", "namespaces", "-l", labelLauncher+"=kubernetes", "-o", "json")
	if err != nil {
		return
	}
	var nss struct {
		Items []namespaceObject `json:"items"`
	}
	if json.Unmarshal(out, &nss) != nil {
		return
	}
	for _, ns := range expired(nss.Items, time.Now()) {
		_, _ = l.kubectl(ctx, nil, "delete", "namespace", ns, "--ignore-not-found", "--wait=false")
	}
}

type namespaceObject struct {
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
}

// expired names the namespaces whose expiry annotation is before now; one
// without a readable expiry is not abbench's to judge, and stays.
func expired(nss []namespaceObject, now time.Time) []string {
	var names []string
	for _, ns := range nss {
		at, err := time.Parse(time.RFC3339, ns.Metadata.Annotations[annotationExpiry])
		if err == nil && at.Before(now) {
			names = append(names, ns.Metadata.Name)
		}
	}
	return names
}
