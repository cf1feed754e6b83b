package history

import (
	"bytes"
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
)

// mapStore maps the store's content read-only instead of reading it: a
// store of years is tens of MiB, which a read would copy into fresh memory
// (faulted in and cleared first) for one look at each line. release unmaps
// it; the bytes are only to be looked at inside readMapped.
func mapStore(f *os.File) (data []byte, release func(), err error) {
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return nil, func() {}, err
	}
	if int64(int(st.Size())) != st.Size() {
		return nil, nil, fmt.Errorf("%d bytes do not fit in memory", st.Size())
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED|populate)
	if err != nil {
		// A file system that maps no files (some network and FUSE
		// ones) is read instead.
		buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
		_, err = buf.ReadFrom(f)
		return buf.Bytes(), func() {}, err
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}

// readMapped runs look, which reads a mapped store. A store cut short
// under the mapping (by a writer that ignores the lock: abbench history
// add holds it) faults where the bytes were; that is an error naming the
// store here, not a crash.
func readMapped(path string, look func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s was cut short while it was read (%v): something other than abbench history add writes it; stop that writer and add again", path, r)
		}
	}()
	return look()
}
