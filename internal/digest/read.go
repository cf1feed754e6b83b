package digest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"

	"github.com/abbench/abbench/internal/readonly"
)

// LineError is an error in a prompts file, printed as FILE:LINE: message.
type LineError struct {
	File string
	Line int
	Msg  string
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ReadOptions selects how a prompts file is digested.
type ReadOptions struct {
	// Algorithm to use; empty picks DefaultFor the file's unit.
	Algorithm Algorithm
	// Field names the object field holding the prompt. Empty means
	// prompt_token_ids, then prompt.
	Field string
	// KeepRecords keeps every prompt's record (40 bytes each) for Explain.
	KeepRecords bool
	// Workers parsing in parallel; 0 means GOMAXPROCS. The digest does not
	// depend on it.
	Workers int
}

// FileDigest is the digest of a prompts file.
type FileDigest struct {
	Digest  Digest
	Unit    Unit
	Records []Record // only with ReadOptions.KeepRecords
}

// ReadFile digests the prompts file at path.
func ReadFile(path string, opts ReadOptions) (FileDigest, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileDigest{}, err
	}
	defer readonly.Close(f)
	return Read(f, path, opts)
}

// chunkSize is a variable so tests can force many chunks.
var chunkSize = 1 << 20

// maxInflight bounds the bytes read but not yet folded in, whatever the
// core count: 2 chunks per worker made the peak memory grow with cores
// (265 MiB on 32), and 16 chunks of 1 MiB parsed at once outrun one
// SHA-256 stream several times over.
const maxInflight = 16 << 20

type chunk struct {
	seq  int
	data []byte
}

type chunkResult struct {
	seq       int
	records   []Record
	lines     int  // newlines in the chunk
	unit      Unit // unit of the chunk's first prompt
	unitLine  int  // chunk-relative line of that prompt (1-based)
	errLine   int  // chunk-relative line of the first error, 0 if none
	errMsg    string
	mixedUnit Unit // when the error is a mix of units, the unit found
}

// Read digests a prompts file read from r; name is used in errors.
//
// The file is cut at line boundaries into chunks that the workers parse in
// parallel; results are put back in file order, so the digest is the same
// whatever the split.
func Read(r io.Reader, name string, opts ReadOptions) (FileDigest, error) {
	if opts.Algorithm != "" {
		if _, err := ParseAlgorithm(string(opts.Algorithm)); err != nil {
			return FileDigest{}, err
		}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := startParsing(r, opts.Field, workers)
	f := &folder{name: name, opts: opts}
	if err := p.inOrder(f.fold); err != nil {
		return FileDigest{}, err
	}
	if p.readErr != nil {
		return FileDigest{}, fmt.Errorf("reading %s: %w", name, p.readErr)
	}
	return f.sum()
}

// parsing is a prompts file on its way through the workers: cut into
// chunks by one reader, parsed in parallel, the results in any order.
type parsing struct {
	results  chan chunkResult
	inflight chan struct{} // bounds memory: chunks read but not yet folded in
	stop     chan struct{} // closed to stop the reader
	// readErr is the reader's error, set before results is closed.
	readErr error
}

// startParsing starts the reader of r and workers parsing its chunks.
func startParsing(r io.Reader, field string, workers int) *parsing {
	p := &parsing{
		results:  make(chan chunkResult, workers),
		inflight: make(chan struct{}, max(2, min(2*workers, maxInflight/chunkSize))),
		stop:     make(chan struct{}),
	}
	jobs := make(chan chunk)
	pool := &sync.Pool{New: func() any { b := make([]byte, 0, chunkSize+64<<10); return &b }}
	go func() {
		defer close(jobs)
		p.readErr = splitChunks(r, pool, func(c chunk) bool {
			select {
			case p.inflight <- struct{}{}:
			case <-p.stop:
				return false
			}
			jobs <- c
			return true
		})
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var body []byte
			for c := range jobs {
				res := parseChunk(c, field, &body)
				buf := c.data[:0]
				pool.Put(&buf) // a pointer: a slice in an interface would allocate
				p.results <- res
			}
		}()
	}
	go func() { wg.Wait(); close(p.results) }()
	return p
}

// inOrder hands every result to fold in file order. At fold's first error
// it stops the reader, drains the workers, and returns that error.
func (p *parsing) inOrder(fold func(chunkResult) error) error {
	var firstErr error
	next := 0
	pending := map[int]chunkResult{}
	for res := range p.results {
		if firstErr != nil {
			continue // drain
		}
		pending[res.seq] = res
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-p.inflight
			if err := fold(r); err != nil {
				firstErr = err
				close(p.stop)
				break
			}
		}
	}
	return firstErr
}

