package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
)

// For nccl-tests the sweep of message sizes is the matched workload: runs
// whose records swept other sizes, or another count of them, are
// censored naming both sweeps; a record without a sweep beside one with
// it cannot be shown to have swept the same; equal sweeps pass.
func TestDifferentSweepsAreCensored(t *testing.T) {
	sweep := []uint64{8, 16, 32, 64}
	for _, c := range []struct {
		name  string
		other []uint64
		want  string // "" : accepted
	}{
		{"same sweep", []uint64{8, 16, 32, 64}, ""},
		{"other sizes", []uint64{8, 16, 32, 128}, "swept 4 sizes from 8 B to 128 B (size 4: 128 B)"},
		{"fewer sizes", []uint64{8, 16, 32}, "swept 3 sizes from 8 B to 32 B, arm"},
		{"more sizes", []uint64{8, 16, 32, 64, 128}, "swept 5 sizes from 8 B to 128 B (size 5: 128 B)"},
		{"no sweep listed", nil, "no sizes its record lists"},
	} {
		runs := runsOf(map[string][]float64{"blocking": {100, 101, 99}, "async": {120, 121, 119}})
		for i := range runs {
			runs[i].Evidence.Throughput.Sweep = sweep
		}
		runs[4].Evidence.Throughput.Sweep = c.other
		r := Compare(runs, Options{Metric: "output_throughput"})
		got := ""
		for _, rs := range r.Reasons {
			got += string(rs.Code) + ": " + rs.Detail + "\n"
		}
		switch {
		case c.want == "" && r.Verdict == Censored:
			t.Errorf("%s: censored:\n%s", c.name, got)
		case c.want != "" && (r.Verdict != Censored || len(r.Reasons) != 1 || r.Reasons[0].Code != reason.DigestArmMismatch || !strings.Contains(got, c.want)):
			t.Errorf("%s: verdict %s, reasons:\n%s want one %s holding %q", c.name, r.Verdict, got, reason.DigestArmMismatch, c.want)
		}
	}
}
