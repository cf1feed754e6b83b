package scenarios

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/loadgen"
)

// Ramp is workload.ramp: the load rises linearly from From to its target
// over Over: the rate (requests per second) with a rate, else the
// concurrency (requests in flight).
type Ramp struct {
	From float64  `yaml:"from" json:"from"`
	Over Duration `yaml:"over" json:"over"`
}

// OpenAIWarmup is the file of an openai role's warm-up prompts' records;
// OpenAIDataset the records of one cycle of a duration run's prompts.
const (
	OpenAIWarmup  = "openai-warmup.records"
	OpenAIDataset = "openai-dataset.records"
)

// datasetDigest digests a workload that is not a prompts file: a
// synthetic one, or a conversation dataset (sniffed), as abbench's own
// client sends it. False when the workload is a prompts file, which
// digestPrompts reads.
func (v *validator) datasetDigest() bool {
	w := v.s.Workload
	if w.Synthetic != nil {
		v.syntheticKeys()
		spec := w.Synthetic.WithDefaults()
		if err := spec.Check(); err != nil {
			v.at(p("workload", "synthetic"), "%v", err)
			return true
		}
		if w.Prompts != "" {
			v.at(p("workload", "synthetic"), "workload gives both prompts and synthetic: give one (a dataset file, or the values of a synthetic workload)")
		}
		d, _, err := loadgen.DigestItems(spec.Items(), "")
		if err != nil {
			v.at(p("workload", "synthetic"), "%v", err)
		}
		v.s.PromptsDigest = d
		return true
	}
	if w.Prompts == "" {
		return false
	}
	path := v.s.Path(w.Prompts)
	form, err := digest.SniffFile(path)
	if err != nil || form == digest.FormPrompts {
		if w.MultiTurn && err == nil {
			v.at(p("workload", "multi_turn"), "%s is a prompts file (one prompt a line): multi_turn needs a conversation dataset (ShareGPT JSON or conversation JSON Lines)", path)
		}
		return false // digestPrompts reads it, and names a missing file
	}
	if w.Field != "" || w.Algorithm != "" && w.Algorithm != string(digest.TextOrdered) {
		v.at(p("workload"), "%s is a %s dataset, hashed with %s: field and algorithm apply to prompts files, leave them out", path, form, digest.TextOrdered)
	}
	v.conversations = true
	b, _ := digest.NewBuilder(digest.TextOrdered, false) // a pinned algorithm: no error
	for q, err := range digest.ConversationsFile(path, w.MultiTurn) {
		if err != nil {
			v.at(p("workload", "prompts"), "%v", err)
			return true
		}
		if v.chatOnly == 0 && (len(q.Messages) > 1 || q.Messages[0].Role != digest.RoleUser) {
			v.chatOnly = q.Entry
		}
		b.AddRecord(q.Prompt().Record())
	}
	d, err := b.Sum()
	switch {
	case err != nil:
		v.at(p("workload", "prompts"), "%v", err)
	case d.Count == 0:
		v.at(p("workload", "prompts"), "%s holds no conversation with a user turn: nothing to send", path)
	}
	v.s.PromptsDigest = d
	return true
}

// HasContent says whether the workload declares prompt content to
// digest: a dataset file, or a synthetic workload.
func (w Workload) HasContent() bool { return w.Prompts != "" || w.Synthetic != nil }

// ownOutputLengths says whether the workload gives each request its
// output length: a conversation dataset (its replies) or a synthetic one.
func (v *validator) ownOutputLengths() bool {
	w := v.s.Workload
	if w.Synthetic != nil {
		return w.Synthetic.OutputLen > 0
	}
	form, err := digest.SniffFile(v.s.Path(w.Prompts))
	return w.Prompts != "" && err == nil && form != digest.FormPrompts
}

