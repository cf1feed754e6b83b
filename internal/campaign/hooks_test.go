package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// A before_all hook that fails starts no run and says so; the after_all
// hooks run all the same, every one, and each that fails is kept.
func TestFailingBeforeAllStartsNoRun(t *testing.T) {
	s := quickstart(t)
	marker := filepath.Join(t.TempDir(), "after")
	s.BeforeAll = []scenarios.Hook{{Command: []string{"sh", "-c", "echo first"}}, {Command: []string{"sh", "-c", "echo cannot warm the cache; exit 5"}}, {Command: []string{"touch", marker + "-never"}}}
	s.AfterAll = []scenarios.Hook{{Command: []string{"false"}}, {Command: []string{"touch", marker}}}
	s.Deadlines.BeforeAll, s.Deadlines.AfterAll = scenarios.Duration(5e9), scenarios.Duration(5e9)
	c := &Config{Scenario: s, Launcher: "local", Repeat: 1, Order: OrderABBA, Out: filepath.Join(t.TempDir(), "camp"), Self: "/bin/false"}
	r, err := plan(c)
	if err != nil {
		t.Fatal(err)
	}
	err = Execute(context.Background(), c, r)
	var he *HookError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "before_all hook 2 (sh -c echo cannot warm the cache; exit 5) exited with status 5") || !strings.Contains(err.Error(), "no run was started") {
		t.Fatalf("Execute: %v, want the failed before_all hook", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(r.Out, rundir.RunsDir)); len(entries) != 0 {
		t.Errorf("runs started after a failed before_all: %v", entries)
	}
	if _, err := os.Stat(marker + "-never"); err == nil {
		t.Error("a before_all hook ran after one that failed")
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the after_all hooks did not all run: %v", err)
	}
	if len(r.AfterAll) != 1 || !strings.HasPrefix(r.AfterAll[0], "after_all hook 1 (false) exited with status 1") {
		t.Errorf("after_all failures %q", r.AfterAll)
	}
	if out, _ := os.ReadFile(filepath.Join(r.Out, rundir.HookLog(scenarios.HookBeforeAll, 1))); string(out) != "cannot warm the cache\n" {
		t.Errorf("before_all hook 2's output %q", out)
	}
}
