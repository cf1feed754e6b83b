package records

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/digest"
)

// realInputs is AIPerf's inputs.json of a real run (testdata/records-inputs,
// its SOURCES.md row in testdata/records/SOURCES.md).
func realInputs(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", "testdata", "records-inputs", "aiperf", "llama32-3b-4-prompts-inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The prompts AIPerf wrote down as sent digest as a prompts file of the
// same lines does, with the pinned text algorithm; so does GenAI-Perf's
// layout of the same payloads (the real file with AIPerf's "payloads"
// renamed to GenAI-Perf's "payload", in this test: no real GenAI-Perf
// inputs.json is in the corpus).
func TestSentPromptsAreThePromptsFilesDigest(t *testing.T) {
	var lines []string
	for _, p := range []string{"Hello! Please respond with a short sentence.", "What is 2 + 2? Reply with one number only.",
		"Write a one-line haiku about GPUs.", "Return the single word: ready"} {
		line, _ := json.Marshal(p)
		lines = append(lines, string(line))
	}
	file, err := digest.Read(strings.NewReader(strings.Join(lines, "\n")+"\n"), "prompts.jsonl", digest.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if file.Digest.Algorithm != digest.TextOrdered || file.Digest.Count != 4 {
		t.Fatalf("the prompts file digests as %s", file.Digest)
	}
	aiperf := realInputs(t)
	genaiPerf := bytes.ReplaceAll(aiperf, []byte(`"payloads"`), []byte(`"payload"`))
	for name, data := range map[string][]byte{"aiperf": aiperf, "genai-perf": genaiPerf} {
		sent, err := SentPrompts(data, "inputs.json")
		if err != nil || sent != file.Digest {
			t.Errorf("%s: %s, %v; the prompts file: %s", name, sent, err, file.Digest)
		}
	}
	reordered := bytes.Replace(aiperf, []byte("Hello! Please respond"), []byte("Hello! Please reply"), 1)
	if sent, err := SentPrompts(reordered, "inputs.json"); err != nil || sent == file.Digest {
		t.Errorf("another prompt digests the same: %s, %v", sent, err)
	}
}

// A payload abbench cannot reduce to one prompt text is an error naming
// it, never a digest of part of it (each case an edit of the real file in
// this test).
func TestSentPromptsRefuseWhatIsNotOneText(t *testing.T) {
	data := realInputs(t)
	const first = `"content": "Hello! Please respond with a short sentence."`
	for _, c := range []struct{ old, edit, want string }{
		{`{
              "role": "user",
              "content": "Hello!`, `{"role": "system", "content": "Be brief."},
            {
              "role": "user",
              "content": "Hello!`, "inputs.json: data[0].payloads[0]: 2 messages, not one: abbench digests one text per request; digest the prompts file instead"},
		{first, `"content": [{"type": "text", "text": "Hello!"}, {"type": "image_url", "image_url": {"url": "x"}}]`,
			"inputs.json: data[0].payloads[0]: the prompt is not one text (an image, audio or a list of parts?); digest the prompts file instead"},
		{first, `"content": "Hello! \ud800"`, "inputs.json: data[0].payloads[0]: the prompt holds U+FFFD"},
		{`"messages"`, `"text_input"`, "inputs.json: data[0].payloads[0]: neither messages (chat) nor prompt (completions)"},
		{`"payloads": [`, `"requests": [`, "inputs.json: data[0]: no payloads (AIPerf) or payload (GenAI-Perf)"},
		{`"data": [`, `"entries": [`, "inputs.json: has no data list"},
	} {
		edited := bytes.Replace(data, []byte(c.old), []byte(c.edit), 1)
		if bytes.Equal(edited, data) {
			t.Fatalf("the real file lacks %s", c.old)
		}
		if d, err := SentPrompts(edited, "inputs.json"); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s -> %s: %s, %v, want %q", c.old, c.edit, d, err, c.want)
		}
	}
	if _, err := SentPrompts([]byte(`{"data": []}`), "inputs.json"); err == nil {
		t.Error("an inputs.json of no prompt digests")
	}
}
