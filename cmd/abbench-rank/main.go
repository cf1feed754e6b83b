// Command abbench-rank is the rank wrapper abbench starts every rank
// through: it registers the rank in its run's coordination namespace, then
// execs the rank's command. Users never run it; abbench finds it beside its
// own executable and falls back to `abbench rank-exec` when it is missing.
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/abbench/abbench/internal/arms/rankwrap"
)

func init() {
	// Stay on the main OS thread, which holds the parent-death signal the
	// controller set, until the exec (see rankwrap.Exec).
	runtime.LockOSThread()
}

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	err := rankwrap.Main(args)
	if err == nil { // --install, done
		os.Exit(0)
	}
	fmt.Fprintf(os.Stderr, "abbench-rank: %v\n", err)
	os.Exit(127)
}
