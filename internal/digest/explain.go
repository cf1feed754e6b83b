package digest

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/readonly"
)

// recordsHeader starts a records file; the digest follows on the same line.
const recordsHeader = "abbench-digest-records-v1"

// WriteRecords writes d and its per-prompt records in activation order, one
// "LEN SHA256HEX" line per prompt, after a header line holding the digest.
func WriteRecords(w io.Writer, d Digest, recs []Record) error {
	return WriteRecordSeq(w, d, slices.Values(recs))
}

// WriteRecordSeq is WriteRecords of records that need not be held at
// once (a Cycle's).
func WriteRecordSeq(w io.Writer, d Digest, recs iter.Seq[Record]) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(recordsHeader + " " + d.String() + "\n")
	var line []byte
	for r := range recs {
		line = strconv.AppendUint(line[:0], r.BodyLen(), 10)
		line = append(line, ' ')
		line = hex.AppendEncode(line, r[8:])
		bw.Write(append(line, '\n'))
	}
	return bw.Flush()
}

// ReadRecords reads a file written by WriteRecords, checking that the records
// reproduce the digest in its header.
func ReadRecords(r io.Reader, name string) (Digest, []Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	if !sc.Scan() {
		return Digest{}, nil, &LineError{name, 1, "empty file: not a digest records file"}
	}
	head, ok := strings.CutPrefix(sc.Text(), recordsHeader+" ")
	if !ok {
		return Digest{}, nil, &LineError{name, 1, "not a digest records file: the first line must start with " + recordsHeader}
	}
	d, err := Parse(head)
	if err != nil {
		return Digest{}, nil, &LineError{name, 1, err.Error()}
	}
	b, _ := NewBuilder(d.Algorithm, true)
	for line := 2; sc.Scan(); line++ {
		lenText, sumHex, ok := strings.Cut(sc.Text(), " ")
		n, err1 := strconv.ParseUint(lenText, 10, 64)
		sum, err2 := hex.DecodeString(sumHex)
		if !ok || err1 != nil || err2 != nil || len(sum) != 32 {
			return Digest{}, nil, &LineError{name, line, "want LEN SHA256HEX"}
		}
		var rec Record
		putLen(&rec, int(n))
		copy(rec[8:], sum)
		b.AddRecord(rec)
	}
	if err := sc.Err(); err != nil {
		return Digest{}, nil, fmt.Errorf("reading %s: %w", name, err)
	}
	got, err := b.Sum()
	if err != nil {
		return Digest{}, nil, err
	}
	if got != d {
		return Digest{}, nil, fmt.Errorf("%s: the records give %s, not the digest %s in the header: the file was changed", name, got, d)
	}
	return d, b.Records(), nil
}

// Relation is how two record lists relate.
type Relation string

// The relations Explain distinguishes.
const (
	Equal     Relation = "equal"
	Reordered Relation = "reordered"
	Different Relation = "different"
)

// maxPositions caps the positions an Explanation lists.
const maxPositions = 5

// Explanation says why two digests' records are equal or not.
type Explanation struct {
	Relation Relation `json:"relation"`
	CountA   int      `json:"count_a"`
	CountB   int      `json:"count_b"`
	// FirstDivergence is the first position (0-based) where the orders
	// differ; -1 when equal.
	FirstDivergence int `json:"first_divergence"`
	// OnlyA and OnlyB count prompts (with multiplicity) found in one side only.
	OnlyA int `json:"only_a"`
	OnlyB int `json:"only_b"`
	// OnlyAPositions and OnlyBPositions are the first few such positions.
	OnlyAPositions []int `json:"only_a_positions,omitempty"`
	OnlyBPositions []int `json:"only_b_positions,omitempty"`
	// Multiset says the records are of the multiset algorithm, whose
	// digest does not hash their order: the same prompts in another order
	// are equal.
	Multiset bool `json:"multiset,omitempty"`
}

