//go:build !linux

package history

// populate is nothing where mmap has no MAP_POPULATE (darwin): pages are
// faulted in as the store is read.
const populate = 0
