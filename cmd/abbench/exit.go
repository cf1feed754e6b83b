package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/internal/field"
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

// fieldFlags name a library configuration's fields by the flags that set
// them. A name with a space in it ("--max-pairs N") is said as it is, in
// place of the field and its value.
type fieldFlags map[string]string

// fieldUsage is err as a usage error with hint, a field.Error in it said
// with the flags that set its fields (a field flags does not name keeps
// its own name).
func fieldUsage(err error, flags fieldFlags, hint string) error {
	var fe *field.Error
	if !errors.As(err, &fe) {
		return usageError(err, hint)
	}
	return usageError(errors.New(fe.Format(func(f, v string) string {
		name, ok := flags[f]
		switch {
		case !ok:
			name = f
		case strings.Contains(name, " "):
			return name
		}
		return strings.TrimSpace(name + " " + v)
	})), hint)
}

// classify maps an error to its exit status, in one place.
func classify(err error) (int, string) {
	var se *statusError
	if errors.As(err, &se) {
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
