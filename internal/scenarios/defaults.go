package scenarios

import (
	"cmp"
	"maps"
	"slices"

	"github.com/abbench/abbench/internal/records"
)

// DefaultMetric is the headline metric of a throughput record whose
// scenario names none (evidence.throughput.metric) and whose format has
// none of its own (records.DefaultMetric): the one place it is spelled (a
// test holds every other package to it).
const DefaultMetric = "output_throughput"

// DefaultNoiseThreshold is the noise_threshold of a scenario that states
// none: how much, in percent, one allocation's runs are expected to differ
// from another's. It is recorded with the evidence; no verdict depends on
// it (the smallest effect of interest is decide.DefaultRule's).
const DefaultNoiseThreshold = 3

// ApplyDefaults fills in what a scenario leaves out, so that validation,
// and everything after it, reads one completed scenario. It reads no
// file: the request count of a workload with prompts is PromptsDigest's,
// read before. Deadlines the file sets to zero are its own error, which
// validation reads from the file.
func ApplyDefaults(s *Scenario) {
	if len(s.ArmOrder) != len(s.Arms) {
		s.ArmOrder = slices.Sorted(maps.Keys(s.Arms))
	}
	w := &s.Workload
	if w.Algorithm == "" {
		w.Algorithm = string(s.PromptsDigest.Algorithm)
	}
	if w.Requests == 0 {
		w.Requests = RequestCount(s.PromptsDigest.Count)
	}
	if w.Concurrency == 0 {
		w.Concurrency = 1
	}
	if w.Rounds == 0 {
		w.Rounds = 1
	}
	if w.Rate > 0 && w.Burstiness == 0 {
		w.Burstiness = 1
	}
	s.defaultAttach()
	for i := range s.Roles {
		r := &s.Roles[i]
		if r.Ranks == 0 {
			r.Ranks = 1
		}
		if r.Log == "" {
			r.Log = r.defaultLog()
		}
		if r.OpenAI != nil {
			r.OpenAI.defaults()
			if s.Evidence.Throughput == nil {
				s.Evidence.Throughput = &Throughput{File: OpenAIResult, Format: "vllm"}
			}
		}
		if r.Container != nil && r.Container.Runtime == "" {
			r.Container.Runtime = RuntimeDocker
		}
	}
	if t := s.Evidence.Throughput; t != nil {
		t.Metric = t.Headline()
	}
	for _, d := range s.Deadlines.fields() {
		if *d.val == 0 {
			*d.val = d.def
		}
	}
	applyHookDefaults(s)
	s.Telemetry.leaveDefaultsOut()
	applyMetricDefaults(s)
	if s.NoiseThreshold == 0 {
		s.NoiseThreshold = DefaultNoiseThreshold
	}
}

// Headline is the record's headline metric, compared by default: the
// scenario's metric, else the format's own (records.DefaultMetric: wrk's
// requests_per_second), else DefaultMetric.
func (t *Throughput) Headline() string {
	return cmp.Or(t.Metric, records.DefaultMetric(t.Format), DefaultMetric)
}

// defaultLog is the log of a role that names none: ROLE-RANK.log.
func (r *Role) defaultLog() string { return r.Name + "-{{.Rank}}.log" }

// deadline is one of Deadlines, by its key, with its default.
type deadline struct {
	name string
	val  *Duration
	def  Duration
}

func (d *Deadlines) fields() []deadline {
	return []deadline{
		{"ready", &d.Ready, DefaultDeadlines.Ready},
		{"client", &d.Client, DefaultDeadlines.Client},
		{"drain", &d.Drain, DefaultDeadlines.Drain},
		{"teardown", &d.Teardown, DefaultDeadlines.Teardown},
		{"kill_grace", &d.KillGrace, DefaultDeadlines.KillGrace},
	}
}