// folder folds parsed chunks, in file order, into one digest: the first
// prompt's unit picks the algorithm, and every later prompt must be of it.
type folder struct {
	name     string
	opts     ReadOptions
	fd       FileDigest
	b        *Builder
	line     int // lines before the next chunk
	unitLine int // the line of the first prompt
}

func (f *folder) fold(res chunkResult) error {
	defer func() { f.line += res.lines }()
	if err := f.unitOf(res); err != nil {
		return err
	}
	for _, rec := range res.records {
		f.b.AddRecord(rec)
	}
	if res.errLine != 0 {
		if res.mixedUnit != UnitNone {
			return mixErr(f.name, f.line+res.errLine, res.mixedUnit, f.fd.Unit, f.unitLine)
		}
		return &LineError{f.name, f.line + res.errLine, res.errMsg}
	}
	return nil
}

// unitOf takes the unit of a chunk's first prompt: the file's first one
// starts the builder, any other must be the file's.
func (f *folder) unitOf(res chunkResult) error {
	switch {
	case res.unit == UnitNone:
		return nil
	case f.fd.Unit != UnitNone:
		if res.unit != f.fd.Unit {
			return mixErr(f.name, f.line+res.unitLine, res.unit, f.fd.Unit, f.unitLine)
		}
		return nil
	}
	f.fd.Unit, f.unitLine = res.unit, f.line+res.unitLine
	alg := f.opts.Algorithm
	if alg == "" {
		alg = DefaultFor(f.fd.Unit)
	} else if alg.Unit() != f.fd.Unit {
		return &LineError{f.name, f.unitLine, fmt.Sprintf("%s prompt, but algorithm %s hashes %s", f.fd.Unit, alg, alg.Unit())}
	}
	var err error
	f.b, err = NewBuilder(alg, f.opts.KeepRecords)
	return err
}

// sum is the digest of everything folded (of no prompt, when the file
// held none).
func (f *folder) sum() (FileDigest, error) {
	if f.b == nil {
		alg := f.opts.Algorithm
		if alg == "" {
			alg = TokensOrdered
		}
		f.b, _ = NewBuilder(alg, f.opts.KeepRecords)
	}
	d, err := f.b.Sum()
	if err != nil {
		return FileDigest{}, err
	}
	fd := f.fd
	fd.Digest, fd.Records = d, f.b.Records()
	if fd.Records == nil && f.opts.KeepRecords {
		fd.Records = []Record{}
	}
	return fd, nil
}

func mixErr(name string, line int, got, want Unit, wantLine int) error {
	return &LineError{name, line, fmt.Sprintf("%s prompt in a file of %s prompts (line %d): a file must not mix token and text prompts", got, want, wantLine)}
}

// splitChunks reads r and calls emit with chunks that end at a newline (the
// last one may not). A line longer than a chunk grows the chunk.
func splitChunks(r io.Reader, pool *sync.Pool, emit func(chunk) bool) error {
	var carry []byte
	seq := 0
	for {
		buf := (*pool.Get().(*[]byte))[:0]
		buf = append(buf, carry...)
		eof := false
		for !eof {
			if len(buf) == cap(buf) {
				buf = append(buf, 0)[:len(buf)]
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if errors.Is(err, io.EOF) {
				eof = true
			} else if err != nil {
				return err
			}
			if len(buf) >= chunkSize && bytes.IndexByte(buf[len(buf)-n:], '\n') >= 0 {
				break
			}
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[cut:]...)
		if cut > 0 || eof {
			if !emit(chunk{seq: seq, data: buf[:cut]}) {
				return nil
			}
			seq++
		}
		if eof {
			return nil
		}
	}
}

func parseChunk(c chunk, field string, body *[]byte) chunkResult {
	res := chunkResult{seq: c.seq}
	data := c.data
	res.records = make([]Record, 0, 64)
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
			res.lines++
		} else {
			line, data = data, nil
		}
		unit, out, msg := parseLine(line, field, (*body)[:0])
		*body = out
		if msg != "" {
			res.errLine, res.errMsg = lineNo, msg
			return res
		}
		if unit == UnitNone {
			continue
		}
		if res.unit == UnitNone {
			res.unit, res.unitLine = unit, lineNo
		} else if unit != res.unit {
			res.errLine, res.mixedUnit = lineNo, unit
			return res
		}
		var rec Record
		putLen(&rec, len(out))
		sum := sha256.Sum256(out)
		copy(rec[8:], sum[:])
		res.records = append(res.records, rec)
	}
	return res
}

func putLen(r *Record, n int) {
	v := uint64(n)
	for i := 7; i >= 0; i-- {
		r[i] = byte(v)
		v >>= 8
	}
}
