package records

import (
	"strings"
	"testing"
)

func init() { addCorpus(fioCorpus) }

var fioStopped = false

// fio --output-format=json: the job named (its numjobs clones added up),
// every job of the run counted.
var fioCorpus = map[string]corpusCase{
	// Stopped by SIGINT 48 s into a 5-minute time_based job: the signal
	// line is fio's verdict, the short runtime a failed job.
	"fio/signal-2-after-48s-of-5m.json": {Format: "fio", Metric: "iops",
		Metrics: map[string]float64{"read_iops": 7662.030309, "write_iops": 39338.066766, "read_bw": 30648, "write_bw": 157352,
			"read_mean_latency": 7891233.793714, "write_mean_latency": 902253.681286, "iops": 7662.030309 + 39338.066766, "bw": 30648 + 157352},
		Unit: UnitJobs, Completed: 0, Failed: 1, Valid: false, Verdict: &fioStopped,
		Problem: "the tool says the run is not valid: fio: terminating on signal 2"},
	// numjobs 4 on each of two disks: the four clones of the /dev/sda job
	// added up (each did 524,288 reads, so their latency is the mean of
	// theirs); a read-only job has no write metric.
	"fio/eight-jobs-two-disks.json": {Format: "fio", Result: "job /dev/sda ", Metric: "iops",
		Metrics: map[string]float64{"read_iops": 12358.287762 + 12357.996464 + 12373.746194 + 12349.263927, "read_bw": 49433 + 49431 + 49494 + 49397,
			"read_mean_latency": (2587948.040319 + 2588016.048624 + 2584692.375082 + 2589822.928549) / 4,
			"iops":              12358.287762 + 12357.996464 + 12373.746194 + 12349.263927, "bw": 49433 + 49431 + 49494 + 49397},
		Unit: UnitJobs, Completed: 8, Failed: 0, Valid: true},
	// One randrw job with runtime 10 and no time_based: it ran 10,001 ms.
	"fio/randrw-10s-fio-3.36.json": {Format: "fio", Metric: "iops",
		Metrics: map[string]float64{"read_iops": 682.831717, "write_iops": 686.531347, "read_bw": 87402, "write_bw": 87876,
			"read_mean_latency": 894006.854005, "write_mean_latency": 542216.366152, "iops": 682.831717 + 686.531347, "bw": 87402 + 87876},
		Unit: UnitJobs, Completed: 1, Failed: 0, Valid: true},
}

// A time_based job that ran well short of its runtime is a failed job
// whether or not fio's signal line is in the file; one that ran its
// runtime is accepted. Each case is a minimal edit of a real run.
func TestFioStoppedEarly(t *testing.T) {
	const signal, randrw = "fio/signal-2-after-48s-of-5m.json", "fio/randrw-10s-fio-3.36.json"
	timeBased := func(runtime string) []byte {
		return realRecordEdited(t, randrw, `"runtime" : "10"`, `"runtime" : "`+runtime+`",`+"\n"+`        "time_based" : "1"`, 1)
	}
	for _, c := range []struct {
		name    string
		rel     string
		data    []byte
		valid   bool
		failed  int
		problem string
	}{
		{"the signal run without its signal line", signal, realRecordEdited(t, signal, "fio: terminating on signal 2\n", "", 1), false, 1,
			`job "sequential_read" (job 1 of 1) ran 48.170 s of its time_based runtime 5m (300 s): it was stopped early`},
		{"the signal run as if its runtime were 48s", signal, realRecordEdited(t, signal, `"runtime" : "5m"`, `"runtime" : "48s"`, 1), false, 0,
			"the tool says the run is not valid: fio: terminating on signal 2"},
		{"the randrw run time_based over its 10 s", randrw, timeBased("10"), true, 0, ""},
		{"the randrw run time_based over 10000ms", randrw, timeBased("10000ms"), true, 0, ""},
		{"the randrw run time_based over 20 s", randrw, timeBased("20"), false, 1,
			`job "test" (job 1 of 1) ran 10.001 s of its time_based runtime 20 (20 s): it was stopped early`},
		{"the randrw run time_based over a runtime fio does not write", randrw, timeBased("10 parsecs"), false, 1,
			`job "test" (job 1 of 1): runtime "10 parsecs": not a time fio reads (a positive number with us, ms, s, m, h or d)`},
	} {
		r := Parse(c.data, c.rel, Spec{Format: "fio", Metric: "iops"})
		if r.Valid != c.valid || (c.problem != "" && (len(r.Problems) == 0 || r.Problems[0] != c.problem)) {
			t.Errorf("%s: valid %v, problems %q, want first %q", c.name, r.Valid, r.Problems, c.problem)
		}
		if r.Failed != c.failed || r.Completed != 1-c.failed {
			t.Errorf("%s: completed %d failed %d, want %d failed", c.name, r.Completed, r.Failed, c.failed)
		}
	}
}

// A job whose error is not 0 failed (no published run has one: a minimal
// edit of the eight-job run's first job), and it fails the record of
// every job of the run, since they ran together.
func TestFioJobError(t *testing.T) {
	const rel = "fio/eight-jobs-two-disks.json"
	data := realRecordEdited(t, rel, `"error" : 0,`, `"error" : 5,`, 1)
	for _, job := range []string{"job /dev/sdb ", "job /dev/sda "} {
		r := Parse(data, rel, Spec{Format: "fio", Result: job, Metric: "iops"})
		if r.Valid || r.Failed != 1 || r.Completed != 7 || len(r.Problems) == 0 || r.Problems[0] != `job "job /dev/sdb " (job 1 of 8) ended with error 5` {
			t.Errorf("%q: valid %v completed %d failed %d, problems %q", job, r.Valid, r.Completed, r.Failed, r.Problems)
		}
	}
}

// Jobs of one name are one job's clones only when their group and options
// agree: two job definitions of one name (a minimal edit: the /dev/sda
// jobs renamed as the /dev/sdb ones) are ambiguous.
func TestFioJobNames(t *testing.T) {
	const rel = "fio/eight-jobs-two-disks.json"
	data := realRecordEdited(t, rel, `"jobname" : "job /dev/sda "`, `"jobname" : "job /dev/sdb "`, -1)
	r := Parse(data, rel, Spec{Format: "fio", Result: "job /dev/sdb ", Metric: "iops"})
	if r.Valid || !r.Unreadable || r.Problems[0] != `holds 2 results named "job /dev/sdb ": which one is this run's is ambiguous` {
		t.Errorf("valid %v unreadable %v, problems %q", r.Valid, r.Unreadable, r.Problems)
	}
	r = Parse(realRecord(t, rel), rel, Spec{Format: "fio", Result: "job /dev/sda", Metric: "iops"})
	if !r.Unreadable || !strings.Contains(r.Problems[0], `"job /dev/sda "`) {
		t.Errorf("a name without fio's trailing space: unreadable %v, problems %q", r.Unreadable, r.Problems)
	}
}

func TestFioSeconds(t *testing.T) {
	for in, want := range map[string]float64{"300": 300, "5m": 300, "5min": 300, "48s": 48, "10sec": 10, "500ms": 0.5, "500msec": 0.5,
		"250us": 250e-6, "1h": 3600, "2hr": 7200, "1d": 86400, "1.5m": 90, " 10S ": 10} {
		if got, err := fioSeconds(in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "m", "0", "-5", "5x", "inf", "NaN", "1e999"} {
		if got, err := fioSeconds(in); err == nil {
			t.Errorf("%q: %v, want an error", in, got)
		}
	}
}
