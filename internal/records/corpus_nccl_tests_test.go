package records

import (
	"slices"
	"testing"
)

func init() { addCorpus(ncclTestsCorpus) }

var ncclChecked = true

// nccl-tests console output: a row per message size, the average bus
// bandwidth its own line prints.
var ncclTestsCorpus = map[string]corpusCase{
	// validation: 0 (-c 0): every #wrong is N/A, nothing was checked, and
	// the "Out of bounds values : 0 OK" it prints says nothing.
	"nccl-tests/a100x8-all-reduce-validation-off.txt": {Format: "nccl-tests", Metric: "bus_bandwidth",
		Metrics: map[string]float64{"bus_bandwidth": 68.4048, "peak_bus_bandwidth": 235.26},
		Unit:    UnitSizes, Completed: 34, Failed: 0, Valid: false, Verdict: &ncclChecked,
		Problem: "34 of 34 sizes were not checked (#wrong N/A: validation off): nccl-tests did not check the results; run it with -c 1"},
	"nccl-tests/a100x8-alltoall-validation-off.txt": {Format: "nccl-tests", Metric: "bus_bandwidth",
		Metrics: map[string]float64{"bus_bandwidth": 58.6481, "peak_bus_bandwidth": 226.16},
		Unit:    UnitSizes, Completed: 34, Failed: 0, Valid: false, Verdict: &ncclChecked,
		Problem: "34 of 34 sizes were not checked (#wrong N/A: validation off): nccl-tests did not check the results; run it with -c 1"},
	// validation: 1, #wrong 0 at every one of 31 sizes.
	"nccl-tests/h100x16-two-node-all-reduce-validated.txt": {Format: "nccl-tests", Metric: "bus_bandwidth",
		Metrics: map[string]float64{"bus_bandwidth": 70.742, "peak_bus_bandwidth": 338.82},
		Unit:    UnitSizes, Completed: 31, Failed: 0, Valid: true, Verdict: &ncclChecked},
}

// No published run has wrong values: each case is a minimal edit of the
// validated H100 run (the clean one is accepted in the corpus): its
// largest size's #wrong set above 0 (a failed size), its Out of bounds
// line made FAILED (the tool's verdict), or its summary replaced by the
// line nccl-tests prints when an NCCL call fails.
func TestNCCLTestsWrongValues(t *testing.T) {
	const rel = "nccl-tests/h100x16-two-node-all-reduce-validated.txt"
	for _, c := range []struct {
		name, old, new  string
		failed          int
		verdict         bool
		problem, reason string
	}{
		{"12 wrong out of place", "338.82      0", "338.82     12", 1, true, "size 8589934592 B: 12 wrong values out of place", ""},
		{"3 wrong in place", "337.35      0", "337.35      3", 1, true, "size 8589934592 B: 3 wrong values in place", ""},
		{"out of bounds", "# Out of bounds values : 0 OK", "# Out of bounds values : 15 FAILED", 0, false,
			"the tool says the run is not valid: Out of bounds values : 15 FAILED", "Out of bounds values : 15 FAILED"},
		{"an NCCL call failed", "# Out of bounds values : 0 OK", "ztan-mig-235z: Test NCCL failure common.cu:1005 'unhandled system error'", 0, false,
			"the tool says the run is not valid: ztan-mig-235z: Test NCCL failure common.cu:1005 'unhandled system error'", ""},
	} {
		r := Parse(realRecordEdited(t, rel, c.old, c.new, 1), rel, Spec{Format: "nccl-tests", Metric: "bus_bandwidth"})
		if r.Valid || r.Unreadable || r.Failed != c.failed || r.Completed != 31-c.failed || r.Problems[0] != c.problem {
			t.Errorf("%s: valid %v completed %d failed %d, problems %q, want first %q", c.name, r.Valid, r.Completed, r.Failed, r.Problems, c.problem)
		}
		if r.Verdict == nil || r.Verdict.Valid != c.verdict || (c.reason != "" && !slices.Equal(r.Verdict.Reasons, []string{c.reason})) {
			t.Errorf("%s: verdict %+v, want valid %v", c.name, r.Verdict, c.verdict)
		}
	}
}

// Two runs in one file are two results with no name to tell them apart:
// unreadable, not the first or the last.
func TestNCCLTestsOneRunAFile(t *testing.T) {
	const rel = "nccl-tests/h100x16-two-node-all-reduce-validated.txt"
	data := append(realRecord(t, rel), realRecord(t, "nccl-tests/a100x8-all-reduce-validation-off.txt")...)
	r := Parse(data, rel, Spec{Format: "nccl-tests", Metric: "bus_bandwidth"})
	if !r.Unreadable || r.Problems[0] != `holds 2 nccl-tests runs (2 "# Avg bus bandwidth" lines): give each run's output its own file` {
		t.Errorf("unreadable %v, problems %q", r.Unreadable, r.Problems)
	}
}

// The record lists the message sizes the run swept, in its order, so a
// comparison can hold the sweep equal: the published two-node run swept
// 8 B to 8 GiB, doubling (-b 8 -e 8G -f 2).
func TestNCCLTestsSweep(t *testing.T) {
	const rel = "nccl-tests/h100x16-two-node-all-reduce-validated.txt"
	r := Parse(realRecord(t, rel), rel, Spec{Format: "nccl-tests", Metric: "bus_bandwidth"})
	var want []uint64
	for size := uint64(8); size <= 8<<30; size *= 2 {
		want = append(want, size)
	}
	if !slices.Equal(r.Sweep, want) {
		t.Fatalf("sweep %v, want %v", r.Sweep, want)
	}
	// A row the output lacks is a sweep of its own.
	r = Parse(realRecordEdited(t, rel, "\n        1024", "\n#       1024", 1), rel, Spec{Format: "nccl-tests", Metric: "bus_bandwidth"})
	if len(r.Sweep) != len(want)-1 || slices.Contains(r.Sweep, 1024) {
		t.Fatalf("sweep without its 1024 B row: %v", r.Sweep)
	}
}
