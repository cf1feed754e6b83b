package textout

import (
	"errors"
	"strings"
	"testing"
)

// failAfter accepts n writes, then fails every one.
type failAfter struct {
	n   int
	got strings.Builder
}

var errFull = errors.New("no space left on device")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errFull
	}
	f.n--
	return f.got.Write(p)
}

// The first failure is kept and nothing is written after it, also when a
// later write would have worked.
func TestFirstErrorIsKept(t *testing.T) {
	f := &failAfter{n: 1}
	w := New(f)
	w.Printf("one %d\n", 1)
	w.Println("two")
	f.n = 5
	w.Println("three")
	if _, err := w.Write([]byte("four\n")); !errors.Is(err, errFull) {
		t.Fatalf("Write after a failure: %v", err)
	}
	if !errors.Is(w.Err(), errFull) || f.got.String() != "one 1\n" {
		t.Fatalf("Err %v, written %q", w.Err(), f.got.String())
	}
	ok := New(&failAfter{n: 3})
	ok.Println("a")
	if ok.Err() != nil {
		t.Fatal(ok.Err())
	}
}
