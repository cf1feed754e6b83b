package scenarios

import (
	"strconv"
	"time"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/loadgen"
)

// OpenAIClient is a role that runs abbench's own load client (abbench
// load) against an OpenAI-compatible server, in place of a command. It
// sends the workload as declared under workload: and writes, in the run
// directory, the files named below: a vLLM-shaped record (the default
// evidence.throughput) and the digest records of the prompts it sent,
// which the digest criterion compares with the declared prompts and the
// server's activations.
type OpenAIClient struct {
	// URL is the server's base URL, a template (http://127.0.0.1:{{.Port "http"}}).
	URL string `yaml:"url" json:"url"`
	// Model is every request's model field, a template.
	Model string `yaml:"model" json:"model"`
	// Endpoint is completions (default) or chat.
	Endpoint string `yaml:"endpoint" json:"endpoint"`
	// Stream asks for streamed responses (default true): TTFT and ITLs.
	Stream *bool `yaml:"stream" json:"stream"`
	// MaxTokens is every request's max_tokens (0: not sent); IgnoreEOS
	// asks the server to generate all of them, so output lengths match.
	MaxTokens int  `yaml:"max_tokens" json:"max_tokens"`
	IgnoreEOS bool `yaml:"ignore_eos" json:"ignore_eos"`
	// ConnectTimeout and RequestTimeout bound a connection and one
	// request; a request past its deadline is a failed one.
	ConnectTimeout Duration `yaml:"connect_timeout" json:"connect_timeout"`
	RequestTimeout Duration `yaml:"request_timeout" json:"request_timeout"`
}

// The files an openai role writes in the run directory.
const (
	OpenAIResult       = "openai-result.json"           // vLLM's result shape (format vllm)
	OpenAIPerRequest   = "openai-requests.jsonl"        // one line per request
	OpenAISent         = "openai-sent.records"          // the prompts sent, in order of sending
	OpenAISentMultiset = "openai-sent-multiset.records" // the same as a multiset (token prompts)
)

// OpenAIRole is the scenario's openai client role, or nil.
func (s *Scenario) OpenAIRole() *Role {
	for i := range s.Roles {
		if s.Roles[i].OpenAI != nil {
			return &s.Roles[i]
		}
	}
	return nil
}

// defaults fills what an openai role leaves out.
func (o *OpenAIClient) defaults() {
	if o.Endpoint == "" {
		o.Endpoint = string(loadgen.Completions)
	}
	if o.Stream == nil {
		stream := true
		o.Stream = &stream
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = Duration(loadgen.DefaultConnectTimeout)
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = Duration(loadgen.DefaultRequestTimeout)
	}
}

// LoadArgs is the abbench load command line the role runs, after the
// abbench executable: templates, expanded as a command's are. The run's
// timeout is the client deadline; failed requests are the record's to
// count (the evidence censors them), not an exit status.
func (s *Scenario) LoadArgs(r *Role) []string {
	o, w := r.OpenAI, s.Workload
	args := []string{"load", "--url", o.URL, "--model", o.Model, "--endpoint", o.Endpoint,
		"--stream=" + strconv.FormatBool(o.Stream != nil && *o.Stream),
		"--prompts", "{{.Workload.Prompts}}", "--requests", "{{.Workload.Requests}}",
		"--rounds", "{{.Workload.Rounds}}", "--concurrency", "{{.Workload.Concurrency}}",
		"--max-tokens", strconv.Itoa(o.MaxTokens), "--ignore-eos=" + strconv.FormatBool(o.IgnoreEOS),
		"--connect-timeout", o.ConnectTimeout.String(), "--request-timeout", o.RequestTimeout.String(),
		"--timeout", s.Deadlines.Client.String(),
		"--out", "{{.Out}}/" + OpenAIResult, "--per-request", "{{.Out}}/" + OpenAIPerRequest,
		"--records", "{{.Out}}/" + OpenAISent, "--allow-failures"}
	if w.Field != "" {
		args = append(args, "--field", w.Field)
	}
	if w.Rate > 0 {
		args = append(args, "--rate", "{{.Workload.Rate}}", "--burstiness", "{{.Workload.Burstiness}}", "--seed", "{{.Workload.Seed}}")
	}
	if s.PromptsDigest.Algorithm.Unit() == digest.UnitTokens {
		args = append(args, "--multiset-records", "{{.Out}}/"+OpenAISentMultiset)
	}
	return s.workloadArgs(args)
}

