package lockedbuf

import (
	"strings"
	"sync"
	"testing"
)

// Writers and a reader at once (run with -race): every write is kept
// whole, and a read while they write sees a prefix of whole writes.
func TestWritesWhileReading(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				if _, err := b.Write([]byte("ab\n")); err != nil {
					t.Error(err)
				}
			}
		})
	}
	for range 50 {
		if s := b.String(); strings.Count(s, "ab\n")*3 != len(s) {
			t.Fatalf("a read while writing saw a torn write: %q", s)
		}
	}
	wg.Wait()
	if got := strings.Count(b.String(), "ab\n"); got != 400 {
		t.Errorf("%d writes kept, want 400", got)
	}
}
