package loadgen

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/abbench/abbench/internal/atomicfile"
)

// spool is bytes written as a run goes and read back whole when its
// files are written: what the run's files say of each request, kept out
// of memory. A run's spools are files removed as soon as they are made
// (the open file is all that holds them, so nothing is left behind
// whatever ends the process); a result made of outcomes in memory
// spools in memory.
type spool struct {
	dir string
	// af, when the spool is a file of the run's own (the per-request
	// file, streamed), is it before it is committed; committed, once it is.
	af        *atomicfile.File
	committed bool
	path      string
	f         *os.File // nil: mem holds the bytes
	mem       bytes.Buffer
	w         *bufio.Writer
	size      int64
}

// SpoolError is a spool the run could not make in Dir ("": the system's
// temporary directory), or could not write or read back there.
type SpoolError struct {
	Dir string
	Err error
}

func (e *SpoolError) Error() string {
	dir := e.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	return fmt.Sprintf("the run's spool in %s (where it keeps what its files say of each request as it goes): %v", dir, e.Err)
}

func (e *SpoolError) Unwrap() error { return e.Err }

// newSpool makes a spool in dir ("": the system's temporary directory),
// or in memory when inMemory.
func newSpool(dir string, inMemory bool) (*spool, error) {
	s := &spool{dir: dir}
	if inMemory {
		s.w = bufio.NewWriterSize(&s.mem, 4<<10)
		return s, nil
	}
	f, err := os.CreateTemp(dir, ".abbench-load-*")
	if err != nil {
		return nil, &SpoolError{Dir: dir, Err: err}
	}
	// Removed at once: the descriptor keeps it until the result is gone.
	// Where a system cannot remove an open file it stays, named as ours.
	_ = os.Remove(f.Name())
	s.f, s.w = f, bufio.NewWriterSize(f, 64<<10)
	return s, nil
}

func (s *spool) write(b []byte) {
	n, _ := s.w.Write(b) // the writer keeps its first error: reader says it
	s.size += int64(n)
}

// newFileSpool makes a spool that is path itself, written as the run
// goes and committed whole by commit (until then path is as it was).
func newFileSpool(path string) (*spool, error) {
	af, err := atomicfile.Create(path, 0o644)
	if err != nil {
		return nil, &SpoolError{Dir: filepath.Dir(path), Err: err}
	}
	return &spool{dir: filepath.Dir(path), path: path, af: af, f: af.File, w: bufio.NewWriterSize(af.File, 64<<10)}, nil
}

// commit puts a file spool in place at its path: whole, once.
func (s *spool) commit() error {
	if s.committed {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return &SpoolError{Dir: s.dir, Err: err}
	}
	s.committed = true
	return s.af.Commit()
}

// reader flushes the spool and reads it from its start; it can be read
// again.
func (s *spool) reader() (io.Reader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, &SpoolError{Dir: s.dir, Err: err}
	}
	if s.f == nil {
		return bytes.NewReader(s.mem.Bytes()), nil
	}
	if s.committed { // closed by the commit
		return nil, fmt.Errorf("the per-request lines were written to %s, streamed as the run went: copy that file", s.path)
	}
	return io.NewSectionReader(s.f, 0, s.size), nil
}

// close gives the spool's file back; its bytes are gone.
func (s *spool) close() {
	if s.af != nil {
		s.af.Abort() // nothing once committed; else path stays as it was
		return
	}
	if s.f != nil {
		_ = s.f.Close() // a removed file read for the last time: nothing to lose
	}
}
