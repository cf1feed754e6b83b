// Package memlimit gives abbench a soft memory limit. Go's collector lets
// the heap grow to twice what is live, and on a many-core machine the
// parallel digest and evidence readers leave much garbage quickly: peak
// memory then grew with the core count (265 MiB for a digest on 32 cores).
// A soft limit makes the collector run before that; it never fails an
// allocation, and past it the runtime bounds the time spent collecting.
package memlimit

import (
	"os"
	"runtime/debug"
)

// Soft is abbench's soft memory limit unless GOMEMLIMIT says otherwise.
const Soft = 64 << 20

// Default sets Soft as the memory limit, unless the environment sets
// GOMEMLIMIT (the runtime then already follows it).
func Default() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(Soft)
	}
}
