package digest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func digestOf(t *testing.T, alg Algorithm, prompts ...[]uint32) Digest {
	t.Helper()
	b, err := NewBuilder(alg, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts {
		b.AddTokens(p)
	}
	d, err := b.Sum()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestFramingAndOrder(t *testing.T) {
	a := digestOf(t, TokensOrdered, []uint32{1, 2}, []uint32{3})
	b := digestOf(t, TokensOrdered, []uint32{1}, []uint32{2, 3})
	if a == b {
		t.Error("framing is ambiguous: [1,2],[3] == [1],[2,3]")
	}
	x := digestOf(t, TokensOrdered, []uint32{1}, []uint32{2})
	y := digestOf(t, TokensOrdered, []uint32{2}, []uint32{1})
	if x == y {
		t.Error("ordered digest ignores order")
	}
	if digestOf(t, TokensSorted, []uint32{1}, []uint32{2}) != digestOf(t, TokensSorted, []uint32{2}, []uint32{1}) {
		t.Error("sorted digest depends on order")
	}
	if digestOf(t, TokensSorted, []uint32{1}).Hex == digestOf(t, TokensOrdered, []uint32{1}).Hex {
		t.Error("digests of different algorithms collide")
	}
}

func randomPrompts(r *rand.Rand, n int) [][]uint32 {
	ps := make([][]uint32, n)
	for i := range ps {
		p := make([]uint32, r.IntN(50))
		for j := range p {
			p[j] = r.Uint32N(200000)
		}
		ps[i] = p
	}
	return ps
}

func TestMultisetInvariantUnderShuffles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ps := randomPrompts(r, 200)
	want := digestOf(t, TokensSorted, ps...)
	ordered := digestOf(t, TokensOrdered, ps...)
	for range 20 {
		r.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
		if got := digestOf(t, TokensSorted, ps...); got != want {
			t.Fatalf("shuffle changed the multiset digest: %s vs %s", got, want)
		}
		if got := digestOf(t, TokensOrdered, ps...); got == ordered {
			t.Fatal("shuffle left the ordered digest unchanged")
		}
	}
}

func jsonl(ps [][]uint32) []byte {
	var buf bytes.Buffer
	for i, p := range ps {
		b, _ := json.Marshal(p)
		if p == nil {
			b = []byte("[]")
		}
		switch i % 3 {
		case 0:
			buf.Write(b)
		case 1:
			fmt.Fprintf(&buf, "{\"id\": %d, \"prompt_token_ids\": %s}", i, b)
		default:
			fmt.Fprintf(&buf, "  %s  \r", bytes.ReplaceAll(b, []byte(","), []byte(", ")))
		}
		buf.WriteString("\n\n")
	}
	return buf.Bytes()
}

// TestSplitDoesNotMatter reads the same file with tiny chunks and several
// worker counts, with records spilled to disk, and expects one digest.
func TestSplitDoesNotMatter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ps := randomPrompts(r, 3000)
	file := jsonl(ps)
	want := digestOf(t, TokensOrdered, ps...)
	defer func(c int) { chunkSize = c }(chunkSize)
	for _, cs := range []int{1, 97, 4096, 1 << 20} {
		chunkSize = cs
		for _, w := range []int{1, 2, 7} {
			fd, err := Read(bytes.NewReader(file), "p.jsonl", ReadOptions{Workers: w, KeepRecords: w == 7})
			if err != nil {
				t.Fatal(err)
			}
			if fd.Digest != want {
				t.Fatalf("chunk %d, workers %d: got %s, want %s", cs, w, fd.Digest, want)
			}
			if w == 7 && len(fd.Records) != len(ps) {
				t.Fatalf("kept %d records, want %d", len(fd.Records), len(ps))
			}
		}
	}
}

