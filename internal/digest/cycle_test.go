package digest

import (
	"bytes"
	"strconv"
	"testing"
)

// TestCycleIsTheBuildersDigest: a cycle's digest, ordered and as a
// multiset, and its records file, are those of every record it stands
// for, added one by one: for counts below, at and past whole rounds,
// and past the bytes the hash is written at a time.
func TestCycleIsTheBuildersDigest(t *testing.T) {
	recs := make([]Record, 5)
	for i := range recs {
		recs[i] = RecordOf(AppendTokens(nil, []uint32{uint32(7 - i), 1, 2})) // not in sorted order
	}
	recs[3] = recs[1] // a prompt twice in the cycle
	for _, count := range []uint64{0, 1, 3, 5, 12, 15, 1000, 3333} {
		c := Cycle{Records: recs, Count: count}
		var all []Record
		for r := range c.All() {
			all = append(all, r)
		}
		if uint64(len(all)) != count || count > 0 && all[count-1] != recs[(count-1)%5] {
			t.Fatalf("count %d: All gave %d records", count, len(all))
		}
		for _, alg := range []Algorithm{TokensOrdered, TokensSorted} {
			b, _ := NewBuilder(alg, false)
			for _, r := range all {
				b.AddRecord(r)
			}
			want, _ := b.Sum()
			got, err := c.Sum(alg)
			if err != nil || got != want {
				t.Fatalf("count %d %s: %v %v, want %v", count, alg, got, err, want)
			}
			var seq, whole bytes.Buffer
			if err := WriteRecordSeq(&seq, got, c.All()); err != nil {
				t.Fatal(err)
			}
			_ = WriteRecords(&whole, got, all)
			if seq.String() != whole.String() {
				t.Fatalf("count %d: records file differs", count)
			}
			if _, back, err := ReadRecords(&seq, "c"+strconv.Itoa(int(count))); err != nil || len(back) != int(count) {
				t.Fatalf("count %d: read back %d records, %v", count, len(back), err)
			}
		}
	}
}
