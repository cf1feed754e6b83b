//go:build linux || darwin || freebsd

package evidence

import (
	"bytes"
	"os"
	"runtime/debug"
	"syscall"
)

// mapWindow is how much of a log is mapped at a time: small, so a core's
// mapped pages stay a megabyte (a mapped page counts in the reader's
// resident memory) whatever the scope's size. minMapped is the least scope
// read through a mapping: below it, the mapping's own system calls cost
// more than the copy they save. (Variables, so a test can map small logs
// in many windows.)
var mapWindow, minMapped int64 = 1 << 20, 1 << 20

// readMapped hands the bytes of f from off over to fn as ReadBlocks does,
// through windows of the file mapped into memory: the search reads the page
// cache in place, with no copy into a buffer (the copy was a third of the
// time over many rank logs). ok is false when f is not read so (a small
// scope, a mapping refused), and f is then where it was.
func readMapped(f *os.File, off int64, fn func(block []byte, off int64) bool) (n int64, ok bool, err error) {
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size()-off < minMapped {
		return 0, false, nil
	}
	m := mappedReader{fd: int(f.Fd()), size: st.Size(), fn: fn, page: int64(os.Getpagesize()), window: mapWindow, max: maxLine}
	first, err := m.mapAt(off, m.window)
	if err != nil {
		return 0, false, nil
	}
	// A log cut short while mapped faults where its pages were: that is a
	// panic here, not a crash, and the scope is stale.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			n, ok, err = m.n, true, &StaleError{Why: "the log was cut short while it was read"}
		}
	}()
	err = m.run(off, first)
	return m.n, true, err
}

// mappedReader reads a file through mapped windows.
type mappedReader struct {
	fd   int
	size int64
	fn   func(block []byte, off int64) bool
	page int64
	// window is how much is mapped at a time, max the longest line handed
	// over whole (mapWindow, maxLine).
	window, max int64
	n           int64 // bytes handed over or skipped
	win         []byte
}

// mapAt maps at least length bytes of the file from off (fewer at its end)
// in place of the window mapped before, and returns them.
func (m *mappedReader) mapAt(off int64, length int64) ([]byte, error) {
	m.unmap()
	base := off - off%m.page
	length = min(m.size-base, length+off-base)
	win, err := syscall.Mmap(m.fd, base, int(length), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	m.win = win
	return win[off-base:], nil
}

func (m *mappedReader) unmap() {
	if m.win != nil {
		_ = syscall.Munmap(m.win) // only fails for a window not mapped
		m.win = nil
	}
}

// run hands the file over from off, data the bytes mapped from there.
func (m *mappedReader) run(off int64, data []byte) error {
	defer m.unmap()
	for {
		if off+int64(len(data)) == m.size {
			m.blocks(data, off) // its tail without a newline is the last line
			return nil
		}
		length := m.window
		switch last := bytes.LastIndexByte(data, '\n'); {
		case last >= 0:
			if !m.blocks(data[:last+1], off) {
				return nil
			}
			off += int64(last + 1)
		case int64(len(data)) >= m.max: // a line of max bytes or more: cut there
			if !m.hand(data[:m.max], off) {
				return nil
			}
			var err error
			if off, err = m.skipCut(off + m.max); err != nil || off == m.size {
				return err
			}
		default: // no newline in the window: map more of the line
			length = min(2*int64(len(data)), m.max)
		}
		var err error
		if data, err = m.mapAt(off, length); err != nil {
			return err
		}
	}
}

// blocks hands data, whole lines (but for a tail at the file's end), over
// in blocks of about blockSize; a longer line is a block of its own. False:
// fn stopped the reading.
func (m *mappedReader) blocks(data []byte, off int64) bool {
	for len(data) > 0 {
		end := len(data)
		if end > blockSize {
			end = bytes.LastIndexByte(data[:blockSize], '\n') + 1
			if end == 0 {
				end = bytes.IndexByte(data[blockSize:], '\n') + blockSize + 1
				if end == blockSize { // the tail without a newline
					end = len(data)
				}
			}
		}
		if !m.hand(data[:end], off) {
			return false
		}
		data, off = data[end:], off+int64(end)
	}
	return true
}

// hand hands one block over, counting its bytes.
func (m *mappedReader) hand(block []byte, off int64) bool {
	m.n += int64(len(block))
	return m.fn(block, off)
}

// skipCut drops the rest of a line cut at max, from off through its
// newline, and returns where the next line starts.
func (m *mappedReader) skipCut(off int64) (int64, error) {
	for off < m.size {
		data, err := m.mapAt(off, m.window)
		if err != nil {
			return off, err
		}
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			m.n += int64(i + 1)
			return off + int64(i+1), nil
		}
		m.n += int64(len(data))
		off += int64(len(data))
	}
	return off, nil
}
