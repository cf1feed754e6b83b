package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/abbench/abbench/internal/guarded"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/reason"
)

// Scope is a log file read from a byte offset recorded before the measured
// phase, so a cumulative log's earlier bytes never count.
type Scope struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
	// Inode is the file's inode when the offset was recorded; a replaced
	// file is stale. Zero skips the check.
	Inode uint64 `json:"inode,omitempty"`
	// root, when set (In), is the run directory File is relative to: the
	// log is opened through it, as package guarded opens files.
	root *os.Root
	// held, when set (Held), is the file's bytes as the caller already
	// read them: the scope is read from them, never from the file again.
	held *[]byte
}

// In is s read in the directory root, its File relative to root.
func (s Scope) In(root *os.Root) Scope {
	s.root = root
	return s
}

// Held is s read from data, the bytes of its File as a caller read (and
// hashed) them: what is derived is exactly those bytes, however the file
// changes after. They hold no inode to check.
func (s Scope) Held(data []byte) Scope {
	s.held = &data
	return s
}

// open opens the scope's file: through its root when it has one, where a
// link or a file that is not a regular one is stale evidence.
func (s Scope) open() (*os.File, error) {
	if s.root == nil {
		return os.Open(s.File)
	}
	f, err := guarded.Open(s.root, s.File)
	var refused *guarded.RefusedError
	if errors.As(err, &refused) {
		return nil, &StaleError{s, refused.Why}
	}
	return f, err
}

// StaleError says a scope no longer fits its file.
type StaleError struct {
	Scope Scope
	Why   string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s: %s", e.Scope.File, e.Why)
}

// Reason is the censor reason for a stale scope.
func (e *StaleError) Reason() reason.Reason { return reason.New(reason.StaleEvidence, "%v", e) }

// Read calls fn with every line of the scope (without its newline, the
// last line even without one) and its offset in the file, and copies the
// scoped bytes verbatim to keep when it is not nil. It returns the number
// of bytes read.
func (s Scope) Read(fn func(line []byte, off int64), keep io.Writer) (int64, error) {
	return s.ReadBlocks(func(block []byte, off int64) { eachLine(block, off, fn) }, keep)
}

// ReadBlocks calls fn with blocks of whole lines (each ending in a newline,
// but for the last block of a scope that does not) and the file offset of
// each block's first byte. Reading starts with a seek: its cost does not
// depend on the bytes before the offset. A line longer than maxLine is cut
// to maxLine bytes. The block is only valid during the call.
func (s Scope) ReadBlocks(fn func(block []byte, off int64), keep io.Writer) (int64, error) {
	return s.readBlocks(blockSize, func(block []byte, off int64) bool { fn(block, off); return true }, keep)
}

// readBlocks is ReadBlocks in blocks of size (at most blockSize) whose fn
// may stop the reading by returning false (one part of a scope read by
// several readers).
func (s Scope) readBlocks(size int, fn func(block []byte, off int64) bool, keep io.Writer) (int64, error) {
	src, done, err := s.source()
	if err != nil {
		return 0, err
	}
	defer done()
	if keep != nil {
		src = io.TeeReader(src, keep)
	}
	pooled := blockPool.Get().(*[]byte)
	defer blockPool.Put(pooled)
	b := blockReader{src: src, fn: fn, buf: (*pooled)[:size], max: maxLine, half: size / 2, off: s.Offset}
	err = b.run()
	return b.n, err
}

// source is the scope's bytes from its offset (held ones, or its file
// opened and checked) and what to call when they are read.
func (s Scope) source() (io.Reader, func(), error) {
	if s.held == nil {
		f, err := s.openChecked()
		if err != nil {
			return nil, nil, err
		}
		return f, func() { readonly.Close(f) }, nil
	}
	data := *s.held
	if err := s.negative(); err != nil {
		return nil, nil, err
	}
	if err := s.holds(int64(len(data))); err != nil {
		return nil, nil, err
	}
	return bytes.NewReader(data[s.Offset:]), func() {}, nil
}

// openChecked opens the scope's file at its offset, or says why the scope
// no longer fits it: a negative offset, a log gone, replaced or shorter
// than the offset is stale.
func (s Scope) openChecked() (*os.File, error) {
	if err := s.negative(); err != nil {
		return nil, err
	}
	f, err := s.open()
	if errors.Is(err, os.ErrNotExist) {
		return nil, &StaleError{s, "the log no longer exists"}
	}
	if err != nil {
		return nil, err
	}
	if err := s.fits(f); err != nil {
		readonly.Close(f)
		return nil, err
	}
	return f, nil
}

// fits says whether the open file f is still the scope's log, holding its
// offset, and seeks there: reading starts with a seek, so its cost does not
// depend on the bytes before the offset.
func (s Scope) fits(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && s.Inode != 0 && st.Ino != s.Inode {
		return &StaleError{s, fmt.Sprintf("the log was replaced (inode %d, recorded %d)", st.Ino, s.Inode)}
	}
	if err := s.holds(fi.Size()); err != nil {
		return err
	}
	_, err = f.Seek(s.Offset, io.SeekStart)
	return err
}

// negative refuses a negative offset.
func (s Scope) negative() error {
	if s.Offset < 0 {
		return &StaleError{s, fmt.Sprintf("offset %d is negative", s.Offset)}
	}
	return nil
}

// holds refuses a log of size bytes, fewer than the offset.
func (s Scope) holds(size int64) error {
	if size < s.Offset {
		return &StaleError{s, fmt.Sprintf("the log holds %d bytes, fewer than its recorded offset %d: it was truncated or replaced", size, s.Offset)}
	}
	return nil
}
