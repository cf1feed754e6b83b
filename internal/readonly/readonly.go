// Package readonly closes what was opened only to be read.
package readonly

import "io"

// Close closes c, a file, directory or os.Root opened only to read. Such a
// close cannot lose data, so its error tells a reader nothing: it is
// dropped here, once, rather than unchecked at every reader.
func Close(c io.Closer) { _ = c.Close() }
