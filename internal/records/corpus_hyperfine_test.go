package records

import (
	"strings"
	"testing"
)

func init() { addCorpus(hyperfineCorpus) }

const brcCommand = "cargo run --release --bin 1brc measurements_1000000000.txt"

// hyperfine --export-json: one row per file, the command named as a
// scenario's throughput.result names it.
var hyperfineCorpus = map[string]corpusCase{
	// Two commands of three runs each, every exit code 0.
	"hyperfine/1brc-two-commands.json": {Format: "hyperfine", Result: brcCommand, Metric: "mean_time",
		Metrics: map[string]float64{"mean_time": 11.61481411152, "median_time": 11.81813333352, "min_time": 9.877873458520002,
			"max_time": 13.148435542520001, "stddev_time": 1.6447334482677183, "user_time": 43.55566462666667, "system_time": 7.316738046666667},
		Unit: UnitRuns, Completed: 3, Failed: 0, Valid: true},
	// Five commands; the fourth is the fastest.
	"hyperfine/meowhw-five-commands.json": {Format: "hyperfine", Result: "./target/mycat5 test.txt", Metric: "mean_time",
		Metrics: map[string]float64{"mean_time": 10.527707432120001, "median_time": 10.54934323512, "min_time": 10.32999727012,
			"max_time": 10.70378179112, "stddev_time": 0.18782917242375094, "user_time": 0.029945499999999996, "system_time": 0.6462427333333333},
		Unit: UnitRuns, Completed: 3, Failed: 0, Valid: true},
}

// No published export holds a failed run: hyperfine keeps one only with
// --ignore-failure. Each case is a minimal edit of the real 1brc export,
// its first command's first exit code (or its command name) changed.
func TestHyperfineFailedRunIsCensored(t *testing.T) {
	const rel = "hyperfine/1brc-two-commands.json"
	const firstCode = "\"exit_codes\": [\n        0,"
	cases := []struct {
		name, old, new string
		result         string
		failed         int
		problem        string
	}{
		{"exit code 1", firstCode, "\"exit_codes\": [\n        1,", brcCommand, 1,
			`command "` + brcCommand + `" exited non-zero in 1 of its 3 runs (exit codes 1)`},
		{"ended by a signal", firstCode, "\"exit_codes\": [\n        null,", brcCommand, 1,
			`command "` + brcCommand + `" exited non-zero in 1 of its 3 runs (exit codes none (ended by a signal))`},
		{"no exit codes", `"exit_codes"`, `"exit_codes_absent"`, brcCommand, -1,
			`command "` + brcCommand + `" has no exit_codes (an older hyperfine): nothing shows that every run succeeded`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := realRecordEdited(t, rel, c.old, c.new, 1)
			r := Parse(data, rel, Spec{Format: "hyperfine", Result: c.result, Metric: "mean_time"})
			if r.Valid || r.Unreadable || r.Failed != c.failed || len(r.Problems) == 0 || r.Problems[0] != c.problem {
				t.Fatalf("valid %v unreadable %v failed %d, problems %q, want first %q", r.Valid, r.Unreadable, r.Failed, r.Problems, c.problem)
			}
			if r.Metrics["mean_time"] != 11.61481411152 {
				t.Errorf("mean_time %v: the failure changed what was read", r.Metrics["mean_time"])
			}
		})
	}
	// A failed run of one command does not touch another's record.
	data := realRecordEdited(t, rel, firstCode, "\"exit_codes\": [\n        1,", 1)
	other := "cargo run --release --bin lucretiel_1brc measurements_1000000000.txt"
	if r := Parse(data, rel, Spec{Format: "hyperfine", Result: other, Metric: "mean_time"}); !r.Valid || r.Metrics["mean_time"] != 11.55440516752 {
		t.Fatalf("the other command: valid %v, %v, problems %q", r.Valid, r.Metrics, r.Problems)
	}
}

// A file of several commands is read only for the one the scenario names:
// without a name, with a name it lacks, or with a name two commands share,
// it is unreadable, naming its commands.
func TestHyperfineCommandMustBeNamed(t *testing.T) {
	const rel = "hyperfine/1brc-two-commands.json"
	clean := realRecord(t, rel)
	// A minimal edit: the second command given the first one's name.
	same := realRecordEdited(t, rel, "--bin lucretiel_1brc", "--bin 1brc", 1)
	for _, c := range []struct {
		data         []byte
		result, want string
	}{
		{clean, "", `holds 2 results ("` + brcCommand + `", "cargo run --release --bin lucretiel_1brc measurements_1000000000.txt"): name this run's`},
		{clean, "cargo run", `holds no result named "cargo run"`},
		{same, brcCommand, `holds 2 results named "` + brcCommand + `"`},
	} {
		r := Parse(c.data, rel, Spec{Format: "hyperfine", Result: c.result, Metric: "mean_time"})
		if r.Valid || !r.Unreadable || !strings.HasPrefix(r.Problems[0], c.want) {
			t.Errorf("result %q: valid %v unreadable %v, problems %q, want first %q", c.result, r.Valid, r.Unreadable, r.Problems, c.want)
		}
	}
}
