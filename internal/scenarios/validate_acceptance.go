package scenarios

import (
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/records"
)

// criterionWords are the one word each kind of criterion that takes a
// word allows.
var criterionWords = map[string]string{"requests": "all", "throughput": "valid", "record": "valid", "mode": "all-ranks", "digest": "agree"}

// word is the word a criterion of kind gives.
func (c Criterion) word(kind string) string {
	switch kind {
	case "requests":
		return c.Requests
	case "throughput":
		return c.Throughput
	case "record":
		return c.Record
	case "mode":
		return c.Mode
	case "digest":
		return c.Digest
	}
	return ""
}

func (v *validator) acceptance() {
	for i, c := range v.s.Acceptance {
		v.criterion(p("acceptance", i), i+1, c)
	}
}

// criterion checks the nth criterion: its kind, its arms, what it needs
// of the workload, its word or fields, and the evidence it reads.
func (v *validator) criterion(cp []any, n int, c Criterion) {
	s := v.s
	kind := c.Kind()
	if kind == "" {
		v.at(cp, "criterion %d: set exactly one of requests, throughput, record, mode, digest, activation, counter, config, clean_shutdown, output_tokens, server_metric", n)
		return
	}
	for j, a := range c.Arms {
		if _, ok := s.Arms[a]; !ok {
			v.at(append(cp, "arms", j), "criterion %d names arm %q, which does not exist (arms: %s)", n, a, strings.Join(s.ArmOrder, ", "))
		}
	}
	if (kind == "digest" || kind == "activation") && !s.Workload.HasContent() {
		v.at(cp, "criterion %d (%s) needs workload.prompts: without a prompts file there is no prompt content to digest", n, kind)
	}
	if allowed, ok := criterionWords[kind]; ok && c.word(kind) != allowed {
		v.at(append(cp, kind), "%s: %q is not allowed (allowed: %s)", kind, c.word(kind), allowed)
	}
	v.criterionFields(cp, n, kind, c)
	if t := s.Evidence.Throughput; kind == "record" && t != nil && slices.Contains(records.Formats(), t.Format) && !records.SaysValid(t.Format) {
		v.at(append(cp, kind), "{record: valid}: the %s tool never says a run is valid, so every run would be censored; require {throughput: valid} instead (it censors what the tool says is not valid), or read a format whose tool gives a verdict (%s)",
			t.Format, strings.Join(records.ValidVerdictFormats(), ", "))
	}
	if need := v.missingEvidence(kind); need != "" {
		v.at(cp, "criterion %d needs %s", n, need)
	}
}

// criterionFields checks the fields of the criteria that name something:
// an expression, a counter, a config fact.
func (v *validator) criterionFields(cp []any, n int, kind string, c Criterion) {
	s := v.s
	switch kind {
	case "activation":
		if _, err := s.Workload.EvalExpr(c.Activation); err != nil {
			v.at(append(cp, "activation"), "activation: %v", err)
		}
	case "counter":
		if _, ok := s.Evidence.Counters[c.Counter]; !ok {
			v.at(append(cp, "counter"), "counter %q is not defined under evidence.counters", c.Counter)
		}
		if c.Equals == "" {
			v.at(cp, "counter criterion %d needs equals (an integer or an expression such as requests)", n)
		} else if _, err := s.Workload.EvalExpr(c.Equals); err != nil {
			v.at(append(cp, "equals"), "equals: %v", err)
		}
		if c.Role != "" && s.Role(c.Role) == nil {
			v.at(append(cp, "role"), "role %q does not exist", c.Role)
		}
	case "server_metric":
		v.serverMetric(cp, n, c)
	case "config":
		found := slices.ContainsFunc(s.Evidence.Configs, func(f ConfigFact) bool { return f.Name == c.Config })
		if !found {
			v.at(append(cp, "config"), "config fact %q is not defined under evidence.configs", c.Config)
		}
	}
}

// missingEvidence names the evidence a criterion of kind reads that the
// scenario does not declare, or is "".
func (v *validator) missingEvidence(kind string) string {
	e := v.s.Evidence
	switch {
	case (kind == "throughput" || kind == "record") && e.Throughput == nil:
		return "evidence.throughput"
	case kind == "mode" && len(e.Mode) == 0:
		return "evidence.mode"
	case kind == "digest" && e.Activation == nil && v.s.OpenAIRole() == nil:
		return "evidence.activation (or an openai client, whose sent prompts it then checks)"
	case kind == "activation" && e.Activation == nil:
		return "evidence.activation"
	}
	return ""
}
