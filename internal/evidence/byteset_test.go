package evidence

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// indexAnyRef is the first place at or after from in block of any byte of
// set, a byte at a time.
func indexAnyRef(block []byte, from int, set []byte) int {
	for i := from; i < len(block); i++ {
		if bytes.IndexByte(set, block[i]) >= 0 {
			return i
		}
	}
	return -1
}

// searchWide makes the sets searched from now until tb's end wide (where
// the machine can) or byte by byte.
func searchWide(tb testing.TB, wide bool) {
	old := wideSearch
	tb.Cleanup(func() { wideSearch = old })
	wideSearch = func(set []byte) bool { return wide && haveAVX2 && nibbleSet(set) }
}

// checkByteSet walks block from each place found to the next, with the
// wide and the pure-Go search, against the reference.
func checkByteSet(t *testing.T, block, set []byte) {
	t.Helper()
	for _, wide := range []bool{false, true} {
		searchWide(t, wide)
		s := newByteSet(set)
		s.reset(block)
		for from := 0; from <= len(block); {
			got, want := s.index(from), indexAnyRef(block, from, set)
			if got != want {
				t.Fatalf("wide %v (AVX2 %v), set %q, from %d of %d bytes: %d, want %d", s.wide, haveAVX2, set, from, len(block), got, want)
			}
			if got < 0 {
				break
			}
			from = got + 1 + int(block[got])%3 // skip some places, as a line's end does
		}
	}
}

// Every place of a set's bytes is found, in order, at every length and
// alignment around the 32- and 64-byte steps and their overlapping end.
func TestByteSetFindsEveryPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		for _, density := range []int{2, 40, 1000} {
			block := make([]byte, n+rng.IntN(3))
			for i := range block {
				block[i] = 'a' + byte(rng.IntN(20))
				if rng.IntN(density) == 0 {
					block[i] = "mqy\x00"[rng.IntN(4)]
				}
			}
			block = block[rng.IntN(3):] // misaligned starts
			for _, set := range []string{"m", "mq", "mqy", "mqy\x00", "mqy\x00a", "mqya\x80", "aq"} {
				checkByteSet(t, block, []byte(set))
			}
		}
	}
}

// FuzzByteSet holds the one-pass search of a set of bytes, with AVX2 and
// without, to a byte-at-a-time reading.
func FuzzByteSet(f *testing.F) {
	f.Add(bytes.Repeat([]byte("abcdefgm"), 20), []byte("mq"))
	f.Add([]byte("q"), []byte("qqqq"))
	f.Fuzz(func(t *testing.T, block, set []byte) {
		if len(set) == 0 || len(set) > 6 || len(block) > 4<<10 {
			return
		}
		checkByteSet(t, block, set)
	})
}

// BenchmarkByteSet walks every place of a serving log's three anchor bytes
// in a block, with AVX2 in one pass and with IndexByte a pass per byte.
func BenchmarkByteSet(b *testing.B) {
	block := bytes.Repeat(servingSample(), 4)
	for _, wide := range []bool{true, false} {
		b.Run(map[bool]string{true: "one-pass", false: "pass-per-byte"}[wide], func(b *testing.B) {
			searchWide(b, wide)
			s := newByteSet([]byte("mqy"))
			b.SetBytes(int64(len(block)))
			stops := 0
			for b.Loop() {
				s.reset(block)
				for i := s.index(0); i >= 0; i = s.index(i + 1) {
					stops++
				}
			}
			b.ReportMetric(float64(stops)/float64(b.N), "stops/op")
		})
	}
}
