package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The command the run prints first is the one that reproduces it: an
// argument a shell would split is quoted ("--models Student t" ran every
// model whose name holds "Student", then failed on "t").
func TestThePrintedCommandRunsAsItReads(t *testing.T) {
	args := []string{"-candidates", "-models", "Student t,it's", "-pairs", "10"}
	line := strings.Join(scriptArgs(args), " ")
	out, err := exec.Command("sh", "-c", "set -- "+line+`; for a in "$@"; do printf '%s\n' "$a"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "--candidates\n--models\nStudent t,it's\n--pairs\n10\n"
	if string(out) != want {
		t.Errorf("the shell reads %q as\n%s, want\n%s", line, out, want)
	}
}
