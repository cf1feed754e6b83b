package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files of the report tests")

// TestCompareGolden renders each report format for an accepted and a
// censored comparison of committed evidence and compares it with
// testdata/compare/NAME.golden (go test -run CompareGolden -update rewrites them).
func TestCompareGolden(t *testing.T) {
	t.Setenv("GITHUB_STEP_SUMMARY", "")
	for _, set := range []struct {
		name string
		code int
	}{{"accepted", 0}, {"censored", 3}} {
		dirs, _ := filepath.Glob(filepath.Join("testdata", "compare", set.name, "*"))
		for _, format := range []string{"table", "json", "markdown", "junit", "svg"} {
			t.Run(set.name+"-"+format, func(t *testing.T) {
				got := renderCompare(t, format, set.code, dirs)
				golden := filepath.Join("testdata", "compare", set.name+"."+format+".golden")
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
			})
		}
	}
}

// renderCompare is abbench compare's report of dirs in format (svg: the
// --plot file), which must exit with code.
func renderCompare(t *testing.T, format string, code int, dirs []string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"compare", "--format", format}, dirs...)
	plot := filepath.Join(t.TempDir(), "plot.svg")
	if format == "svg" {
		args = append([]string{"compare", "--plot", plot}, dirs...)
	}
	if got := run(context.Background(), args, &stdout, &stderr); got != code {
		t.Fatalf("exit %d, want %d: %s", got, code, stderr.String())
	}
	if format != "svg" {
		return stdout.Bytes()
	}
	data, err := os.ReadFile(plot)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
