// Package help is abbench's long help: one text file per command and one
// of its examples, so they read as the documentation they are, and the
// exit statuses each command can return, which close its help.
package help

import (
	"embed"
	"fmt"
	"strings"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
)

// texts are the commands' long help, one file each.
//
//go:embed *.txt
var texts embed.FS

// Text is the long help called name (a command's, or NAME.examples).
func Text(name string) string {
	data, err := texts.ReadFile(name + ".txt")
	if err != nil {
		panic("no help text for " + name) // a test runs every command's help
	}
	return strings.TrimRight(string(data), "\n")
}

// ExitStatus closes the root's long help: every status, one line each;
// each command's help closes with the lines of its own (ExitSection).
var ExitStatus = Text("exit-status")

// CommandExits are the statuses each command can return, by command path:
// its help lists these and no other (a test holds every command to it).
var CommandExits = map[string][]int{
	"abbench validate":     {cli.ExitOK, cli.ExitError, cli.ExitUsage},
	"abbench digest":       {cli.ExitOK, cli.ExitError, cli.ExitUsage, cli.ExitCensored},
	"abbench arm":          {cli.ExitOK, cli.ExitError, cli.ExitUsage, cli.ExitCensored},
	"abbench plan":         {cli.ExitOK, cli.ExitError, cli.ExitUsage},
	"abbench run":          {cli.ExitOK, cli.ExitError, cli.ExitUsage, cli.ExitCensored, cli.ExitUnverified, cli.ExitFailOn},
	"abbench compare":      {cli.ExitOK, cli.ExitError, cli.ExitUsage, cli.ExitCensored, cli.ExitUnverified, cli.ExitFailOn},
	"abbench verify":       {cli.ExitOK, cli.ExitError, cli.ExitUsage, cli.ExitUnverified},
	"abbench replay":       {cli.ExitOK, cli.ExitError, cli.ExitUsage},
	"abbench import":       {cli.ExitOK, cli.ExitError, cli.ExitUsage, cli.ExitCensored},
	"abbench load":         {cli.ExitOK, cli.ExitError, cli.ExitUsage, cli.ExitCensored},
	"abbench history":      {cli.ExitOK, cli.ExitUsage},
	"abbench history add":  {cli.ExitOK, cli.ExitError, cli.ExitUsage, cli.ExitCensored, cli.ExitUnverified},
	"abbench history show": {cli.ExitOK, cli.ExitError, cli.ExitUsage},
}

// commandMeaning is what a status means to a command whose meaning of it
// is its own: load's 3 is requests that failed, which no evidence was
// derived from to censor.
var commandMeaning = map[string]map[int]string{
	"abbench load":   {cli.ExitCensored: "requests failed (exit 0 with --allow-failures): the record counts and names them"},
	"abbench digest": {cli.ExitCensored: "with --explain, the two digests differ (as diff(1) says a difference): a comparison of runs with them would be censored"},
}

// judging are the commands whose success is accepted evidence, whatever
// the verdict: the others' 0 is success alone.
var judging = map[string]bool{"abbench run": true, "abbench arm": true, "abbench compare": true}

// ExitSection is the EXIT STATUS section of the command at path: the lines
// of ExitStatus for the statuses it can return, in its own words where it
// has them (commandMeaning).
func ExitSection(path string) string {
	codes, ok := CommandExits[path]
	if !ok {
		return ExitStatus
	}
	lines := strings.Split(ExitStatus, "\n")
	out := []string{lines[0]}
	for _, line := range lines[1:] {
		for _, c := range codes {
			if !strings.HasPrefix(line, fmt.Sprintf("  %d  ", c)) {
				continue
			}
			if meaning, ok := commandMeaning[path][c]; ok {
				line = fmt.Sprintf("  %d  %s", c, meaning)
			} else if c == cli.ExitOK && judging[path] {
				line = fmt.Sprintf("  %d  success: the evidence was accepted, whatever the verdict", c)
			} else if c == cli.ExitOK {
				line = fmt.Sprintf("  %d  success", c)
			}
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
