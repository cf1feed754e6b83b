package digest

import (
	"errors"
	"strings"
	"testing"
)

// The digests below were computed by an independent implementation of
// docs/digest.md's conversation form (Python's json and hashlib).
func TestDigestConversationsForms(t *testing.T) {
	for _, c := range []struct {
		file  string
		multi bool
		want  string
	}{
		{"../../testdata/datasets/sharegpt-small.json", false, "4:6091c37637d7fc6ab281d7e87b55c13e142388d150dba08b9d4586badeea3183"},
		{"../../testdata/datasets/sharegpt-small.json", true, "7:a9d06afea2bb316981763931db9c9ad92c39620d8ab50dcb5413b3dbd100e46e"},
		{"../../testdata/datasets/conversations-small.jsonl", false, "3:e44d78195424936475e6062824487b5b29e546da67984bd6925362853dc7adff"},
		{"../../testdata/datasets/conversations-small.jsonl", true, "6:a9aed4ac6530bd9fc196443a41536c2fb4627bd9b1e5bac67fa25ff74848092c"},
	} {
		fd, err := DigestConversations(c.file, c.multi, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimPrefix(fd.Digest.String(), string(TextOrdered)+":"); got != c.want {
			t.Errorf("%s multi-turn %v: %s, want %s", c.file, c.multi, got, c.want)
		}
	}
}

func TestSniffForm(t *testing.T) {
	for in, want := range map[string]Form{
		" [\n {\"id\": 1}]":                FormShareGPT,
		"\xef\xbb\xbf[{}]":                 FormShareGPT,
		"[1, 2, 3]\n[4]\n":                 FormPrompts,
		"\"text\"\n":                       FormPrompts,
		"{\"prompt\": \"x\"}\n":            FormPrompts,
		"{\"messages\": []}\n{\"x\": 1}\n": FormConversations,
		"{\"conversations\": []}":          FormConversations,
		"":                                 FormPrompts,
	} {
		if got := SniffForm([]byte(in)); got != want {
			t.Errorf("SniffForm(%q) = %s, want %s", in, got, want)
		}
	}
}

// The body is what the request carries: history (the dataset's own
// replies), the user turn, and the next reply's words as max_tokens; no
// HTML escaping.
func TestConversationRequestBodies(t *testing.T) {
	in := `{"messages": [{"role": "system", "content": "Be <brief> & kind."}, {"role": "user", "content": "a\tb"}, {"role": "assistant", "content": "one two three"}, {"role": "user", "content": "again\u0001\u2028\f"}]}`
	var got []string
	for q, err := range ReadConversations(strings.NewReader(in), "c.jsonl", FormConversations, true) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(q.Body()))
	}
	want := []string{
		`{"max_tokens":3,"messages":[{"role":"system","content":"Be <brief> & kind."},{"role":"user","content":"a\tb"}]}`,
		`{"messages":[{"role":"system","content":"Be <brief> & kind."},{"role":"user","content":"a\tb"},{"role":"assistant","content":"one two three"},{"role":"user","content":"again\u0001\u2028\f"}]}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("bodies:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestConversationErrors(t *testing.T) {
	for _, c := range []struct {
		form     Form
		in, want string
	}{
		{FormConversations, "\n{\"messages\": [{\"role\": \"user\", \"content\": \"\\ud800\"}]}", "c:2: turn 1: lone surrogate"},
		{FormConversations, "{\"messages\": [{\"role\": \"user\", \"content\": \"\xff\"}]}", "c:1: turn 1: content is not valid UTF-8"},
		{FormConversations, `{"messages": [{"role": "tool", "content": "x"}]}`, `c:1: turn 1: speaker "tool"`},
		{FormConversations, `{"messages": [{"role": "user", "content": [{"type": "text"}]}]}`, "c:1: turn 1: its content is not a string"},
		{FormConversations, `{"prompt": "x", "messages": null}`, "c:1: an object with neither conversations nor messages"},
		{FormShareGPT, `[{"conversations": [{"from": "human", "value": "x"}]}, {"conversations": [{"value": "y"}]}]`, "c: conversation 2: turn 1: no speaker"},
		{FormShareGPT, `[{"conversations": []}, nope]`, "c: conversation 2: malformed JSON"},
		{FormShareGPT, `{"conversations": []}`, "c: a ShareGPT file is one JSON array"},
	} {
		var err error
		for _, e := range ReadConversations(strings.NewReader(c.in), "c", c.form, true) {
			if e != nil {
				err = e
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
		var ee *EntryError
		if c.form == FormConversations && !errors.As(err, &ee) {
			t.Errorf("%q: %T is not an *EntryError", c.in, err)
		}
	}
}

// TestShareGPTEntryIsBounded: one conversation past the cap is an error
// naming it, read no further than the cap and a buffer past it; one just
// under it is read.
func TestShareGPTEntryIsBounded(t *testing.T) {
	defer func(m int) { maxEntry = m }(maxEntry)
	maxEntry = 1 << 20
	entry := func(n int) string {
		return `{"conversations": [{"from": "human", "value": "` + strings.Repeat("x", n) + `"}]}`
	}
	big := "[" + entry(100) + ", " + entry(8<<20) + "]"
	r := &countingReader{r: strings.NewReader(big)}
	var err error
	for _, e := range ReadConversations(r, "big.json", FormShareGPT, false) {
		err = e
	}
	if err == nil || err.Error() != "big.json: conversation 2: a conversation of more than 1 MiB" {
		t.Errorf("error %v", err)
	}
	if r.n > 3<<20 {
		t.Errorf("read %d bytes of a conversation past a 1 MiB cap", r.n)
	}
	n := 0
	for _, e := range ReadConversations(strings.NewReader("["+entry(1<<19)+"]"), "ok.json", FormShareGPT, false) {
		if e != nil {
			t.Fatal(e)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d requests of a conversation under the cap", n)
	}
}

type countingReader struct {
	r *strings.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
