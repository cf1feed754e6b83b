package scenarios

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/fuzzseed"
)

// FuzzParse feeds the strict loader scenario bytes. A scenario it accepts
// has a matched digest that is the SHA-256 of valid canonical JSON, the
// same on a second parse; one it refuses gets Errors, each naming the file,
// saying something, and pointing at no line past the file's end.
func FuzzParse(f *testing.F) {
	fuzzseed.Add(f, "../../scenarios/*.yaml", "../../scenarios/examples/*.yaml")
	f.Add([]byte(base))
	for _, s := range []string{
		"arms: &a {x: *a}",
		"roles: [{name: a, after: [a]}]",
		"name: t\n---\nname: u\n",
		"noise_threshold: .nan\n",
		"workload: {requests: -1}\n",
		"\xef\xbb\xbfname: t\n",
		"name: [\n",
	} {
		f.Add([]byte(s))
	}
	prompts, err := digest.New(string(digest.TokensOrdered), 256, "70cacee26abf5cdcc358641693d290917798552fcb58acb30f15cd075a63d098")
	if err != nil {
		f.Fatal(err)
	}
	file := filepath.Join("fuzz", "scenario.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return // Load refuses more than MaxFileSize; YAML decoding is not linear
		}
		// The prompts digest is given, so the fuzzed scenario names no file
		// that is read.
		s, err := ParseWithPrompts(data, file, &prompts)
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("ParseWithPrompts returned %T, want Errors: %v", err, err)
			}
			lines := bytes.Count(data, []byte("\n")) + 1
			for _, e := range es {
				if e.File != file || e.Msg == "" || e.Line < 0 || e.Line > lines+1 {
					t.Fatalf("error %q: file %q, line %d of %d", e.Msg, e.File, e.Line, lines)
				}
			}
			return
		}
		canonical := s.Canonical()
		if !json.Valid(canonical) {
			t.Fatalf("canonical encoding is not JSON: %s", canonical)
		}
		if d, err := hex.DecodeString(s.MatchedDigest()); err != nil || len(d) != 32 {
			t.Fatalf("matched digest %q", s.MatchedDigest())
		}
		again, err := ParseWithPrompts(data, file, &prompts)
		if err != nil {
			t.Fatalf("accepted once, refused the second time: %v", err)
		}
		if !bytes.Equal(again.Canonical(), canonical) {
			t.Fatalf("two parses of the same bytes differ:\n%s\n%s", canonical, again.Canonical())
		}
	})
}
