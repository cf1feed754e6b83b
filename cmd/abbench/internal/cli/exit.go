// Package cli is what every abbench command shares: the exit statuses and
// the errors that carry them to the top, the one place an error is mapped
// to its status, the report of an error on stderr, a library's field
// errors said with the command's flags, --format, and JSON output.
package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/abbench/abbench/internal/decide"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/scenarios"
	"github.com/abbench/abbench/internal/termwidth"
	"github.com/abbench/abbench/internal/textout"
)

// Exit statuses: the README's table and the help's exit-status text
// document them (a test holds the three together).
const (
	ExitOK         = 0 // success; for run/compare/arm: evidence accepted, whatever the verdict
	ExitError      = 1 // error while working (I/O, a launch failure outside the system under test)
	ExitUsage      = 2 // usage error or invalid input
	ExitCensored   = 3 // censored: evidence missing, invalid or unequal
	ExitUnverified = 4 // verification failed
	ExitFailOn     = 5 // accepted, but a --fail-on condition was met
)

// Error carries an exit status and an optional hint to the top.
type Error struct {
	Code int
	Err  error
	Hint string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Usage marks err as a usage error (exit 2) with a hint.
func Usage(err error, hint string) error {
	return &Error{Code: ExitUsage, Err: err, Hint: hint}
}

// Usagef is a usage error with hint, its message formatted as fmt.Errorf's.
func Usagef(hint, format string, args ...any) error {
	return Usage(fmt.Errorf(format, args...), hint)
}

// designFlags are the flags that set a sequential design's bounds, by the
// field a *decide.DesignError names.
var designFlags = map[string]string{"min_pairs": "--min-pairs", "max_pairs": "--max-pairs"}

// designHint says which flag sets the bound a design error is about.
func designHint(de *decide.DesignError) string {
	return fmt.Sprintf("%s sets %s; a sequential design looks from --min-pairs %d or more to --max-pairs %d at most",
		designFlags[de.Field], de.Field, decide.MinLookPairs, decide.MaxLookPairs)
}

// Classify maps an error to its exit status and hint, in one place.
func Classify(err error) (int, string) {
	var (
		se *Error
		de *decide.DesignError
	)
	if errors.As(err, &se) {
		if se.Hint == "" && errors.As(err, &de) {
			return se.Code, designHint(de)
		}
		return se.Code, se.Hint
	}
	var (
		scenarioErrs scenarios.Errors
		lineErr      *digest.LineError
		algErr       *digest.UnknownAlgorithmError
	)
	var (
		armErr  *scenarios.UnknownArmError
		openErr *scenarios.OpenError
	)
	switch {
	case errors.As(err, &armErr):
		return ExitUsage, ""
	case errors.As(err, &openErr):
		return ExitUsage, "check the scenario path; scenario paths are relative to the current directory"
	case errors.As(err, &scenarioErrs) && scenarioErrs.HasParse():
		return ExitUsage, "see docs/scenario.md for every key a scenario may hold and what it takes"
	case errors.As(err, &scenarioErrs):
		// Each error names its own fix; a pointer to every key read as
		// if the fault were a key (a newcomer's mistyped path).
		return ExitUsage, ""
	case errors.As(err, &lineErr), errors.As(err, &algErr):
		return ExitUsage, ""
	case errors.As(err, &de):
		return ExitUsage, designHint(de)
	}
	return ExitError, ""
}

// Report prints err on stderr, one "abbench: " line per line of the
// message, without a URL's password (a campaign records it in each run's
// controller.log). It is the last word: were stderr to fail, there is
// nowhere left to say so, and the exit status still tells.
//
// On a terminal each line is wrapped to its width; elsewhere (a rank's
// log, whose last line a reason quotes; a CI log) a message stays a line.
func Report(stderr io.Writer, err error, hint string) {
	out := textout.New(stderr)
	cols := 0
	if termwidth.IsTerminal(stderr) {
		cols = termwidth.Columns(stderr)
	}
	say := func(line string) {
		for _, l := range termwidth.Wrap(line, cols, "    ") {
			out.Println(l)
		}
	}
	for _, line := range strings.Split(strings.TrimRight(redact.URL(err.Error()), "\n"), "\n") {
		say("abbench: " + line)
	}
	if hint != "" {
		say("abbench: hint: " + hint)
	}
}
