package digest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type vector struct {
	Name      string            `json:"name"`
	Algorithm string            `json:"algorithm"`
	Prompts   []json.RawMessage `json:"prompts"`
	Count     uint64            `json:"count"`
	Digest    string            `json:"digest"`
}

func loadVectors(t *testing.T, path string) []vector {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Vectors []vector }
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Vectors) == 0 {
		t.Fatalf("%s holds no vectors", path)
	}
	return doc.Vectors
}

// TestVectors reproduces every vector twice: through the Builder and through
// a prompts file read by ReadFile.
func TestVectors(t *testing.T) {
	for _, v := range loadVectors(t, "testdata/digest-vectors.json") {
		t.Run(v.Name, func(t *testing.T) {
			alg, err := ParseAlgorithm(v.Algorithm)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := NewBuilder(alg, false)
			var file bytes.Buffer
			for _, p := range v.Prompts {
				if err := json.Compact(&file, p); err != nil {
					t.Fatal(err)
				}
				file.WriteByte('\n')
				addVectorPrompt(t, b, alg, p)
			}
			want := Digest{Algorithm: alg, Count: v.Count, Hex: v.Digest}
			if got, _ := b.Sum(); got != want {
				t.Errorf("builder: got %s, want %s", got, want)
			}
			fd, err := Read(&file, "vector.jsonl", ReadOptions{Algorithm: alg})
			if err != nil {
				t.Fatal(err)
			}
			if fd.Digest != want {
				t.Errorf("prompts file: got %s, want %s", fd.Digest, want)
			}
		})
	}
}

// addVectorPrompt adds a vector's prompt p to b: a string of text, or an
// array of tokens, as alg hashes.
func addVectorPrompt(t *testing.T, b *Builder, alg Algorithm, p json.RawMessage) {
	t.Helper()
	if alg.Unit() == UnitText {
		var s string
		if err := json.Unmarshal(p, &s); err != nil {
			t.Fatal(err)
		}
		if err := b.AddText(s); err != nil {
			t.Fatal(err)
		}
		return
	}
	var toks []uint32
	if err := json.Unmarshal(p, &toks); err != nil {
		t.Fatal(err)
	}
	b.AddTokens(toks)
}

// TestVectorsMatchSharedSpec fails when the copy under testdata drifts from
// the pinned specification, when that is checked out beside the repository.
func TestVectorsMatchSharedSpec(t *testing.T) {
	spec := filepath.Join("..", "..", "..", "shared", "spec", "digest-vectors.json")
	want, err := os.ReadFile(spec)
	if err != nil {
		t.Skipf("pinned specification not beside the repository (%v)", err)
	}
	got, err := os.ReadFile("testdata/digest-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("testdata/digest-vectors.json differs from %s: copy the pinned vectors again", spec)
	}
	if len(loadVectors(t, spec)) == 0 || !strings.Contains(string(want), string(TextOrdered)) {
		t.Fatal("specification lacks vectors")
	}
}
