package container

import (
	"strings"
	"testing"
)

// TestCappedKeepsItsFirstBytes: what a program says on its error output
// is kept up to the cap, the rest dropped while every write succeeds
// (the program is never stopped by it).
func TestCappedKeepsItsFirstBytes(t *testing.T) {
	var b strings.Builder
	w := Capped(&b, 5)
	for _, p := range []string{"abc", "defg", "hij"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if b.String() != "abcde" {
		t.Errorf("kept %q, want %q", b.String(), "abcde")
	}
}
