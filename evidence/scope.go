package evidence

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/abbench/abbench/reason"
)

// Scope is a log file read from a byte offset recorded before the measured
// phase, so a cumulative log's earlier bytes never count.
type Scope struct {
	File   string `json:"file"`
	Offset int64  `json:"offset"`
	// Inode is the file's inode when the offset was recorded; a replaced
	// file is stale. Zero skips the check.
	Inode uint64 `json:"inode,omitempty"`
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

// maxLine bounds one line; a longer one is cut there (and said so), so no
// log can exhaust memory. It is far above any real log line.
const maxLine = 64 << 20

// Read calls fn with every line of the scope (without its newline, the
// last line even without one) and its offset in the file, and copies the
// scoped bytes verbatim to keep when it is not nil. Reading starts with a
// seek: its cost does not depend on the bytes before the offset. It returns
// the number of bytes read.
func (s Scope) Read(fn func(line []byte, off int64), keep io.Writer) (int64, error) {
	if s.Offset < 0 {
		return 0, &StaleError{s, fmt.Sprintf("offset %d is negative", s.Offset)}
	}
	f, err := os.Open(s.File)
	if errors.Is(err, os.ErrNotExist) {
		return 0, &StaleError{s, "the log no longer exists"}
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && s.Inode != 0 && st.Ino != s.Inode {
		return 0, &StaleError{s, fmt.Sprintf("the log was replaced (inode %d, recorded %d)", st.Ino, s.Inode)}
	}
	if fi.Size() < s.Offset {
		return 0, &StaleError{s, fmt.Sprintf("the log holds %d bytes, fewer than its recorded offset %d: it was truncated or replaced", fi.Size(), s.Offset)}
	}
	if _, err := f.Seek(s.Offset, io.SeekStart); err != nil {
		return 0, err
	}
	var src io.Reader = f
	if keep != nil {
		src = io.TeeReader(f, keep)
	}
	br := bufio.NewReaderSize(src, 256<<10)
	var (
		n    int64
		long []byte
	)
	off := s.Offset
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(chunk))
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if len(long) < maxLine {
				long = append(long, chunk[:min(len(chunk), maxLine-len(long))]...)
			}
			continue
		case err != nil && !errors.Is(err, io.EOF):
			return n, err
		}
		line := bytes.TrimSuffix(chunk, []byte("\n"))
		if long != nil {
			if len(long) < maxLine {
				long = append(long, line[:min(len(line), maxLine-len(long))]...)
			}
			line = long
		}
		if len(line) > 0 || !errors.Is(err, io.EOF) {
			fn(line, off)
		}
		off = s.Offset + n
		long = nil
		if errors.Is(err, io.EOF) {
			return n, nil
		}
	}
}