// Explain compares two record lists, each in activation order.
func Explain(a, b []Record) Explanation {
	e := Explanation{CountA: len(a), CountB: len(b), FirstDivergence: -1}
	for i := 0; i < len(a) || i < len(b); i++ {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			e.FirstDivergence = i
			break
		}
	}
	if e.FirstDivergence < 0 {
		e.Relation = Equal
		return e
	}
	// Multiset difference both ways: a prompt is "only in A" when A holds
	// it more times than B (its surplus occurrences are the last ones).
	left := make(map[Record]int, len(b))
	for _, r := range b {
		left[r]++
	}
	for i, r := range a {
		if left[r] > 0 {
			left[r]--
			continue
		}
		e.OnlyA++
		if len(e.OnlyAPositions) < maxPositions {
			e.OnlyAPositions = append(e.OnlyAPositions, i)
		}
	}
	used := make(map[Record]int, len(a))
	for _, r := range a {
		used[r]++
	}
	for i, r := range b {
		if used[r] > 0 {
			used[r]--
			continue
		}
		e.OnlyB++
		if len(e.OnlyBPositions) < maxPositions {
			e.OnlyBPositions = append(e.OnlyBPositions, i)
		}
	}
	if e.OnlyA == 0 && e.OnlyB == 0 {
		e.Relation = Reordered
	} else {
		e.Relation = Different
	}
	return e
}

// String is a sentence a person can act on.
func (e Explanation) String() string {
	switch {
	case e.Relation == Equal && e.Multiset:
		return fmt.Sprintf("equal: the same %d prompts (a multiset: its order is not hashed)", e.CountA)
	case e.Relation == Equal:
		return fmt.Sprintf("equal: the same %d prompts in the same order", e.CountA)
	case e.Relation == Reordered:
		return fmt.Sprintf("reordered: the same %d prompts in another order; the orders first differ at position %d", e.CountA, e.FirstDivergence)
	}
	return fmt.Sprintf("different content: %s, %s", only("prompts only in A", e.OnlyA, e.CountA, e.OnlyAPositions), only("only in B", e.OnlyB, e.CountB, e.OnlyBPositions))
}

// only says how many of a side's prompts the other lacks, and where the
// first are; "(first at positions none)" where there were none read as
// a position missing. Where there are some, the words are as before
// (evidence written then holds them).
func only(what string, n, count int, at []int) string {
	s := fmt.Sprintf("%d of %d %s", n, count, what)
	if n > 0 && len(at) > 0 {
		s += fmt.Sprintf(" (first at positions %s)", positions(at, n))
	}
	return s
}

func positions(p []int, total int) string {
	if len(p) == 0 {
		return "none"
	}
	s := make([]string, len(p))
	for i, v := range p {
		s[i] = strconv.Itoa(v)
	}
	out := strings.Join(s, ", ")
	if total > len(p) {
		out += ", …"
	}
	return out
}

// WriteRecordsFile writes d's records to path atomically.
func WriteRecordsFile(path string, d Digest, recs []Record) error {
	return WriteRecordSeqFile(path, d, slices.Values(recs))
}

// WriteRecordSeqFile is WriteRecordsFile of records that need not be held
// at once.
func WriteRecordSeqFile(path string, d Digest, recs iter.Seq[Record]) error {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := WriteRecordSeq(f, d, recs); err != nil {
		return err
	}
	return f.Commit()
}

// ReadRecordsFile reads a records file written by WriteRecordsFile.
func ReadRecordsFile(path string) (Digest, []Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return Digest{}, nil, err
	}
	defer readonly.Close(f)
	return ReadRecords(f, path)
}

// FileExplanation is Explain of two records files, with their digests.
type FileExplanation struct {
	A Digest `json:"a"`
	B Digest `json:"b"`
	Explanation
}

// ExplainFiles explains how the prompts of two records files differ. Both
// must use one algorithm: digests are only ever compared within one.
func ExplainFiles(a, b string) (*FileExplanation, error) {
	da, ra, err := ReadRecordsFile(a)
	if err != nil {
		return nil, err
	}
	db, rb, err := ReadRecordsFile(b)
	if err != nil {
		return nil, err
	}
	if da.Algorithm != db.Algorithm {
		return nil, fmt.Errorf("%s uses %s but %s uses %s", a, da.Algorithm, b, db.Algorithm)
	}
	e := Explain(ra, rb)
	if da.Algorithm.Sorted() {
		// The multiset digest hashes no order: a reordering is the same
		// workload, as the two equal digests say.
		e.Multiset = true
		if e.Relation == Reordered {
			e.Relation, e.FirstDivergence = Equal, -1
		}
	}
	return &FileExplanation{A: da, B: db, Explanation: e}, nil
}
