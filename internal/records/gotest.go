package records

import (
	"fmt"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// goTestRun is what the lines of `go test` around the benchmark lines say
// of the run: benchfmt reads results only.
type goTestRun struct {
	passed bool // a PASS or ok line
	// failures are the failure lines (--- FAIL:, panic:, FAIL, exit
	// status N), each as "line N: text", at most maxGoTestFailures of
	// them and a count of the rest; failLines are all their numbers.
	failures  []string
	failLines []int
	// failedBenchmarks are the names --- FAIL: lines give, as benchfmt
	// names results (without "Benchmark").
	failedBenchmarks []string
}

const maxGoTestFailures = 5

var exitStatus = lazyregexp.New(`^exit status \d+$`)

func goTestOutcome(data []byte) goTestRun {
	var run goTestRun
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		failure := ""
		switch at := strings.Index(line, "--- FAIL: "); {
		case at >= 0:
			failure = line[at:]
			if f := strings.Fields(line[at+len("--- FAIL: "):]); len(f) > 0 {
				run.failedBenchmarks = append(run.failedBenchmarks, strings.TrimPrefix(f[0], "Benchmark"))
			}
		case strings.HasPrefix(line, "panic: "), line == "FAIL", strings.HasPrefix(line, "FAIL\t"), strings.HasPrefix(line, "FAIL "), exitStatus.MatchString(line):
			failure = line
		case line == "PASS", strings.HasPrefix(line, "ok \t"), strings.HasPrefix(line, "ok  "):
			run.passed = true
		}
		if failure == "" {
			continue
		}
		run.failLines = append(run.failLines, i+1)
		if len(run.failures) < maxGoTestFailures {
			run.failures = append(run.failures, fmt.Sprintf("line %d: %s", i+1, strings.TrimSpace(failure)))
		}
	}
	if more := len(run.failLines) - len(run.failures); more > 0 {
		run.failures = append(run.failures, fmt.Sprintf("%d more failure lines", more))
	}
	return run
}

// failedNamed counts the --- FAIL: lines of the benchmark named.
func (run goTestRun) failedNamed(name string) int {
	n := 0
	for _, f := range run.failedBenchmarks {
		if name != "" && f == name {
			n++
		}
	}
	return n
}
