package scenarios

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/loadgen"
)

// openaiBase is base with its client an openai role.
var openaiBase = strings.Replace(strings.Replace(base,
	`  - {name: client, client: true, after_ready: true, command: [cli, --out, "{{.Out}}/t.json"]}`,
	`  - {name: client, client: true, after_ready: true, openai: {url: 'http://127.0.0.1:{{.Port "http"}}', model: m}}`, 1),
	"  throughput: {file: t.json, format: vllm}\n", "", 1)

// TestOpenAIRoleDefaults: an openai role streams by default, has its
// client's bounds, and its record is the scenario's throughput record
// unless the scenario names another; it runs abbench load with the
// workload's templates and the client deadline as the run's timeout.
func TestOpenAIRoleDefaults(t *testing.T) {
	s, err := load(t, openaiBase)
	if err != nil {
		t.Fatal(err)
	}
	o := s.OpenAIRole().OpenAI
	if o.Endpoint != "completions" || o.Stream == nil || !*o.Stream || time.Duration(o.RequestTimeout) != loadgen.DefaultRequestTimeout {
		t.Errorf("openai defaults %+v", o)
	}
	if th := s.Evidence.Throughput; th == nil || th.File != OpenAIResult || th.Format != "vllm" {
		t.Errorf("throughput %+v, want the client's record", th)
	}
	args := s.LoadArgs(s.OpenAIRole())
	for _, want := range [][]string{{"--prompts", "{{.Workload.Prompts}}"}, {"--concurrency", "{{.Workload.Concurrency}}"},
		{"--timeout", "10m0s"}, {"--records", "{{.Out}}/" + OpenAISent}, {"--multiset-records", "{{.Out}}/" + OpenAISentMultiset}} {
		if i := slices.Index(args, want[0]); i < 0 || args[i+1] != want[1] {
			t.Errorf("load args %v: want %s %s", args, want[0], want[1])
		}
	}
	if !slices.Contains(args, "--allow-failures") || slices.Contains(args, "--rate") {
		t.Errorf("load args %v: failures are the record's to count; no rate, no schedule flags", args)
	}
	withRate, err := load(t, strings.Replace(openaiBase, "concurrency: 2}", "concurrency: 2, rate: 50, seed: 9}", 1))
	if err != nil {
		t.Fatal(err)
	}
	if withRate.Workload.Burstiness != 1 || !slices.Contains(withRate.LoadArgs(withRate.OpenAIRole()), "{{.Workload.Seed}}") {
		t.Errorf("a rate defaults burstiness to 1 and passes the schedule: %+v", withRate.Workload)
	}
	// The schedule is part of the matched workload.
	if withRate.MatchedDigest() == s.MatchedDigest() {
		t.Error("a rate left the matched digest as it was")
	}
	other, _ := load(t, strings.Replace(openaiBase, "concurrency: 2}", "concurrency: 2, rate: 50, seed: 10}", 1))
	if other.MatchedDigest() == withRate.MatchedDigest() {
		t.Error("another seed left the matched digest as it was")
	}
}

func TestOpenAIRoleRejects(t *testing.T) {
	const role = `openai: {url: 'http://127.0.0.1:{{.Port "http"}}', model: m}`
	cases := []struct{ name, from, to, want string }{
		{"command too", role, role + `, command: [x]`, "both command and openai"},
		{"not the client", "client: true, after_ready: true, openai", "after_ready: true, openai", "set client: true"},
		{"two ranks", "client: true, after_ready", "client: true, ranks: 2, after_ready", "one rank"},
		{"no model", ", model: m}", "}", "needs url"},
		{"endpoint", "model: m}", "model: m, endpoint: embeddings}", `endpoint "embeddings"`},
		{"chat of tokens", "model: m}", "model: m, endpoint: chat}", "endpoint chat sends text messages"},
		{"template", "model: m}", "model: '{{.Nope}}'}", "can't evaluate field Nope"},
		{"timeout", "model: m}", "model: m, request_timeout: -1s}", "request_timeout -1s"},
		{"seed without rate", "concurrency: 2}", "concurrency: 2, seed: 3}", "give rate"},
		{"burstiness zero", "concurrency: 2}", "concurrency: 2, rate: 3, burstiness: -1}", "burstiness -1"},
		{"no prompts", "{prompts: prompts.jsonl, requests: 2, concurrency: 2}", "{requests: 2, concurrency: 2}", "give workload.prompts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(openaiBase, c.from) {
				t.Fatalf("test edits %q, which the base lacks", c.from)
			}
			_, err := load(t, strings.Replace(openaiBase, c.from, c.to, 1))
			var es Errors
			if !errors.As(err, &es) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	// digest: agree needs an activation rule, or the client's own digest.
	if _, err := load(t, openaiBase+"  - {digest: agree}\n"); err != nil {
		t.Errorf("digest: agree with an openai client: %v", err)
	}
	if _, err := load(t, base+"  - {digest: agree}\n"); err == nil || !strings.Contains(err.Error(), "needs evidence.activation") {
		t.Errorf("digest: agree with neither: %v", err)
	}
}

// TestOwnClientMetricsAreWhatItWrites: a scenario whose record is
// abbench's own client's is refused, before anything runs, a latency the
// client never writes (min, max, p99.9: a vLLM record may hold them),
// naming what it writes and the nearest; the same metrics of a record
// another client writes pass, and so does every statistic the client
// writes. Before, validate passed them and the campaign ran to its end.
func TestOwnClientMetricsAreWhatItWrites(t *testing.T) {
	declare := func(yaml, metrics string) string {
		return strings.Replace(yaml, "evidence:\n", "evidence:\n  throughput: {file: openai-result.json, format: vllm, metrics: ["+metrics+"]}\n", 1)
	}
	own := openaiBase
	for metric, want := range map[string]string{
		"min_ttft_ms":   `metric "min_ttft_ms": abbench's own client writes no min of ttft`,
		"p99.9_tpot_ms": `metric "p99.9_tpot_ms": abbench's own client writes no p99.9 of tpot into its record (openai-result.json): it writes each latency's mean, median, std, p50, p90, p95, p99, as STAT_KIND_ms; did you mean p99_tpot_ms?`,
	} {
		_, err := load(t, declare(own, metric))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", metric, err, want)
		}
		s, err := load(t, strings.Replace(base, "format: vllm}", "format: vllm, metrics: ["+metric+"]}", 1))
		if err != nil || s.MetricProblem(metric) != nil {
			t.Errorf("%s of another client's vLLM record: %v", metric, err)
		}
	}
	if _, err := load(t, declare(own, "mean_ttft_ms, median_itl_ms, std_e2el_ms, p50_tpot_ms, p99_ttft_ms, output_throughput")); err != nil {
		t.Errorf("what the client writes: %v", err)
	}
}
