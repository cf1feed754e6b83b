package arms

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The follower sees every line from its offset once, whatever the chunk
// boundaries, the unfinished last line as it stands, and skips a line too
// long to hold; it never reads a byte twice.
func TestFollowerReadsForwardOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.log")
	os.WriteFile(path, []byte("mode=9 before the offset\n"), 0o644)
	fi, _ := os.Stat(path)
	f := newFollower(path, fi.Size(), regexp.MustCompile(`mode=(\d)`))
	buf := make([]byte, 7) // smaller than a line: lines span reads
	appendLog := func(s string) {
		file, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		file.WriteString(s)
		file.Close()
	}
	if f.poll(buf) {
		t.Fatal("matched a line before the offset")
	}
	appendLog("starting\nmode=")
	if f.poll(buf) {
		t.Fatal("matched an incomplete mode line")
	}
	appendLog("1 ready\nnoise\n")
	if !f.poll(buf) || f.last[1] != "1" {
		t.Fatalf("last %v", f.last)
	}
	appendLog("mode=2 unfinished")
	if !f.poll(buf) || f.last[1] != "2" {
		t.Fatalf("the unfinished last line: last %v", f.last)
	}
	appendLog(" now\n" + strings.Repeat("x", maxFollowedLine+10) + " mode=7\nmode=3\n")
	if !f.poll(buf) || f.last[1] != "3" {
		t.Fatalf("after a long line: last %v", f.last)
	}
	size, _ := os.Stat(path)
	if f.next != size.Size() || len(f.partial) != 0 || cap(f.partial) > 2*maxFollowedLine {
		t.Fatalf("read to %d of %d, holding %d bytes (cap %d)", f.next, size.Size(), len(f.partial), cap(f.partial))
	}
}

func TestLastLineReadsTheTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.log")
	os.WriteFile(path, []byte(strings.Repeat("filler line\n", 100000)+"the end\n\n"), 0o644)
	if got := lastLine(path); got != `"the end"` {
		t.Fatalf("%s", got)
	}
	if got := lastLine(filepath.Join(t.TempDir(), "none")); got != `""` {
		t.Fatalf("%s", got)
	}
}