// clientWorkload checks the keys only abbench's own client sends: a
// duration, warm-up requests and a ramp.
func (v *validator) clientWorkload() {
	w := v.s.Workload
	own := v.s.OpenAIRole() != nil
	if (w.Duration != 0 || w.Warmup != 0 || w.Ramp != nil || w.MultiTurn || w.Synthetic != nil) && !own {
		v.at(p("workload"), "duration, warmup, ramp, multi_turn and synthetic are sent by abbench's own client: give the client role openai:, or give a command client its own flags (and requests: %s for a duration-based one)", FromRecordName)
	}
	if v.conversations && !own {
		for i, c := range v.s.Acceptance {
			if k := c.Kind(); k == "digest" || k == "activation" {
				v.at(p("acceptance", i), "criterion %d (%s): the workload is a conversation dataset, whose digest is of the requests abbench's own client makes of it (docs/digest.md); a command client samples and sends it its own way: give the client openai:, or declare a prompts file of what it sends", i+1, k)
			}
		}
	}
	if w.Duration < 0 || w.Warmup < 0 {
		v.at(p("workload"), "duration %s, warmup %d: neither below 0", w.Duration, w.Warmup)
	}
	if w.Duration > 0 {
		n := int(v.s.PromptsDigest.Count)
		switch {
		case w.Rounds > 1:
			v.at(p("workload", "rounds"), "rounds %d with a duration: a duration run cycles through the prompts until the time is up, leave rounds out", w.Rounds)
		case n > 0 && w.Requests.Count() != n:
			v.at(p("workload", "requests"), "requests %d with a duration: a duration run cycles through every prompt of the workload (its %d), so the cycle is the declared digest; leave requests out", w.Requests.Count(), n)
		case w.Duration >= v.s.Deadlines.Client:
			v.at(p("workload", "duration"), "duration %s: less than deadlines.client (%s), which must leave the last requests time to finish", w.Duration, v.s.Deadlines.Client)
		}
	}
	if r := w.Ramp; r != nil {
		o := loadgen.Options{Concurrency: w.Concurrency, Rate: w.Rate, RampFrom: r.From, RampOver: time.Duration(r.Over)}
		for _, err := range o.CheckRamp() {
			v.at(p("workload", "ramp"), "%v", err)
		}
		if r.Over <= 0 {
			v.at(p("workload", "ramp", "over"), "ramp over %s: the time the ramp takes, above 0", r.Over)
		}
	}
}

// workloadArgs adds to an openai role's abbench load arguments the keys
// of workload_dataset.go, values as the scenario holds them (all in the
// matched digest).
func (s *Scenario) workloadArgs(args []string) []string {
	w := s.Workload
	if w.Synthetic != nil {
		for i := range args {
			if args[i] == "--prompts" {
				args[i+1] = w.Synthetic.WithDefaults().String()
				args[i] = "--synthetic"
			}
		}
	}
	if w.MultiTurn {
		args = append(args, "--multi-turn")
	}
	if w.Duration > 0 {
		args = append(args, "--duration", w.Duration.String(), "--dataset-records", "{{.Out}}/"+OpenAIDataset)
	}
	if w.Warmup > 0 {
		args = append(args, "--warmup", strconv.Itoa(w.Warmup), "--warmup-records", "{{.Out}}/"+OpenAIWarmup)
	}
	if w.Ramp != nil {
		args = append(args, "--ramp-from", strconv.FormatFloat(w.Ramp.From, 'g', -1, 64), "--ramp-over", w.Ramp.Over.String())
	}
	return args
}

// shape says what the client is told beyond its count and concurrency,
// as validate's summary holds it constant: the arrival schedule, the
// synthetic or multi-turn workload, the warm-up and the ramp.
func (w Workload) shape() string {
	var parts []string
	if w.Rate > 0 {
		parts = append(parts, fmt.Sprintf("arrivals at %g/s (burstiness %g, seed %d)", w.Rate, max(w.Burstiness, 1), w.Seed))
	}
	if sy := w.Synthetic; sy != nil {
		parts = append(parts, fmt.Sprintf("synthetic: %d prompts of %d tokens, %d out (seed %d)", sy.Prompts, sy.InputLen, sy.OutputLen, sy.Seed))
	}
	if w.MultiTurn {
		parts = append(parts, "multi-turn")
	}
	if w.Warmup > 0 {
		parts = append(parts, fmt.Sprintf("warm-up %d requests", w.Warmup))
	}
	if r := w.Ramp; r != nil {
		parts = append(parts, fmt.Sprintf("ramp from %g over %s", r.From, r.Over))
	}
	return strings.Join(parts, ", ")
}

// syntheticKeys refuses a synthetic workload that leaves out a length or
// its seed, as --synthetic does: the zero left would be a value nobody
// chose (every run's prompts seed 0's; no max_tokens sent, so the server
// picks each answer's length). A mapping merged in (<<) is not followed:
// its keys are not the file's to count.
func (v *validator) syntheticKeys() {
	keys := mappingKeys(child(child(v.root, "workload"), "synthetic"))
	if len(keys) == 0 || slices.Contains(keys, "<<") {
		return
	}
	var missing []string
	for _, k := range []string{"prompts", "input_len", "output_len", "seed"} {
		if !slices.Contains(keys, k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		v.at(p("workload", "synthetic"), "synthetic: give %s too ({prompts: N, input_len: N, output_len: N, seed: N}; output_len: 0 lets the server choose each answer's length)", strings.Join(missing, " and "))
	}
}
