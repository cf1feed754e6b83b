package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/abbench/abbench/decide"
	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/textout"
	"github.com/abbench/abbench/scenarios"
)

// Exit statuses: the README's table and help/exit-status.txt document them
// (a test holds the three together).
const (
	exitOK        = 0 // success; for run/compare/arm: evidence accepted, whatever the verdict
	exitError     = 1 // error while working (I/O, a launch failure outside the system under test)
	exitUsage     = 2 // usage error or invalid input
	exitCensored  = 3 // censored: evidence missing, invalid or unequal
	exitUnverfied = 4 // verification failed
	exitFailOn    = 5 // accepted, but a --fail-on condition was met
)

// exitStatusHelp closes the root's long help: every status, one line each;
// each command's help closes with the lines of its own (exitHelp).
var exitStatusHelp = help("exit-status")

// commandExits are the statuses each command can return, by command path:
// its help lists these and no other (a test holds every command to it).
var commandExits = map[string][]int{
	"abbench validate":     {exitOK, exitError, exitUsage},
	"abbench digest":       {exitOK, exitError, exitUsage, exitCensored},
	"abbench arm":          {exitOK, exitError, exitUsage, exitCensored},
	"abbench plan":         {exitOK, exitError, exitUsage},
	"abbench run":          {exitOK, exitError, exitUsage, exitCensored, exitUnverfied, exitFailOn},
	"abbench compare":      {exitOK, exitError, exitUsage, exitCensored, exitUnverfied, exitFailOn},
	"abbench verify":       {exitOK, exitError, exitUsage, exitUnverfied},
	"abbench replay":       {exitOK, exitError, exitUsage},
	"abbench load":         {exitOK, exitError, exitUsage, exitCensored},
	"abbench history":      {exitOK, exitUsage},
	"abbench history add":  {exitOK, exitError, exitUsage, exitCensored, exitUnverfied},
	"abbench history show": {exitOK, exitError, exitUsage},
}

// exitHelp is the EXIT STATUS section of the command at path: the lines of
// exitStatusHelp for the statuses it can return.
func exitHelp(path string) string {
	codes, ok := commandExits[path]
	if !ok {
		return exitStatusHelp
	}
	lines := strings.Split(exitStatusHelp, "\n")
	out := []string{lines[0]}
	for _, line := range lines[1:] {
		for _, c := range codes {
			if strings.HasPrefix(line, fmt.Sprintf("  %d  ", c)) {
				out = append(out, line)
			}
		}
	}
	return strings.Join(out, "\n")
}

// exitError carries an exit status and an optional hint to the top.
type statusError struct {
	code int
	err  error
	hint string
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// usageError marks err as a usage error (exit 2) with a hint.
func usageError(err error, hint string) error {
	return &statusError{code: exitUsage, err: err, hint: hint}
}

func usagef(hint, format string, args ...any) error {
	return usageError(fmt.Errorf(format, args...), hint)
}

// designFlags are the flags that set a sequential design's bounds, by the
// field a *decide.DesignError names.
var designFlags = map[string]string{"min_pairs": "--min-pairs", "max_pairs": "--max-pairs"}

// designHint says which flag sets the bound a design error is about.
func designHint(de *decide.DesignError) string {
	return fmt.Sprintf("%s sets %s; a sequential design looks from --min-pairs %d or more to --max-pairs %d at most",
		designFlags[de.Field], de.Field, decide.MinLookPairs, decide.MaxLookPairs)
}

// classify maps an error to its exit status, in one place.
func classify(err error) (int, string) {
	var (
		se *statusError
		de *decide.DesignError
	)
	if errors.As(err, &se) {
		if se.hint == "" && errors.As(err, &de) {
			return se.code, designHint(de)
		}
		return se.code, se.hint
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
		return exitUsage, ""
	case errors.As(err, &openErr):
		return exitUsage, "check the scenario path; scenario paths are relative to the current directory"
	case errors.As(err, &scenarioErrs):
		return exitUsage, "see docs/scenario.md for every key a scenario may hold"
	case errors.As(err, &lineErr), errors.As(err, &algErr):
		return exitUsage, ""
	case errors.As(err, &de):
		return exitUsage, designHint(de)
	case strings.HasPrefix(err.Error(), "unknown command"),
		strings.HasPrefix(err.Error(), "unknown flag"),
		strings.HasPrefix(err.Error(), "unknown shorthand flag"):
		return exitUsage, "run 'abbench --help' for the commands and their flags"
	}
	return exitError, ""
}

// report prints err on stderr, one "abbench: " line per line of the
// message, without a URL's password (a campaign records it in each run's
// controller.log). It is the last word: were stderr to fail, there is
// nowhere left to say so, and the exit status still tells.
func report(stderr io.Writer, err error, hint string) {
	out := textout.New(stderr)
	for _, line := range strings.Split(strings.TrimRight(redact.URL(err.Error()), "\n"), "\n") {
		out.Printf("abbench: %s\n", line)
	}
	if hint != "" {
		out.Printf("abbench: hint: %s\n", hint)
	}
}
