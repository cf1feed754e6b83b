package digest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/abbench/abbench/internal/readonly"
)

// RecordSize is the size of a per-prompt record: u64be(len(body)) || SHA-256(body).
const RecordSize = 8 + sha256.Size

// Record is the per-prompt record R_i of the specification.
type Record [RecordSize]byte

// RecordOf computes the record of one prompt body.
func RecordOf(body []byte) Record {
	var r Record
	binary.BigEndian.PutUint64(r[:8], uint64(len(body)))
	sum := sha256.Sum256(body)
	copy(r[8:], sum[:])
	return r
}

// BodyLen is the byte length of the prompt body the record stands for.
func (r Record) BodyLen() uint64 { return binary.BigEndian.Uint64(r[:8]) }

// String renders the record as "LEN SHA256HEX".
func (r Record) String() string {
	return fmt.Sprintf("%d %s", r.BodyLen(), hex.EncodeToString(r[8:]))
}

// AppendTokens appends the body encoding of token IDs (4 bytes big-endian each).
func AppendTokens(dst []byte, tokens []uint32) []byte {
	for _, t := range tokens {
		dst = binary.BigEndian.AppendUint32(dst, t)
	}
	return dst
}

// spillAfter is how many records a Builder holds in memory before it spills
// them to a temporary file: 256 Ki records are 10 MiB.
const spillAfter = 256 << 10

// Builder computes a digest one prompt at a time, in activation order.
//
// The specification hashes the count before the records, so records must be
// held until Sum. A Builder keeps at most spillAfter of them in memory and
// spills the rest to a temporary file, unless records are kept for Records
// or the algorithm is sorted, in which case all are held (40 bytes each).
type Builder struct {
	alg     Algorithm
	keep    bool // hold every record in memory
	want    bool // records were asked for, in the order added
	n       uint64
	mem     []Record
	spill   *os.File
	spillW  *bufio.Writer
	scratch []byte
	err     error
}

// NewBuilder starts a digest of algorithm alg. With keepRecords, Records
// returns every prompt's record after Sum (for Explain).
func NewBuilder(alg Algorithm, keepRecords bool) (*Builder, error) {
	if _, err := ParseAlgorithm(string(alg)); err != nil {
		return nil, err
	}
	return &Builder{alg: alg, keep: keepRecords || alg.Sorted(), want: keepRecords}, nil
}

// AddTokens adds a token prompt. It panics if the algorithm hashes text.
func (b *Builder) AddTokens(tokens []uint32) {
	if b.alg.Unit() != UnitTokens {
		panic("digest: AddTokens on a text algorithm")
	}
	b.scratch = AppendTokens(b.scratch[:0], tokens)
	b.AddRecord(RecordOf(b.scratch))
}

// AddText adds a text prompt. Invalid UTF-8 is an error and adds nothing.
func (b *Builder) AddText(text string) error {
	if b.alg.Unit() != UnitText {
		return fmt.Errorf("digest: text prompt given to token algorithm %s", b.alg)
	}
	if !utf8.ValidString(text) {
		return errors.New("prompt text is not valid UTF-8")
	}
	b.AddRecord(RecordOf([]byte(text)))
	return nil
}

// AddRecord adds a prompt by its precomputed record.
func (b *Builder) AddRecord(r Record) {
	b.n++
	if b.keep || len(b.mem) < spillAfter {
		b.mem = append(b.mem, r)
		return
	}
	if b.err != nil {
		return
	}
	if b.spill == nil {
		f, err := os.CreateTemp("", "abbench-digest-*")
		if err != nil {
			b.err = fmt.Errorf("spilling digest records: %w", err)
			return
		}
		// Unlinked at once: nothing outlives the process, whatever happens.
		if err := os.Remove(f.Name()); err != nil {
			_ = f.Close()
			b.err = fmt.Errorf("spilling digest records: %w", err)
			return
		}
		b.spill, b.spillW = f, bufio.NewWriterSize(f, 1<<20)
	}
	if _, err := b.spillW.Write(r[:]); err != nil {
		b.err = fmt.Errorf("spilling digest records: %w", err)
	}
}

// Sum returns the digest of every prompt added. The builder must not be used after.
func (b *Builder) Sum() (Digest, error) {
	if b.err != nil {
		return Digest{}, b.err
	}
	h := newHash(b.alg, b.n)
	recs := b.mem
	if b.alg.Sorted() {
		if b.want {
			recs = slices.Clone(recs)
		}
		slices.SortFunc(recs, func(x, y Record) int { return bytes.Compare(x[:], y[:]) })
	}
	for i := range recs {
		h.Write(recs[i][:])
	}
	if b.spill != nil {
		defer readonly.Close(b.spill) // unlinked, read back below: its close loses nothing
		if err := b.spillW.Flush(); err != nil {
			return Digest{}, fmt.Errorf("spilling digest records: %w", err)
		}
		if _, err := b.spill.Seek(0, io.SeekStart); err != nil {
			return Digest{}, err
		}
		if _, err := io.Copy(h, bufio.NewReaderSize(b.spill, 1<<20)); err != nil {
			return Digest{}, fmt.Errorf("reading spilled digest records: %w", err)
		}
	}
	return Digest{Algorithm: b.alg, Count: b.n, Hex: hex.EncodeToString(h.Sum(nil))}, nil
}

// newHash starts the specification's hash of n records under alg: the
// algorithm's name and the count come before the records.
func newHash(alg Algorithm, n uint64) hash.Hash {
	h := sha256.New()
	h.Write([]byte(alg))
	h.Write([]byte{'\n'})
	var c [8]byte
	binary.BigEndian.PutUint64(c[:], n)
	h.Write(c[:])
	return h
}

// Records returns the records in the order added. It is nil unless the
// builder was asked to keep records.
func (b *Builder) Records() []Record {
	if !b.want {
		return nil
	}
	return b.mem
}
