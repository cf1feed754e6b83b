package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// promClientPython is the Python whose prometheus_client (Debian's
// python3-prometheus-client, installed by .ci/run) holds the Prometheus
// project's own OpenMetrics parser: Debian's interpreter, not whichever
// python3 comes first on PATH.
const promClientPython = "/usr/bin/python3"

// promParse reads an exposition with prometheus_client's strict
// OpenMetrics parser and prints each sample's name, labels and value.
const promParse = `
import json, sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
out = []
for fam in text_string_to_metric_families(sys.stdin.read()):
    for s in fam.samples:
        out.append({"family": fam.name, "type": fam.type, "unit": fam.unit, "name": s.name, "labels": list(s.labels.items()), "value": s.value})
json.dump(out, sys.stdout)
`

// promSample is one sample as prometheus_client parsed it.
type promSample struct {
	Family, Type, Unit, Name string
	Labels                   [][2]string // in the exposition's order
	Value                    float64
}

// parseWithPrometheusClient parses an exposition with the Prometheus
// project's OpenMetrics parser; the test is skipped where it is not
// installed, except in CI, which installs it.
func parseWithPrometheusClient(t *testing.T, exposition []byte) []promSample {
	t.Helper()
	if err := exec.Command(promClientPython, "-c", "import prometheus_client.openmetrics.parser").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("prometheus_client (python3-prometheus-client) is missing; .ci/run installs it")
		}
		t.Skip("prometheus_client not installed (Debian python3-prometheus-client)")
	}
	var samples []promSample
	consumerReads(t, "prometheus_client's OpenMetrics parser", exec.Command(promClientPython, "-c", promParse), exposition, &samples)
	return samples
}

// checkOpenMetricsWithPrometheus holds the exposition to the Prometheus
// project's parser: it reads every sample the test's own reader reads,
// with the same value, and each family's declared type.
func checkOpenMetricsWithPrometheus(t *testing.T, got []byte) {
	ours, err := parseOpenMetrics(got)
	if err != nil {
		t.Fatal(err)
	}
	theirs := parseWithPrometheusClient(t, got)
	if len(theirs) != len(ours) {
		t.Fatalf("prometheus_client read %d samples, the test's reader %d:\n%v\n%v", len(theirs), len(ours), theirs, ours)
	}
	for _, s := range theirs {
		key := s.Name + promLabels(s.Labels)
		if v, ok := ours[key]; !ok || v != s.Value {
			t.Errorf("prometheus_client's %s = %v; the test's reader: %v (present %v)", key, s.Value, v, ok)
		}
		if s.Type != "gauge" && s.Type != "info" {
			t.Errorf("family %s of type %q", s.Family, s.Type)
		}
	}
}

// promLabels writes a label set as OpenMetrics does, in its order, each
// value escaped (backslash, double quote, line feed): the key the test's
// own reader keeps a sample by.
func promLabels(labels [][2]string) string {
	if len(labels) == 0 {
		return ""
	}
	esc := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = l[0] + `="` + esc.Replace(l[1]) + `"`
	}
	return "{" + strings.Join(parts, ",") + "}"
}