// openAI checks an openai role at rp.
func (v *validator) openAI(rp []any, r *Role) {
	o, s := r.OpenAI, v.s
	op := append(rp, "openai")
	switch {
	case len(r.Command) > 0:
		v.at(append(rp, "command"), "role %q gives both command and openai: openai runs abbench's own client in place of a command, give one of them", r.Name)
	case !r.Client:
		v.at(op, "role %q: an openai role is the benchmark client: set client: true", r.Name)
	case r.Ranks != 1:
		v.at(append(rp, "ranks"), "role %q: an openai client is one rank (it holds workload.concurrency requests in flight): ranks %d", r.Name, r.Ranks)
	case r.ArmEnv:
		v.at(append(rp, "arm_env"), "role %q: the client never takes the arm's environment (only the system under test does)", r.Name)
	}
	if o.URL == "" || o.Model == "" {
		v.at(op, "role %q: openai needs url (the server's base URL, such as http://127.0.0.1:{{.Port \"http\"}}) and model", r.Name)
	}
	v.template(append(op, "url"), o.URL)
	v.template(append(op, "model"), o.Model)
	if e := loadgen.Endpoint(o.Endpoint); e != loadgen.Completions && e != loadgen.Chat {
		v.at(append(op, "endpoint"), "endpoint %q: choose %s or %s", o.Endpoint, loadgen.Completions, loadgen.Chat)
	} else if e == loadgen.Chat && s.PromptsDigest.Algorithm.Unit() == digest.UnitTokens {
		v.at(append(op, "endpoint"), "endpoint chat sends text messages, but the prompts file holds token IDs: use completions, or text prompts")
	}
	if s.Workload.Prompts == "" && s.Workload.Synthetic == nil || s.Workload.Requests == FromRecord {
		v.at(op, "role %q: the openai client sends the workload's prompts: give workload.prompts (or workload.synthetic), and requests as a count", r.Name)
	}
	if o.MaxTokens > 0 && v.ownOutputLengths() {
		v.at(append(op, "max_tokens"), "max_tokens %d, but the workload gives each request its own output length (a conversation dataset's replies, synthetic.output_len): leave max_tokens out", o.MaxTokens)
	}
	if e := loadgen.Endpoint(o.Endpoint); e == loadgen.Completions && s.Workload.MultiTurn {
		v.at(append(op, "endpoint"), "endpoint completions sends one prompt, but workload.multi_turn sends each turn with its history as messages: use endpoint chat")
	} else if e == loadgen.Completions && v.chatOnly > 0 {
		v.at(append(op, "endpoint"), "endpoint completions sends one prompt, but the request of conversation %d of %s carries several messages (a system prompt, or turns before it): use endpoint chat", v.chatOnly, s.Workload.Prompts)
	}
	if o.MaxTokens < 0 {
		v.at(append(op, "max_tokens"), "max_tokens %d: at least 0 (0: not sent)", o.MaxTokens)
	}
	for _, d := range []struct {
		key string
		val Duration
	}{{"connect_timeout", o.ConnectTimeout}, {"request_timeout", o.RequestTimeout}} {
		if d.val <= 0 || time.Duration(d.val) > MaxDeadline {
			v.at(append(op, d.key), "%s %s: above 0 and at most %s", d.key, d.val, MaxDeadline)
		}
	}
}

// schedule checks the workload's arrival schedule.
func (v *validator) schedule() {
	w := v.s.Workload
	switch {
	case w.Rate < 0 || w.Rate != w.Rate:
		v.at(p("workload", "rate"), "rate %v: requests per second above 0, or 0 (left out) for a closed loop", w.Rate)
	case w.Rate == 0 && (w.Burstiness != 0 || w.Seed != 0):
		v.at(p("workload"), "burstiness and seed shape a Poisson schedule: give rate (requests per second) too")
	case w.Rate > 0 && !(w.Burstiness > 0):
		v.at(p("workload", "burstiness"), "burstiness %v: above 0 (1 is a Poisson process)", w.Burstiness)
	}
	if w.Rate > 1e9 || w.Burstiness > 1e9 {
		v.at(p("workload"), "rate %g, burstiness %g: implausibly large", w.Rate, w.Burstiness)
	}
}
