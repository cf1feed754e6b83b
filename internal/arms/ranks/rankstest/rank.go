package rankstest

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// The rank program's acts, its first argument.
const (
	actServe    = "serve"    // say it is ready, then run until a signal ends it
	actStubborn = "stubborn" // the same, ignoring SIGTERM
	actExit     = "exit"     // exit with the status of the next argument
	actSignal   = "signal"   // end by the signal of the next argument
)

// The environment the suite gives every rank: the arm's value, which the
// rank says with its readiness (the arm environment seen by every rank).
const (
	EnvArm   = "RANKSTEST_ARM"
	EnvIndex = "RANKSTEST_INDEX"
)

// readyLine is the line a serving rank writes once it runs.
func readyLine(index, arm string) string {
	return "rankstest ready rank=" + index + " arm=" + arm
}

// Rank is the rank program (rankprog): it does what args say, writing to
// out, and returns its exit status.
func Rank(args []string, out io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "rankprog: serve, stubborn, exit N or signal N")
		return 2
	}
	switch args[0] {
	case actServe, actStubborn:
		if args[0] == actStubborn {
			signal.Ignore(syscall.SIGTERM)
		}
		if _, err := fmt.Fprintln(out, readyLine(os.Getenv(EnvIndex), os.Getenv(EnvArm))); err != nil {
			return 1 // the suite waits for this line: without it the rank is not ready
		}
		// Without a handler, SIGTERM ends the program as the signal does;
		// the suite's Stop bounds this wait.
		time.Sleep(time.Hour)
		return 0
	case actExit, actSignal:
		n, err := strconv.Atoi(args[len(args)-1])
		if err != nil || len(args) != 2 {
			fmt.Fprintf(os.Stderr, "rankprog: %s N\n", args[0])
			return 2
		}
		if args[0] == actExit {
			return n
		}
		// A Go program ends as SIGHUP, SIGINT and SIGTERM do, and as any
		// signal it cannot catch: the suite sends itself SIGHUP, its
		// action the default even where it started ignored.
		defaultAction(syscall.Signal(n))
		_ = syscall.Kill(os.Getpid(), syscall.Signal(n)) // delivered before Sleep ends
		time.Sleep(time.Minute)
		return 0
	}
	fmt.Fprintf(os.Stderr, "rankprog: no act %q\n", args[0])
	return 2
}
