package main

import (
	"context"
	"strings"
	"testing"
)

// Every command's --help reads in the order one looks for it: a short
// description (run's and compare's under 80 words: the prose is in
// docs/), then usage, flags, examples, and the exit statuses last; its
// flags wrap to the width.
func TestHelpIsShortAndInOrder(t *testing.T) {
	t.Setenv("COLUMNS", "")
	for _, args := range [][]string{{"run"}, {"compare"}, {"arm"}, {"verify"}, {"history", "add"}} {
		var stdout, stderr strings.Builder
		if code := run(context.Background(), append(args, "--help"), &stdout, &stderr); code != 0 {
			t.Fatalf("%v --help: exit %d: %s", args, code, stderr.String())
		}
		out := stdout.String()
		last := -1
		for _, heading := range []string{"\nUsage:\n", "\nFlags:\n", "\nExamples:\n", "\nEXIT STATUS\n"} {
			i := strings.Index(out, heading)
			if i < last {
				t.Errorf("abbench %s --help: %q comes before what precedes it (%d < %d)", strings.Join(args, " "), strings.TrimSpace(heading), i, last)
			}
			last = i
		}
		if i := strings.Index(out, "\nUsage:\n"); i >= 0 && (args[0] == "run" || args[0] == "compare") {
			if n := len(strings.Fields(out[:i])); n > 80 {
				t.Errorf("abbench %s --help: %d words before Usage:, want at most 80", args[0], n)
			}
		}
		from, to := strings.Index(out, "\nFlags:\n"), strings.Index(out, "\nExamples:\n")
		if from < 0 || to < from {
			continue // said above
		}
		for _, l := range strings.Split(out[from:to], "\n") {
			if len(l) > 80 {
				t.Errorf("abbench %s --help: a flag line of %d columns: %q", strings.Join(args, " "), len(l), l)
			}
		}
	}
}

// Every command's --help fits 80 columns where the output is no
// terminal: its usage, its exit statuses and its prose wrapped, its
// examples continued with a backslash (so each still pastes as one
// command) and the list of commands under 80 as written.
func TestEveryHelpFitsEightyColumns(t *testing.T) {
	t.Setenv("COLUMNS", "")
	root := newRoot(&strings.Builder{}, &strings.Builder{})
	commands := [][]string{{}}
	for _, c := range root.Commands() {
		if c.Hidden {
			continue
		}
		commands = append(commands, []string{c.Name()})
		for _, sub := range c.Commands() {
			commands = append(commands, []string{c.Name(), sub.Name()})
		}
	}
	for _, args := range commands {
		var stdout, stderr strings.Builder
		if code := run(context.Background(), append(args, "--help"), &stdout, &stderr); code != 0 {
			t.Fatalf("%v --help: exit %d: %s", args, code, stderr.String())
		}
		inExamples, prev := false, ""
		for _, l := range strings.Split(stdout.String(), "\n") {
			switch {
			case l == "Examples:":
				inExamples = true
			case !strings.HasPrefix(l, " "):
				inExamples = false
			}
			if len([]rune(l)) > 80 {
				t.Errorf("abbench %s --help: a line of %d columns: %q", strings.Join(args, " "), len([]rune(l)), l)
			}
			if inExamples && strings.HasPrefix(l, "    ") && !strings.HasSuffix(prev, "\\") {
				t.Errorf("abbench %s --help: an example wrapped without its backslash: %q", strings.Join(args, " "), l)
			}
			prev = l
		}
	}
}

// load's --help says what its exit 3 means to it: requests that failed,
// not "censored" evidence it derives none of.
func TestLoadHelpSaysItsOwnExitThree(t *testing.T) {
	t.Setenv("COLUMNS", "")
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"load", "--help"}, &stdout, &stderr); code != 0 {
		t.Fatalf("load --help: exit %d: %s", code, stderr.String())
	}
	exit := stdout.String()[strings.Index(stdout.String(), "EXIT STATUS"):]
	if !strings.Contains(exit, "  3  requests failed") || strings.Contains(exit, "censored") {
		t.Fatalf("load's exit statuses:\n%s", exit)
	}
}
