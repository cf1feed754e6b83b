//go:build linux || darwin || freebsd

package evidence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type lineAt struct {
	off  int64
	line string
}

// linesOf are the lines fn is handed over in blocks, with their offsets.
func linesOf(out *[]lineAt) func(block []byte, off int64) bool {
	return func(block []byte, off int64) bool {
		eachLine(block, off, func(l []byte, off int64) { *out = append(*out, lineAt{off, string(l)}) })
		return true
	}
}

// TestMappedReadsAsBlockReader holds the mapped reader to the buffered
// one: the same lines at the same offsets and the same byte count, over
// windows that cut lines anywhere, lines longer than a window, lines cut at
// the longest handed over whole, and files with and without a last newline.
func TestMappedReadsAsBlockReader(t *testing.T) {
	page := int64(os.Getpagesize())
	window, longest := page, 5*page+7
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		var b bytes.Buffer
		for b.Len() < int(12*page) {
			n := rng.IntN(200)
			switch rng.IntN(20) {
			case 0:
				n = int(window) + rng.IntN(int(window)) // longer than a window
			case 1:
				n = int(longest) - 1 + rng.IntN(3) // about the longest whole line
			case 2:
				n = int(longest) + rng.IntN(int(2*window)) // cut
			}
			fmt.Fprintf(&b, "%d %s\n", trial, strings.Repeat("x", n))
		}
		data := b.Bytes()
		if trial%2 == 1 {
			data = data[:len(data)-1-rng.IntN(300)] // no last newline
		}
		path := filepath.Join(t.TempDir(), "log")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		off := int64(rng.IntN(int(page) * 2))
		var want, got []lineAt
		f, _ := os.Open(path)
		f.Seek(off, 0)
		br := blockReader{src: f, fn: linesOf(&want), buf: make([]byte, 1024), max: int(longest), off: off}
		if err := br.run(); err != nil {
			t.Fatal(err)
		}
		m := mappedReader{fd: int(f.Fd()), size: int64(len(data)), fn: linesOf(&got), page: page, window: window, max: longest}
		first, err := m.mapAt(off, window)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.run(off, first); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if m.n != br.n || len(got) != len(want) {
			t.Fatalf("trial %d from %d: mapped %d bytes, %d lines; buffered %d bytes, %d lines", trial, off, m.n, len(got), br.n, len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("trial %d line %d: mapped %d (%d bytes), buffered %d (%d bytes)", trial, i, got[i].off, len(got[i].line), want[i].off, len(want[i].line))
			}
		}
	}
}

// TestMappedLogCutShort: a log truncated while it is mapped faults where
// its pages were; the scope is stale, and the reader does not crash.
func TestMappedLogCutShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ctx-0.log")
	if err := os.WriteFile(path, bytes.Repeat([]byte("INFO step=1 running=32\n"), 4<<20/23), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	var seen int
	_, ok, err := readMapped(f, 0, func(block []byte, off int64) bool {
		if off == 0 {
			os.Truncate(path, 0)
		}
		seen += bytes.Count(block, []byte{'\n'})
		return true
	})
	var stale *StaleError
	if !ok || !errors.As(err, &stale) || !strings.Contains(stale.Why, "cut short") {
		t.Fatalf("mapped %v, error %v; want a stale scope", ok, err)
	}
}

// TestCollectMapped: the facts and bytes read of a collect through mapped
// windows (small ones, so lines cross them) are those of buffered reading,
// in one part or several.
func TestCollectMapped(t *testing.T) {
	y := strings.Replace(scenarioYAML, "  counters:\n", "  counters:\n    votes: {role: ctx, pattern: 'vote rank=(?P<rank>\\d+) id=\\d+'}\n", 1)
	log := func(rank int) string { return votingLog(rank, "", [4]int{100, 3000, 50, 20}) }
	r := goodRun()
	r.yaml = y
	r.logs = map[string]string{"ctx-0.log": log(0), "ctx-1.log": log(1)}
	facts := func(e *Evidence, withBytes bool) string {
		var out []string
		for _, f := range e.Ranks {
			if !withBytes {
				f.BytesRead = 0
			}
			data, _ := json.Marshal(f)
			out = append(out, string(data))
		}
		return strings.Join(out, "\n") + fmt.Sprint(e.Accepted, e.Reasons)
	}
	oldMin, oldWindow, oldPart, oldParts := minMapped, mapWindow, minPart, partsPerScope
	defer func() { minMapped, mapWindow, minPart, partsPerScope = oldMin, oldWindow, oldPart, oldParts }()
	partsPerScope = func(int) int { return 1 }
	minMapped = 1 << 40
	want := facts(r.collect(t), true)
	if !strings.Contains(want, `"votes":610`) {
		t.Fatalf("the buffered facts lack the votes: %s", want)
	}
	minMapped, mapWindow = 1, int64(os.Getpagesize())
	if got := facts(r.collect(t), true); got != want {
		t.Fatalf("mapped:\n%s\nwant (buffered):\n%s", got, want)
	}
	want = facts(r.collect(t), false)
	for parts := 2; parts <= 4; parts++ {
		minPart, partsPerScope = 4096, func(int) int { return parts }
		if got := facts(r.collect(t), false); got != want {
			t.Fatalf("mapped in %d parts:\n%s\nwant:\n%s", parts, got, want)
		}
	}
}
