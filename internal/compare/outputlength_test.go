package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/reason"
)

// TestOutputLengthMismatch: under {output_tokens: equal} an arm whose
// runs generated other amounts of output than the baseline's is censored
// output-length-mismatch, naming both counts; within its tolerance, or
// without the criterion, it is compared.
func TestOutputLengthMismatch(t *testing.T) {
	within := func(pct float64) *float64 { return &pct }
	for _, c := range []struct {
		name          string
		within        *float64
		async, blocks int
		censored      bool
	}{
		{"half the output", within(0), 4096, 8192, true},
		{"equal", within(0), 8192, 8192, false},
		{"2% apart within 5%", within(5), 8028, 8192, false},
		{"2% apart, equal", within(0), 8028, 8192, true},
		{"no criterion", nil, 4096, 8192, false},
	} {
		runs := runsOf(map[string][]float64{"blocking": {100, 101, 99}, "async": {150, 151, 149}})
		for _, run := range runs {
			run.Evidence.OutputTokensWithin = c.within
			n := map[string]int{"async": c.async, "blocking": c.blocks}[run.Evidence.Arm]
			run.Evidence.Throughput.OutputTokens = &n
		}
		r := Compare(runs, Options{})
		got := r.Verdict == Censored && codes(r) == string(reason.OutputLengthMismatch)
		if got != c.censored {
			t.Errorf("%s: verdict %s, reasons %v", c.name, r.Verdict, r.Reasons)
		}
		if c.censored && !strings.Contains(r.Reasons[0].Detail, "arm async generated "+map[bool]string{true: "4096", false: "8028"}[c.async == 4096]+" output tokens per run, the baseline blocking 8192") {
			t.Errorf("%s: detail %q", c.name, r.Reasons[0].Detail)
		}
	}
}
