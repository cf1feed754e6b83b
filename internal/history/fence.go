package history

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
)

// endCap is how much of the store's end an add holds it to: a writer
// that appended changed the size, one that wrote over the end changed
// these bytes; the whole store is not hashed (a store of years is tens of
// MiB, and an add takes milliseconds).
const endCap = 64 << 10

// end is what an add holds the store to between its read and its write:
// its size and the SHA-256 of its last endCap bytes.
type end struct {
	size int64
	sum  [sha256.Size]byte
}

func endOf(data []byte) end {
	return end{size: int64(len(data)), sum: sha256.Sum256(data[max(0, len(data)-endCap):])}
}

// fileEnd is the store's end as its file holds it now.
func fileEnd(f *os.File) (end, error) {
	st, err := f.Stat()
	if err != nil {
		return end{}, err
	}
	n := min(st.Size(), endCap)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, st.Size()-n); err != nil && err != io.EOF {
		return end{}, err
	}
	return end{size: st.Size(), sum: sha256.Sum256(buf)}, nil
}

// ChangedError is a store that changed while an add held its lock: its
// end was not what the add read when it came to write (Size is what it
// read, Now what it found), or its lines were not there whole when it read
// them back (Lost). A writer that holds no lock wrote it: abbench history
// add made again skips what is stored and adds the rest.
type ChangedError struct {
	Store     string
	Size, Now int64
	Lost      bool
}

func (e *ChangedError) Error() string {
	what := fmt.Sprintf("it was %d bytes when this add read it and %d when it came to write: nothing was written", e.Size, e.Now)
	if e.Lost {
		what = fmt.Sprintf("the lines this add wrote at byte %d were not there whole when it read them back (the store is %d bytes)", e.Size, e.Now)
	}
	return fmt.Sprintf("%s changed under this add's lock: %s; something writes it without the lock file abbench history add takes (an earlier abbench on another host, a copy of the store put back): stop it and add again, which adds only what is not stored", e.Store, what)
}

// wroteWhole reads back what an add wrote at at: the store must end with
// exactly lines there.
func wroteWhole(f *os.File, path string, at int64, lines []byte) error {
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("reading %s back after the write: %w", path, err)
	}
	got := make([]byte, len(lines))
	if _, err := f.ReadAt(got, at); err != nil && err != io.EOF {
		return fmt.Errorf("reading %s back after the write: %w", path, err)
	}
	if st.Size() != at+int64(len(lines)) || !bytes.Equal(got, lines) {
		return &ChangedError{Store: path, Size: at, Now: st.Size(), Lost: true}
	}
	return nil
}
