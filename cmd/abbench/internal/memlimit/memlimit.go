// Package memlimit gives abbench's streaming readers a soft memory limit.
// Go's collector lets the heap grow to twice what is live, and on a
// many-core machine the parallel digest and evidence readers leave much
// garbage quickly: their peak memory grew with the core count (265 MiB for
// a digest on 32 cores). A soft limit makes the collector run before that.
//
// The controller (arm, run) gets none: with a thousand ranks its live heap
// nears the limit, and a collector that never stops cost two cores of a
// 32-core machine while the ranks sat idle (0.75% of one core without it;
// bench/controller-idle.sh).
package memlimit

import (
	"os"
	"runtime/debug"
	"slices"
	"strings"
)

// Soft is the streaming commands' soft memory limit, unless GOMEMLIMIT
// says otherwise.
const Soft = 64 << 20

// Streaming are the commands that read large inputs and hold little.
// compare is not one: it holds every run's evidence (about 90 MiB live for
// 10,000 runs), and under Soft its collector ran without end (10,000 runs
// on 32 cores: 21.9 s; 1.6 s and a 232 MiB peak without a limit;
// bench/compare-many.sh).
var Streaming = []string{"digest", "replay", "verify"}

// ForCommand sets Soft as the memory limit when args (abbench's arguments)
// name a streaming command, unless the environment sets GOMEMLIMIT (the
// runtime then already follows it).
func ForCommand(args []string) {
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if slices.Contains(Streaming, a) && os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(Soft)
		}
		return
	}
}
