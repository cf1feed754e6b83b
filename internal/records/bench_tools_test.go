package records

import "testing"

// A real file of another tool given to each of these formats is
// unreadable, its first problem the root cause (the file is not the
// format's), and no count says anything failed.
func TestBenchToolFormatsReadOtherToolsFilesAsUnreadable(t *testing.T) {
	files := map[string]string{
		"hyperfine":        "hyperfine/1brc-two-commands.json",
		"gobench":          "gobench/benchstat-crc-old.txt",
		"pytest-benchmark": "pytest-benchmark/fib-two-benchmarks.json",
		"fio":              "fio/randrw-10s-fio-3.36.json",
		"nccl-tests":       "nccl-tests/h100x16-two-node-all-reduce-validated.txt",
		"vllm":             "vllm/sweep-seqs4-run0.json",
	}
	for _, format := range []string{"hyperfine", "gobench", "pytest-benchmark", "fio", "nccl-tests"} {
		for owner, rel := range files {
			if owner == format {
				continue
			}
			r := Parse(realRecord(t, rel), rel, Spec{Format: format, Metric: DefaultMetric(format)})
			if r.Valid || !r.Unreadable || r.Failed > 0 {
				t.Errorf("%s read as %s: valid %v unreadable %v failed %d, problems %q", rel, format, r.Valid, r.Unreadable, r.Failed, r.Problems)
			}
		}
	}
}
