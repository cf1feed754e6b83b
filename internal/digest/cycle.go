package digest

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"iter"
	"slices"
)

// Cycle is a workload's prompts sent in turn, Count of them: the k-th sent
// is Records[k mod len(Records)]. It stands for Count records while
// holding one per distinct prompt, so a run of a million requests over
// 256 prompts holds 256 records, not a million (a load client's sent
// prompts are always such a cycle).
type Cycle struct {
	Records []Record
	Count   uint64
}

// All is the cycle's records in order of sending.
func (c Cycle) All() iter.Seq[Record] {
	return func(yield func(Record) bool) {
		for k := range c.Count {
			if !yield(c.Records[k%uint64(len(c.Records))]) {
				return
			}
		}
	}
}

// Sum is the digest of the cycle's records under alg: in order of
// sending, or for a sorted algorithm as the multiset, each distinct
// prompt's record taken as many times as it was sent; the same digest as
// a Builder's of every record, without holding them.
func (c Cycle) Sum(alg Algorithm) (Digest, error) {
	if _, err := ParseAlgorithm(string(alg)); err != nil {
		return Digest{}, err
	}
	h := newHash(alg, c.Count)
	// The records go to the hash some thousands of bytes at a time: a
	// Write of each (a million for a million requests) was most of a
	// load run's work once its requests had ended.
	w := bufio.NewWriterSize(h, 8<<10)
	n := uint64(len(c.Records))
	if !alg.Sorted() {
		for k := range c.Count {
			w.Write(c.Records[k%n][:])
		}
	} else {
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(x, y int) int { return bytes.Compare(c.Records[x][:], c.Records[y][:]) })
		for _, i := range order {
			// Records[i] is sent at k = i, i+n, ... below Count.
			times := c.Count / n
			if uint64(i) < c.Count%n {
				times++
			}
			for range times {
				w.Write(c.Records[i][:])
			}
		}
	}
	_ = w.Flush() // a hash's Write never fails
	return Digest{Algorithm: alg, Count: c.Count, Hex: hex.EncodeToString(h.Sum(nil))}, nil
}
