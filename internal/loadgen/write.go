package loadgen

import (
	"bufio"
	"errors"
	"io"
	"time"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/digest"
)

// Files are where a run's results go; an empty name writes nothing.
type Files struct {
	// Record is the result in vLLM's shape (Result.Record).
	Record string
	// PerRequest is one JSON line per scheduled request, in order of sending.
	PerRequest string
	// Sent is the digest records of the prompts sent, in order of sending
	// (abbench digest --records format, the unit's ordered algorithm).
	Sent string
	// SentMultiset is the same records under the multiset algorithm
	// (token prompts only), for comparing with a server that hashes the
	// prompts it served as a multiset.
	SentMultiset string
	// Warmup is the digest records of the warm-up requests' prompts.
	Warmup string
	// Cycle is the digest records of a duration run's prompts once, the
	// cycle its requests go through (Result.Cycle).
	Cycle string
}

// Write writes every file of fs, each atomically: a file is whole or
// absent, never partly written.
func (r *Result) Write(fs Files) error {
	var errs []error
	if fs.Record != "" {
		errs = append(errs, r.writeFile(fs.Record, func(w *bufio.Writer) error { return r.writeRecord(w, time.Now()) }))
	}
	if fs.PerRequest != "" {
		errs = append(errs, r.writePerRequest(fs.PerRequest))
	}
	if fs.Sent != "" && r.Sent != nil {
		errs = append(errs, digest.WriteRecordSeqFile(fs.Sent, *r.Sent, r.SentRecords.All()))
	}
	if fs.SentMultiset != "" {
		if r.SentMultiset == nil {
			errs = append(errs, errors.New("a multiset digest of text prompts: no pinned algorithm hashes text as a multiset (digest --explain compares the ordered records, and tells a reordering from other content)"))
		} else {
			errs = append(errs, digest.WriteRecordSeqFile(fs.SentMultiset, *r.SentMultiset, r.SentRecords.All()))
		}
	}
	if fs.Cycle != "" && r.Cycle != nil {
		errs = append(errs, digest.WriteRecordsFile(fs.Cycle, *r.Cycle, r.CycleRecords))
	}
	if fs.Warmup != "" && r.WarmupSent != nil {
		errs = append(errs, digest.WriteRecordSeqFile(fs.Warmup, *r.WarmupSent, r.WarmupRecords.All()))
	}
	return errors.Join(errs...)
}

// writePerRequest puts the lines the run wrote as its requests ended at
// path: the file they went to (Options.PerRequest), or a copy.
func (r *Result) writePerRequest(path string) error {
	return r.tally().writeLines(path, func(lines io.Reader) error {
		return r.writeFile(path, func(w *bufio.Writer) error {
			if _, err := io.Copy(w, lines); err != nil {
				return err
			}
			return w.Flush()
		})
	})
}

// writeFile writes path atomically with write: whole, or not at all.
func (r *Result) writeFile(path string, write func(*bufio.Writer) error) error {
	f, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(bufio.NewWriterSize(f, 256<<10)); err != nil {
		return err
	}
	return f.Commit()
}
