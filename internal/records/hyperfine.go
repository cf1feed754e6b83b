package records

import (
	"fmt"
	"strings"
)

// hyperfineResult is one command of a hyperfine --export-json file: its
// statistics over the timed runs (seconds; null where hyperfine has none,
// as stddev of one run) and each run's exit code (null for a run a signal
// ended).
type hyperfineResult struct {
	Command   string    `json:"command"`
	Mean      *float64  `json:"mean"`
	Stddev    *float64  `json:"stddev"`
	Median    *float64  `json:"median"`
	User      *float64  `json:"user"`
	System    *float64  `json:"system"`
	Min       *float64  `json:"min"`
	Max       *float64  `json:"max"`
	Times     []float64 `json:"times"`
	ExitCodes *[]*int   `json:"exit_codes"`
}

// parseHyperfine reads hyperfine's --export-json file: the command
// Spec.Result names (or its only one), its timed runs as the units of
// work, a run that exited non-zero (hyperfine keeps them with
// --ignore-failure) a failed one.
func (r *Record) parseHyperfine(data []byte, spec Spec) {
	r.Unit = UnitRuns
	results, ok := decodeList[hyperfineResult](r, data, "results", "a hyperfine --export-json file")
	if !ok {
		return
	}
	names := make([]string, len(results))
	for i, res := range results {
		names[i] = res.Command
	}
	i, ok := r.choose(names, spec.Result)
	if !ok {
		return
	}
	res := results[i]
	r.metricsGiven(map[string]*float64{"mean_time": res.Mean, "median_time": res.Median, "min_time": res.Min, "max_time": res.Max})
	r.optionalMetricsGiven(map[string]*float64{"stddev_time": res.Stddev, "user_time": res.User, "system_time": res.System})
	r.hyperfineRuns(res)
}

// hyperfineRuns counts the command's runs by their exit codes.
func (r *Record) hyperfineRuns(res hyperfineResult) {
	if res.ExitCodes == nil {
		// Without exit codes nothing shows that no run failed.
		r.Completed = len(res.Times)
		r.problem("command %q has no exit_codes (an older hyperfine): nothing shows that every run succeeded", res.Command)
		return
	}
	codes := *res.ExitCodes
	var failed []string
	for _, c := range codes {
		switch {
		case c == nil:
			failed = append(failed, "none (ended by a signal)")
		case *c != 0:
			failed = append(failed, fmt.Sprint(*c))
		}
	}
	r.Requested, r.Failed = len(codes), len(failed)
	r.Completed = r.Requested - r.Failed
	if len(failed) > 0 {
		r.problem("command %q exited non-zero in %d of its %d runs (exit codes %s)", res.Command, len(failed), len(codes), strings.Join(failed, ", "))
	}
	if len(res.Times) != len(codes) {
		r.problem("command %q has %d times for %d exit codes", res.Command, len(res.Times), len(codes))
	}
}
