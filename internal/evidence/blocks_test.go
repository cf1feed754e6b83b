package evidence

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// readBlocksOf runs a blockReader over data with a buffer of size and
// lines of at most max bytes, stopping after stop blocks (0: never), and
// lists each block with its offset.
func readBlocksOf(data string, size, max, stop int) ([]string, int64, error) {
	var got []string
	b := blockReader{src: strings.NewReader(data), buf: make([]byte, size), max: max}
	b.fn = func(block []byte, off int64) bool {
		got = append(got, fmt.Sprintf("%d:%s", off, block))
		return stop == 0 || len(got) < stop
	}
	err := b.run()
	return got, b.n, err
}

// A line longer than max is cut to its first max bytes and the rest of it
// dropped; the blocks around it keep their file offsets.
func TestBlockReaderCutsLongLines(t *testing.T) {
	const data = "ab\n0123456789abc\nxy"
	got, n, err := readBlocksOf(data, 4, 8, 0)
	if want := []string{"0:ab\n", "3:01234567", "17:xy"}; err != nil || !slices.Equal(got, want) || n != int64(len(data)) {
		t.Fatalf("blocks %q, %d bytes read (%v), want %q", got, n, err, want)
	}
	// A cut line that ends exactly at a read, and one that never ends.
	got, _, _ = readBlocksOf("01234567\nab\n", 8, 8, 0)
	if want := []string{"0:01234567", "9:ab\n"}; !slices.Equal(got, want) {
		t.Fatalf("blocks %q, want %q", got, want)
	}
	got, _, _ = readBlocksOf("0123456789abcdefghij", 4, 8, 0)
	if want := []string{"0:01234567"}; !slices.Equal(got, want) {
		t.Fatalf("blocks %q, want %q", got, want)
	}
}

// Lines no longer than max come whole, the buffer growing to hold them.
func TestBlockReaderGrowsToWholeLines(t *testing.T) {
	got, _, _ := readBlocksOf("a\n012345\nb", 2, 8, 0)
	if joined := strings.Join(got, "|"); joined != "0:a\n|2:012345\n|9:b" {
		t.Fatalf("blocks %q", got)
	}
}

// fn returning false stops the reading at once.
func TestBlockReaderStops(t *testing.T) {
	got, n, err := readBlocksOf("a\nb\nc\nd\n", 2, 8, 1)
	if err != nil || len(got) != 1 || n >= 8 {
		t.Fatalf("blocks %q, %d bytes read (%v)", got, n, err)
	}
}
