package rankwrap

import (
	"os"
	"strings"
	"testing"
)

// A launched rank's rank is srun's SLURM_PROCID or, in a pod of an
// Indexed Job, its JOB_COMPLETION_INDEX; without either it says how to
// start one.
func TestLaunchedRankFromSrunOrTheJobsIndex(t *testing.T) {
	for _, c := range []struct {
		procid, index string // "-": unset
		rank          int
		err           string
	}{
		{"3", "-", 3, ""},
		{"-", "5", 5, ""},
		{"2", "7", 2, ""}, // srun inside a pod: srun's task
		{"-", "-", 0, "SLURM_PROCID (start it with srun) or JOB_COMPLETION_INDEX"},
		{"-", "x", 0, `JOB_COMPLETION_INDEX="x"`},
	} {
		for name, v := range map[string]string{"SLURM_PROCID": c.procid, "JOB_COMPLETION_INDEX": c.index} {
			t.Setenv(name, v)
			if v == "-" {
				unsetenv(t, name)
			}
		}
		rank, err := launchedRank()
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%+v: %v, want %q", c, err, c.err)
			}
			continue
		}
		if err != nil || rank != c.rank {
			t.Errorf("%+v: rank %d, %v", c, rank, err)
		}
	}
}

// unsetenv unsets name for the rest of t (t.Setenv first, so it is
// restored).
func unsetenv(t *testing.T, name string) {
	t.Helper()
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}
