package records

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/fuzzseed"
)

// FuzzSentPrompts digests any bytes as an inputs.json: an error names the
// file, a digest is of the pinned text algorithm, of at least one prompt,
// and the same bytes always give the same digest.
func FuzzSentPrompts(f *testing.F) {
	for _, data := range fuzzseed.Files(f, "../../testdata/records-inputs/*/*") {
		f.Add(data)
	}
	f.Add([]byte(`{"data": [{"payload": [{"prompt": "a"}, {"messages": [{"role": "user", "content": "b"}]}]}]}`))
	f.Add([]byte(`{"data": [{"payloads": [{"messages": [{"content": "\ud800"}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			return
		}
		d, err := SentPrompts(data, "inputs.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "inputs.json: ") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		if d.Algorithm != digest.TextOrdered || d.Count == 0 {
			t.Fatalf("digest %s", d)
		}
		if again, err := SentPrompts(data, "inputs.json"); err != nil || again != d {
			t.Fatalf("digested twice: %s, then %s %v", d, again, err)
		}
	})
}
