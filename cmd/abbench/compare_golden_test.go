package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
)

var update = flag.Bool("update", false, "rewrite the golden files of the report tests")

// TestCompareGolden renders each report format for an accepted and a
// censored comparison of committed evidence and compares it with
// testdata/compare/NAME.golden (go test -run CompareGolden -update rewrites them).
func TestCompareGolden(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	for _, set := range []struct {
		name string
		exit int
	}{{"accepted", cli.ExitOK}, {"censored", cli.ExitCensored}} {
		dirs, _ := filepath.Glob(filepath.Join("testdata", "compare", set.name, "*"))
		for _, format := range []string{"table", "json", "markdown", "junit", "svg"} {
			t.Run(set.name+"-"+format, func(t *testing.T) {
				got := renderCompare(t, format, dirs, set.exit)
				checkGolden(t, filepath.Join("testdata", "compare", set.name+"."+format+".golden"), got)
			})
		}
	}
}

// renderCompare runs abbench compare over dirs in format ("svg": the file
// --plot writes) and returns what it rendered; the exit status must be exit.
func renderCompare(t *testing.T, format string, dirs []string, exit int) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"compare", "--format", format}, dirs...)
	plot := filepath.Join(t.TempDir(), "plot.svg")
	if format == "svg" {
		args = append([]string{"compare", "--plot", plot}, dirs...)
	}
	if code := run(context.Background(), args, &stdout, &stderr); code != exit {
		t.Fatalf("exit %d, want %d: %s", code, exit, stderr.String())
	}
	if format != "svg" {
		return stdout.Bytes()
	}
	got, err := os.ReadFile(plot)
	if err != nil {
		t.Fatalf("compare --plot wrote no plot: %v", err)
	}
	return got
}

// checkGolden compares got with the golden file (rewritten first under -update).
func checkGolden(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from the golden file; got:\n%s", golden, got)
	}
}
