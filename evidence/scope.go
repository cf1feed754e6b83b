package evidence

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/abbench/abbench/internal/guarded"
	"github.com/abbench/abbench/internal/readonly"
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
	// root, when set (In), is the run directory File is relative to: the
	// log is opened through it, as package guarded opens files.
	root *os.Root
}

// In is s read in the directory root, its File relative to root.
func (s Scope) In(root *os.Root) Scope {
	s.root = root
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

// maxLine bounds one line; a longer one is cut there, so no log can
// exhaust memory. It is far above any real log line.
const maxLine = 64 << 20

// blockSize is how much ReadBlocks hands over at a time (a block grows to
// hold a longer line). A block is searched once per anchor byte: at 256 KiB
// it stays in a core's L2 cache between passes (1 MiB blocks were 8% slower
// over 256 rank logs on a 1 MiB-L2 machine).
const blockSize = 256 << 10

// blockPool keeps read blocks between scopes: with a thousand rank logs a
// fresh megabyte each cost more in clearing and returning memory than the
// search of it (a profile of 256 logs: a tenth of the time).
var blockPool = sync.Pool{New: func() any { b := make([]byte, blockSize); return &b }}

// Read calls fn with every line of the scope (without its newline, the
// last line even without one) and its offset in the file, and copies the
// scoped bytes verbatim to keep when it is not nil. It returns the number
// of bytes read.
func (s Scope) Read(fn func(line []byte, off int64), keep io.Writer) (int64, error) {
	return s.ReadBlocks(func(block []byte, off int64) { eachLine(block, off, fn) }, keep)
}

// eachLine calls fn with every line of block (without its newline) and
// its file offset, block starting at off.
func eachLine(block []byte, off int64, fn func(line []byte, off int64)) {
	for len(block) > 0 {
		i := bytes.IndexByte(block, '\n')
		line := block
		if i >= 0 {
			line, block = block[:i], block[i+1:]
		} else {
			block = nil
		}
		fn(line, off)
		off += int64(len(line)) + 1
	}
}

// ReadBlocks calls fn with blocks of whole lines (each ending in a newline,
// but for the last block of a scope that does not) and the file offset of
// each block's first byte. Reading starts with a seek: its cost does not
// depend on the bytes before the offset. A line longer than maxLine is cut
// to maxLine bytes. The block is only valid during the call.
func (s Scope) ReadBlocks(fn func(block []byte, off int64), keep io.Writer) (int64, error) {
	return s.readBlocks(func(block []byte, off int64) bool { fn(block, off); return true }, keep)
}

// readBlocks is ReadBlocks whose fn may stop the reading by returning
// false (one part of a scope read by several readers).
func (s Scope) readBlocks(fn func(block []byte, off int64) bool, keep io.Writer) (int64, error) {
	if s.Offset < 0 {
		return 0, &StaleError{s, fmt.Sprintf("offset %d is negative", s.Offset)}
	}
	f, err := s.open()
	if errors.Is(err, os.ErrNotExist) {
		return 0, &StaleError{s, "the log no longer exists"}
	}
	if err != nil {
		return 0, err
	}
	defer readonly.Close(f)
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
	pooled := blockPool.Get().(*[]byte)
	defer blockPool.Put(pooled)
	var (
		n    int64
		buf  = *pooled
		have int // bytes in buf
		off  = s.Offset
		skip bool // inside a line cut at maxLine: drop bytes to its newline
	)
	for {
		if have == len(buf) {
			if len(buf) < maxLine {
				buf = append(buf, make([]byte, len(buf))...)[:min(2*len(buf), maxLine)]
			} else {
				// A line longer than maxLine: hand over its first maxLine bytes.
				if !fn(buf[:have], off) {
					return n, nil
				}
				off += int64(have)
				have, skip = 0, true
			}
		}
		k, err := src.Read(buf[have:])
		n += int64(k)
		chunk := buf[have : have+k]
		if skip {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				off += int64(k)
				if errors.Is(err, io.EOF) {
					return n, nil
				}
				if err != nil {
					return n, err
				}
				continue
			}
			copy(buf[have:], chunk[i+1:])
			off += int64(i + 1)
			k -= i + 1
			skip = false
		}
		have += k
		if err != nil && !errors.Is(err, io.EOF) {
			return n, err
		}
		if errors.Is(err, io.EOF) {
			if have > 0 {
				fn(buf[:have], off)
			}
			return n, nil
		}
		if last := bytes.LastIndexByte(buf[:have], '\n'); last >= 0 && (have == len(buf) || have >= blockSize/2) {
			if !fn(buf[:last+1], off) {
				return n, nil
			}
			off += int64(last + 1)
			have = copy(buf, buf[last+1:have])
		}
	}
}
