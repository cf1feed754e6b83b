package scenarios

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/loadgen"
)

// loadWith loads yaml beside a ShareGPT dataset (sharegpt.json) and the
// prompts file of load.
func loadWith(t *testing.T, yaml string) (*Scenario, error) {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "prompts.jsonl", "[1,2]\n[3]\n")
	write(t, dir, "sharegpt.json", `[{"id": "a", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello there"}, {"from": "human", "value": "bye"}]}]`)
	return Load(write(t, dir, "s.yaml", yaml))
}

const syntheticWorkload = "{synthetic: {prompts: 4, input_len: 8, output_len: 3, seed: 7}, concurrency: 2}"

// TestSyntheticWorkload: a synthetic workload is declared by its values:
// its digest is what the client sends, the client is given the spec, and
// the seed and both lengths are in the matched digest.
func TestSyntheticWorkload(t *testing.T) {
	yaml := strings.Replace(openaiBase, "{prompts: prompts.jsonl, requests: 2, concurrency: 2}", syntheticWorkload, 1)
	s, err := loadWith(t, yaml)
	if err != nil {
		t.Fatal(err)
	}
	spec := loadgen.Synthetic{Prompts: 4, InputLen: 8, OutputLen: 3, Seed: 7}.WithDefaults()
	want, _, _ := loadgen.DigestItems(spec.Items(), "")
	if s.PromptsDigest != want || s.Workload.Requests != 4 {
		t.Errorf("declared %s (requests %d), the spec sends %s", s.PromptsDigest, s.Workload.Requests, want)
	}
	args := s.LoadArgs(s.OpenAIRole())
	if i := slices.Index(args, "--synthetic"); i < 0 || args[i+1] != spec.String() || slices.Contains(args, "--prompts") {
		t.Errorf("load args %v: want --synthetic %s", args, spec)
	}
	for _, other := range []string{"seed: 8", "input_len: 9", "output_len: 4"} {
		key, _, _ := strings.Cut(other, ":")
		changed := strings.Replace(yaml, key+": "+map[string]string{"seed": "7", "input_len": "8", "output_len": "3"}[key], other, 1)
		o, err := loadWith(t, changed)
		if err != nil {
			t.Fatal(err)
		}
		if o.MatchedDigest() == s.MatchedDigest() {
			t.Errorf("%s left the matched digest as it was", other)
		}
	}
}

// TestConversationWorkload: a ShareGPT file is read in its form (the
// first turn, or every turn with multi_turn), digested as the client
// sends it, and multi_turn reaches the client.
func TestConversationWorkload(t *testing.T) {
	for _, multi := range []bool{false, true} {
		w := "{prompts: sharegpt.json, concurrency: 2}"
		if multi {
			w = "{prompts: sharegpt.json, multi_turn: true, concurrency: 2}"
		}
		yaml := strings.Replace(strings.Replace(openaiBase, "{prompts: prompts.jsonl, requests: 2, concurrency: 2}", w, 1), "model: m}", "model: m, endpoint: chat}", 1)
		s, err := loadWith(t, yaml)
		if err != nil {
			t.Fatal(err)
		}
		want, err := digest.DigestConversations(filepath.Join(s.Dir, "sharegpt.json"), multi, false)
		if err != nil {
			t.Fatal(err)
		}
		if s.PromptsDigest != want.Digest || int(s.Workload.Requests) != int(want.Digest.Count) {
			t.Errorf("multi-turn %v: declared %s, the dataset sends %s", multi, s.PromptsDigest, want.Digest)
		}
		if slices.Contains(s.LoadArgs(s.OpenAIRole()), "--multi-turn") != multi {
			t.Errorf("multi-turn %v: load args %v", multi, s.LoadArgs(s.OpenAIRole()))
		}
	}
}

// TestDurationWarmupRamp: the client's keys reach abbench load, and the
// count of a duration run is the record's.
func TestDurationWarmupRamp(t *testing.T) {
	yaml := strings.Replace(openaiBase, "{prompts: prompts.jsonl, requests: 2, concurrency: 2}",
		"{prompts: prompts.jsonl, concurrency: 4, duration: 5s, warmup: 3, ramp: {from: 1, over: 2s}}", 1)
	s, err := loadWith(t, yaml)
	if err != nil {
		t.Fatal(err)
	}
	args := strings.Join(s.LoadArgs(s.OpenAIRole()), " ")
	for _, want := range []string{"--duration 5s --dataset-records {{.Out}}/" + OpenAIDataset, "--warmup 3 --warmup-records {{.Out}}/" + OpenAIWarmup, "--ramp-from 1 --ramp-over 2s"} {
		if !strings.Contains(args, want) {
			t.Errorf("load args %s: want %s", args, want)
		}
	}
	if s.Workload.Total() != 0 {
		t.Errorf("a duration run's total %d, want 0 (the record says)", s.Workload.Total())
	}
	if _, err := s.Workload.EvalExpr("requests"); err == nil {
		t.Error("requests of a duration run evaluated to a count")
	}
}

