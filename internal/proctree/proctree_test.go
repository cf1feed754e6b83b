package proctree

import (
	"os"
	"slices"
	"strconv"
	"testing"
)

// A process is found by its marker only as a whole environment entry:
// FOO_ABBENCH_TOKEN=T (another variable that ends in the key) and
// ABBENCH_TOKEN=T2 (a longer value) are not the run's, and no sweep may
// kill them.
func TestWithEnvMatchesWholeEntries(t *testing.T) {
	token := "tok-" + strconv.Itoa(os.Getpid())
	start := func(env ...string) int { return startSleep(t, false, env...) }
	suffixed := start("FOO_ABBENCH_TOKEN=" + token)
	longer := start("ABBENCH_TOKEN=" + token + "2")
	prefixed := start("A=1", "XABBENCH_TOKEN="+token, "B=2")
	first := start("ABBENCH_TOKEN="+token, "B=2")
	last := start("A=1", "ABBENCH_TOKEN="+token)
	got := WithEnv("ABBENCH_TOKEN", token)
	for _, pid := range []int{suffixed, longer, prefixed} {
		if slices.Contains(got, pid) {
			t.Errorf("pid %d does not carry ABBENCH_TOKEN=%s, but was found: %v", pid, token, got)
		}
	}
	for _, pid := range []int{first, last} {
		if !slices.Contains(got, pid) {
			t.Errorf("pid %d carries ABBENCH_TOKEN=%s, but was not found: %v", pid, token, got)
		}
	}
}
