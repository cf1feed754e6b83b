package digest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/abbench/abbench/internal/fuzzseed"
)

// FuzzReadConversations reads any bytes as both conversation forms. A
// request's body is compact JSON that encoding/json reads back to its own
// messages and output length, its contents valid UTF-8 and its last
// message a user turn; with multiTurn every single-turn request comes
// again, first of its conversation; an error of one conversation names it
// (an *EntryError), and ends the sequence.
func FuzzReadConversations(f *testing.F) {
	fuzzseed.Add(f, "../../testdata/datasets/sharegpt-small.json", "../../testdata/datasets/conversations-small.jsonl")
	for _, s := range []string{`[{"conversations": [{"from": "human", "value": "x"}]}]`, `{"messages": [{"role": "user", "content": "\ud800"}]}`,
		`[{"conversations": [{"from": "gpt", "value": "a"}, {"from": "human", "value": "b"}]}, 1]`, "{\"messages\": []}\n\n{\"messages\": [{\"role\": \"user\", \"content\": \"\\u0000\"}]}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256<<10 {
			return
		}
		for _, form := range []Form{FormShareGPT, FormConversations} {
			first := readAll(t, data, form, false)
			all := readAll(t, data, form, true)
			j := 0
			for _, q := range first {
				for j < len(all) && (all[j].Entry != q.Entry || all[j].Turn != 1) {
					j++
				}
				if j == len(all) || !bytes.Equal(all[j].Body(), q.Body()) {
					t.Fatalf("%s: the first turn of entry %d is not among the multi-turn requests", form, q.Entry)
				}
			}
		}
	})
}

// readAll reads every request, checking each body and the error.
func readAll(t *testing.T, data []byte, form Form, multi bool) []Request {
	var out []Request
	for q, err := range ReadConversations(bytes.NewReader(data), "f", form, multi) {
		if err != nil {
			var ee *EntryError
			if errors.As(err, &ee) && (ee.Entry < 1 || !strings.HasPrefix(err.Error(), "f")) {
				t.Fatalf("an entry error naming entry %d: %v", ee.Entry, err)
			}
			return out
		}
		var back struct {
			MaxTokens int       `json:"max_tokens"`
			Messages  []Message `json:"messages"`
		}
		body := q.Body()
		if err := json.Unmarshal(body, &back); err != nil || back.MaxTokens != q.MaxTokens || len(back.Messages) != len(q.Messages) {
			t.Fatalf("body %q does not read back: %v", body, err)
		}
		var compact bytes.Buffer
		if json.Compact(&compact, body) != nil || !bytes.Equal(compact.Bytes(), body) {
			t.Fatalf("body %q is not compact JSON", body)
		}
		for i, m := range back.Messages {
			if m != q.Messages[i] || !utf8.ValidString(m.Content) {
				t.Fatalf("message %d %q reads back as %q", i, q.Messages[i], m)
			}
		}
		if q.Messages[len(q.Messages)-1].Role != RoleUser || q.Turn < 1 {
			t.Fatalf("request %+v does not end with its user turn", q)
		}
		out = append(out, q)
	}
	return out
}