func TestSpillMatchesMemory(t *testing.T) {
	n := spillAfter + 1000
	spilled, _ := NewBuilder(TokensOrdered, false)
	kept, _ := NewBuilder(TokensOrdered, true)
	for i := range n {
		spilled.AddTokens([]uint32{uint32(i)})
		kept.AddTokens([]uint32{uint32(i)})
	}
	if spilled.spill == nil {
		t.Fatal("builder did not spill past its memory budget")
	}
	a, err := spilled.Sum()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := kept.Sum()
	if a != b {
		t.Fatalf("spilled %s != kept %s", a, b)
	}
}

func TestBadInput(t *testing.T) {
	cases := []struct {
		name, file, field string
		line              int
		want              string
	}{
		{"malformed", "[1,2]\n[1,\n", "", 2, "malformed JSON"},
		{"negative", "[1]\n\n[3, -1]\n", "", 3, "token 1: -1 is negative"},
		{"too large", "[4294967296]\n", "", 1, "at least 2^32"},
		{"largest ok then too large", "[4294967295]\n[99999999999999999999999]\n", "", 2, "at least 2^32"},
		{"fractional", "[1.5]\n", "", 1, "1.5 is not an integer"},
		{"exponent", "[1e3]\n", "", 1, "not an integer"},
		{"boolean", "[true]\n", "", 1, "boolean"},
		{"string token", "[\"7\"]\n", "", 1, "a string is not a token ID"},
		{"null token", "[null]\n", "", 1, "null is not a token ID"},
		{"invalid utf-8", "\"ok\"\n\"\xff\xfe\"\n", "", 2, "not valid UTF-8"},
		{"lone surrogate", "\"\\ud800\"\n", "", 1, "lone surrogate"},
		{"mixed", "[1]\n\"text\"\n", "", 2, "must not mix"},
		{"mixed object", "{\"prompt\": \"a\"}\n{\"prompt_token_ids\": [1]}\n", "", 2, "must not mix"},
		{"no field", "{\"text\": \"a\"}\n", "", 1, "neither \"prompt_token_ids\" nor \"prompt\""},
		{"named field missing", "{\"prompt\": \"a\"}\n", "input", 1, "no field \"input\""},
		{"number line", "42\n", "", 1, "malformed JSON"},
		{"trailing garbage", "[1] x\n", "", 1, "after the prompt"},
		{"leading zero", "[01]\n", "", 1, "leading zero"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(c.file), "bad.jsonl", ReadOptions{Field: c.field})
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a LineError", err)
			}
			if le.Line != c.line || !strings.Contains(le.Msg, c.want) {
				t.Fatalf("got %q, want line %d containing %q", err, c.line, c.want)
			}
			if !strings.HasPrefix(err.Error(), fmt.Sprintf("bad.jsonl:%d: ", c.line)) {
				t.Fatalf("error %q is not FILE:LINE: message", err)
			}
		})
	}
}

func TestMixAcrossChunksNamesTheLine(t *testing.T) {
	defer func(c int) { chunkSize = c }(chunkSize)
	chunkSize = 8
	file := strings.Repeat("[1,2,3]\n", 50) + "\"text\"\n"
	_, err := Read(strings.NewReader(file), "m.jsonl", ReadOptions{})
	var le *LineError
	if !errors.As(err, &le) || le.Line != 51 {
		t.Fatalf("got %v, want line 51", err)
	}
}

func TestAlgorithmUnitMismatch(t *testing.T) {
	_, err := Read(strings.NewReader("\"text\"\n"), "t.jsonl", ReadOptions{Algorithm: TokensOrdered})
	if err == nil || !strings.Contains(err.Error(), "t.jsonl:1: text prompt, but algorithm") {
		t.Fatalf("got %v", err)
	}
	_, err = Read(strings.NewReader("[1]\n"), "t.jsonl", ReadOptions{Algorithm: "sha1-v0"})
	var ua *UnknownAlgorithmError
	if !errors.As(err, &ua) {
		t.Fatalf("got %v, want UnknownAlgorithmError", err)
	}
}

