package digest

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestReadPromptsIsWhatReadDigests: the prompts a client reads to send
// hash, in file order, to the digest of the file, for tokens and text, and
// decode back to what the file holds.
func TestReadPromptsIsWhatReadDigests(t *testing.T) {
	for _, file := range []string{
		"[1, 2, 3]\n\n{\"prompt_token_ids\": [4294967295]}\n[]\n",
		"\"héllo\"\r\n{\"prompt\": \"a\\nb\"}\n\"\"",
	} {
		ps, err := ReadPrompts(strings.NewReader(file), "p.jsonl", "")
		if err != nil {
			t.Fatal(err)
		}
		want, err := Read(strings.NewReader(file), "p.jsonl", ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewBuilder(want.Digest.Algorithm, false)
		for _, p := range ps {
			b.AddRecord(p.Record())
		}
		if got, _ := b.Sum(); got != want.Digest {
			t.Errorf("%q: the prompts read digest to %s, the file to %s", file, got, want.Digest)
		}
	}
	ps, _ := ReadPrompts(strings.NewReader("[1, 2, 3]\n\n{\"prompt_token_ids\": [4294967295]}\n"), "p", "")
	if len(ps) != 2 || !slices.Equal(ps[0].Tokens(), []uint32{1, 2, 3}) || !slices.Equal(ps[1].Tokens(), []uint32{4294967295}) || ps[1].Line != 3 {
		t.Errorf("token prompts %+v", ps)
	}
	ps, _ = ReadPrompts(strings.NewReader(`{"q": "x", "prompt": "y"}`), "p", "q")
	if len(ps) != 1 || ps[0].Text() != "x" {
		t.Errorf("--field q: %+v", ps)
	}
}

func TestReadPromptsErrorsNameTheLine(t *testing.T) {
	for file, want := range map[string]string{
		"[1]\n\"text\"\n": "p.jsonl:2: text prompt in a file of tokens prompts (line 1)",
		"[1]\n[1.5]\n":    "p.jsonl:2: ",
		"{\"x\": 1}":      "p.jsonl:1: object has neither",
	} {
		_, err := ReadPrompts(strings.NewReader(file), "p.jsonl", "")
		var le *LineError
		if !errors.As(err, &le) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %q", file, err, want)
		}
	}
}

// TestExplainMultisetRecordsIgnoresOrder: two records files of the
// multiset algorithm with one digest hold one workload, whatever order
// their records are listed in: explain says equal, not reordered (which
// the CLI exits 3 on, as for other content).
func TestExplainMultisetRecordsIgnoresOrder(t *testing.T) {
	dir := t.TempDir()
	a, b := []Record{RecordOf([]byte{1}), RecordOf([]byte{2})}, []Record{RecordOf([]byte{2}), RecordOf([]byte{1})}
	for alg, want := range map[Algorithm]Relation{TokensSorted: Equal, TokensOrdered: Reordered} {
		for name, recs := range map[string][]Record{"a": a, "b": b} {
			bl, _ := NewBuilder(alg, false)
			for _, r := range recs {
				bl.AddRecord(r)
			}
			d, _ := bl.Sum()
			if err := WriteRecordsFile(dir+"/"+name, d, recs); err != nil {
				t.Fatal(err)
			}
		}
		fe, err := ExplainFiles(dir+"/a", dir+"/b")
		if err != nil || fe.Relation != want {
			t.Errorf("%s: %v %+v, want %s", alg, err, fe, want)
		}
		if alg == TokensSorted && !strings.Contains(fe.String(), "its order is not hashed") {
			t.Errorf("%s: %q", alg, fe.String())
		}
	}
}
