package history

import "testing"

// BenchmarkDecodeLine is the store's reading of one line as Append writes
// it: history show reads every line of the store.
func BenchmarkDecodeLine(b *testing.B) {
	lines := storeLines(b)
	dec := newEntryDecoder()
	for b.Loop() {
		for _, l := range lines {
			if _, err := dec.decode([]byte(l)); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDecodeLineStrictly is the same through the strict decoder.
func BenchmarkDecodeLineStrictly(b *testing.B) {
	lines := storeLines(b)
	for b.Loop() {
		for _, l := range lines {
			if _, err := decodeStrictly([]byte(l)); err != nil {
				b.Fatal(err)
			}
		}
	}
}