func TestClientWorkloadRejects(t *testing.T) {
	const w = "{prompts: prompts.jsonl, requests: 2, concurrency: 2}"
	for _, c := range []struct{ name, to, want string }{
		{"both", "{prompts: prompts.jsonl, synthetic: {prompts: 2, input_len: 2}}", "both prompts and synthetic"},
		{"bad synthetic", "{synthetic: {prompts: 2, input_len: 0}}", "input_len at least 1"},
		{"synthetic key", "{synthetic: {prompts: 2, input_lenn: 2}}", `unknown key "input_lenn" in synthetic: did you mean "input_len"?`},
		{"synthetic without output_len and seed", "{synthetic: {prompts: 2, input_len: 2}}", "synthetic: give output_len and seed too"},
		{"synthetic without seed", "{synthetic: {prompts: 2, input_len: 2, output_len: 0}}", "synthetic: give seed too"},
		{"multi-turn of prompts", "{prompts: prompts.jsonl, multi_turn: true}", "multi_turn needs a conversation dataset"},
		{"multi-turn on completions", "{prompts: sharegpt.json, multi_turn: true}", "use endpoint chat"},
		{"rounds", "{prompts: prompts.jsonl, duration: 5s, rounds: 2}", "rounds 2 with a duration"},
		{"part of a cycle", "{prompts: prompts.jsonl, duration: 5s, requests: 1}", "requests 1 with a duration"},
		{"past the deadline", "{prompts: prompts.jsonl, duration: 11m}", "less than deadlines.client"},
		{"ramp above", "{prompts: prompts.jsonl, concurrency: 2, ramp: {from: 3, over: 1s}}", "ramp from 3"},
		{"ramp time", "{prompts: prompts.jsonl, concurrency: 2, ramp: {from: 1}}", "ramp over 0s"},
		{"field of a dataset", "{prompts: sharegpt.json, field: x}", "field and algorithm apply to prompts files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadWith(t, strings.Replace(openaiBase, w, c.to, 1))
			var es Errors
			if !errors.As(err, &es) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	if _, err := loadWith(t, strings.Replace(base, w, "{prompts: prompts.jsonl, warmup: 2}", 1)); err == nil || !strings.Contains(err.Error(), "sent by abbench's own client") {
		t.Errorf("warm-up with a command client: %v", err)
	}
	// A command client may be given a conversation dataset, but its digest
	// is of what abbench's own client sends: no digest criterion holds it.
	command := strings.Replace(base, w, "{prompts: sharegpt.json}", 1)
	if _, err := loadWith(t, command); err != nil {
		t.Errorf("a ShareGPT file given to a command client: %v", err)
	}
	if _, err := loadWith(t, command+"  - {digest: agree}\n"); err == nil || !strings.Contains(err.Error(), "criterion 2 (digest): the workload is a conversation dataset") {
		t.Errorf("a digest criterion of a command client's conversation dataset: %v", err)
	}
	if _, err := loadWith(t, strings.Replace(openaiBase, "model: m}", "model: m, max_tokens: 5}", 1)+""); err != nil {
		t.Errorf("max_tokens with a prompts file: %v", err)
	}
	if _, err := loadWith(t, strings.Replace(strings.Replace(openaiBase, w, syntheticWorkload, 1), "model: m}", "model: m, max_tokens: 5}", 1)); err == nil || !strings.Contains(err.Error(), "leave max_tokens out") {
		t.Errorf("max_tokens with a synthetic output_len: %v", err)
	}
}

// TestCompletionsOfAConversationWithHistory: a conversation whose first
// request carries a system prompt needs a chat endpoint, said by validate
// naming the conversation, not by a client that fails mid-run.
func TestCompletionsOfAConversationWithHistory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "c.jsonl", `{"messages": [{"role": "user", "content": "a"}]}`+"\n"+`{"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "b"}]}`+"\n")
	yaml := strings.Replace(openaiBase, "{prompts: prompts.jsonl, requests: 2, concurrency: 2}", "{prompts: c.jsonl}", 1)
	_, err := Load(write(t, dir, "s.yaml", yaml))
	if err == nil || !strings.Contains(err.Error(), "the request of conversation 2 of c.jsonl carries several messages") {
		t.Errorf("completions of a system prompt: %v", err)
	}
	if _, err := Load(write(t, dir, "s.yaml", strings.Replace(yaml, "model: m}", "model: m, endpoint: chat}", 1))); err != nil {
		t.Errorf("chat of a system prompt: %v", err)
	}
}