func TestTextEscapesMatchRawUTF8(t *testing.T) {
	raw, _ := Read(strings.NewReader("\"h\u00e9llo\\n\U0001F600\"\n"), "a", ReadOptions{})
	esc, err := Read(strings.NewReader("\"h\\u00e9llo\\n\\ud83d\\ude00\"\n"), "b", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if raw.Digest != esc.Digest || raw.Digest.Algorithm != TextOrdered {
		t.Fatalf("escaped and raw text differ: %s vs %s", raw.Digest, esc.Digest)
	}
}

func TestDigestValueRoundTrip(t *testing.T) {
	d := digestOf(t, TokensOrdered, []uint32{1})
	p, err := Parse(d.String())
	if err != nil || p != d {
		t.Fatalf("Parse(String()) = %v, %v", p, err)
	}
	j, _ := json.Marshal(d)
	if !strings.Contains(string(j), `"algorithm":"sha256-length-prefixed-prompt-sha256-v1"`) {
		t.Fatalf("JSON %s", j)
	}
	var back Digest
	if err := json.Unmarshal(j, &back); err != nil || back != d {
		t.Fatalf("JSON round trip: %v %v", back, err)
	}
	for _, bad := range []string{"", "x:1:ab", string(TokensOrdered) + ":-1:" + d.Hex, string(TokensOrdered) + ":1:" + strings.ToUpper(d.Hex), string(TokensOrdered) + ":1:abc"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	if err := json.Unmarshal([]byte(`{"algorithm":"md5","count":1,"digest":"`+d.Hex+`"}`), &back); err == nil {
		t.Error("unknown algorithm accepted from JSON")
	}
}

func records(ps ...[]uint32) []Record {
	out := make([]Record, len(ps))
	for i, p := range ps {
		out[i] = RecordOf(AppendTokens(nil, p))
	}
	return out
}

func TestExplain(t *testing.T) {
	a := records([]uint32{1}, []uint32{2}, []uint32{3}, []uint32{3})
	if e := Explain(a, a); e.Relation != Equal {
		t.Fatalf("same: %v", e)
	}
	re := records([]uint32{1}, []uint32{3}, []uint32{2}, []uint32{3})
	if e := Explain(a, re); e.Relation != Reordered || e.FirstDivergence != 1 {
		t.Fatalf("reordered: %+v", e)
	}
	diff := records([]uint32{1}, []uint32{2}, []uint32{3}, []uint32{4}, []uint32{5})
	e := Explain(a, diff)
	if e.Relation != Different || e.OnlyA != 1 || e.OnlyB != 2 || e.OnlyAPositions[0] != 3 || e.OnlyBPositions[0] != 3 {
		t.Fatalf("different: %+v", e)
	}
	if !strings.Contains(e.String(), "1 of 4 prompts only in A") {
		t.Fatalf("sentence: %s", e)
	}
	// A duplicate is content, not order: [x,x] vs [x] differ.
	if e := Explain(records([]uint32{7}, []uint32{7}), records([]uint32{7})); e.Relation != Different || e.OnlyA != 1 {
		t.Fatalf("duplicate: %+v", e)
	} else if want := "different content: 1 of 2 prompts only in A (first at positions 1), 0 of 1 only in B"; e.String() != want {
		// it said "(first at positions none)" of a side with none
		t.Errorf("sentence %q, want %q", e, want)
	}
}

func TestRecordsFileRoundTrip(t *testing.T) {
	b, _ := NewBuilder(TokensOrdered, true)
	b.AddTokens([]uint32{1, 2})
	b.AddTokens(nil)
	d, _ := b.Sum()
	var buf bytes.Buffer
	if err := WriteRecords(&buf, d, b.Records()); err != nil {
		t.Fatal(err)
	}
	gd, recs, err := ReadRecords(bytes.NewReader(buf.Bytes()), "r")
	if err != nil || gd != d || len(recs) != 2 {
		t.Fatalf("round trip: %v %v %v", gd, len(recs), err)
	}
	tampered := bytes.Replace(buf.Bytes(), []byte("\n8 "), []byte("\n9 "), 1)
	if _, _, err := ReadRecords(bytes.NewReader(tampered), "r"); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("tampered records accepted: %v", err)
	}
}
