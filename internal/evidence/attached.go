package evidence

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/abbench/abbench/internal/attachprobe"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// AttachedProof is what an attached server's own answer said of the arm
// before the client: the URL asked and the values its probe read there,
// read again from the answer the run kept.
type AttachedProof struct {
	Name   string            `json:"name"`
	URL    string            `json:"url"`
	File   string            `json:"file"`
	Values map[string]string `json:"values"`
	// Pods are an attached Deployment's pods, as their kubelets reported
	// them before the client: compare holds an arm's runs to one set of
	// image digests.
	Pods []attachprobe.Pod `json:"pods,omitempty"`
}

// attached holds every attached server of a run that succeeded to its
// probe: the answer kept before the client must show, under the probe's
// pattern, the arm's value of each key it names. A run without that
// answer, or whose answer shows another arm's values or none, is censored
// arm-mode-mismatch: nothing else proves which arm the server ran. A run
// that failed already has its reason from the controller; what it kept
// is carried all the same.
func (c *collector) attached() {
	if len(c.s.Attach) == 0 {
		return
	}
	probes, err := c.readProbes()
	if err != nil {
		if c.st.State == rundir.StateSucceeded {
			c.e.reason(reason.New(reason.ArmModeMismatch, "the run has attached servers, but %v", err))
		}
		return
	}
	for _, a := range c.s.Attach {
		proof, err := c.attachedProof(a, probes)
		if err != nil {
			if c.st.State == rundir.StateSucceeded {
				c.e.reason(reason.New(reason.ArmModeMismatch, "attached server %s: %v", a.Name, err).At(c.e.Arm, a.Name, 0))
			}
			continue
		}
		c.e.Attached = append(c.e.Attached, proof)
	}
}

// readProbes reads the run's record of its probes.
func (c *collector) readProbes() ([]attachprobe.Probe, error) {
	rel, data, err := c.readLocal(attachprobe.RecordFile)
	if err != nil {
		return nil, fmt.Errorf("no probe of them was recorded: %w", err)
	}
	c.input(rel)
	var rec attachprobe.Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s does not parse: %v", rel, err)
	}
	if rec.Schema != attachprobe.Schema {
		return nil, fmt.Errorf("%s is of schema %q, not %s that this abbench reads", rel, rec.Schema, attachprobe.Schema)
	}
	return rec.Probes, nil
}

// attachedProof reads a's answer before the client again and holds it to
// the arm.
func (c *collector) attachedProof(a scenarios.Attached, probes []attachprobe.Probe) (AttachedProof, error) {
	for _, p := range probes {
		if p.Name != a.Name || p.When != attachprobe.Before {
			continue
		}
		if a.Arms[c.e.Arm].Kubernetes != nil && len(p.Pods) == 0 {
			return AttachedProof{}, fmt.Errorf("is a Deployment, but the run recorded none of its pods: nothing says what it ran")
		}
		if p.File == "" {
			return AttachedProof{}, fmt.Errorf("%s kept no answer before the client (%s)", p.URL, p.Error)
		}
		rel, body, err := c.readLocal(p.File)
		if err != nil {
			return AttachedProof{}, err
		}
		c.input(rel)
		re, err := regexp.Compile(a.Probe.Pattern)
		if err != nil {
			return AttachedProof{}, err
		}
		want := map[string]string{}
		for _, k := range scenarios.ProbeKeys(re) {
			want[k] = c.s.Arms[c.e.Arm].Env[k]
		}
		got, err := attachprobe.Check(body, re, want)
		if err != nil {
			return AttachedProof{}, fmt.Errorf("%s answered before the client, in %s: %w", p.URL, rel, err)
		}
		return AttachedProof{Name: a.Name, URL: p.URL, File: rel, Values: got, Pods: p.Pods}, nil
	}
	return AttachedProof{}, fmt.Errorf("it was not probed before the client")
}
