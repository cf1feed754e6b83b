package render

import (
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

func measured(v float64) *evidence.Evidence {
	return &evidence.Evidence{Accepted: true, HeadlineMetric: "output_throughput",
		Throughput: &evidence.Record{Metrics: map[string]float64{"output_throughput": v}}}
}

// Off a terminal, a run is one line, as it ends (no state before, no
// tick), saying its headline metric and the most time that is left.
func TestProgressLines(t *testing.T) {
	var b strings.Builder
	p := NewProgress(&b)
	p.Event(campaign.Event{Index: 1, Total: 3, Arm: "a", State: "ready", Elapsed: time.Second})
	p.Event(campaign.Event{Index: 1, Total: 3, Arm: "a", State: "ready", Elapsed: 2 * time.Second, Tick: true})
	p.Event(campaign.Event{Index: 1, Total: 3, Arm: "a", State: "succeeded", Elapsed: 10 * time.Second, Ended: true, Evidence: measured(1234.5678), Left: 2})
	p.Event(campaign.Event{Index: 2, Total: 3, Arm: "b", State: "client", Elapsed: 3 * time.Second})
	// a failed run's record may hold a figure: no comparison counts it
	p.Event(campaign.Event{Index: 2, Total: 3, Arm: "b", State: "failed", Elapsed: 20 * time.Second, Ended: true, Evidence: measured(20640), Left: 1})
	// a run that ended judged, its evidence censored (the arm exited 3,
	// which the launcher calls failed), says censored, with no figure
	censored := measured(999)
	censored.Accepted = false
	p.Event(campaign.Event{Index: 3, Total: 3, Arm: "a", State: "failed", Elapsed: 15 * time.Second, Ended: true, Evidence: censored})
	p.Done()
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3 (one a run):\n%s", len(lines), b.String())
	}
	for i, want := range []string{"run 1/3 a        succeeded  10.0s  1,234.6  2 left, at most ~20s", "run 2/3 b        failed     20.0s        -  1 left, at most ~15s", "run 3/3 a        censored   15.0s        -"} {
		if !strings.Contains(lines[i], want) {
			t.Errorf("line %d: %q, want it to hold %q", i+1, lines[i], want)
		}
	}
}

// Every line of progress fits the width: on a terminal the live line is
// cut one column short of it (a wrapped live line is never erased), and
// the lines that stay, on a terminal or off it, are wrapped.
func TestProgressNeverWraps(t *testing.T) {
	for _, tty := range []bool{true, false} {
		var b strings.Builder
		p := newProgress(&b, tty, 40)
		long := campaign.Event{Index: 12, Total: 84, Arm: "blocking", Cell: "concurrency=128,prompt_len=4096", State: "client", Elapsed: time.Second}
		p.Event(long)
		long.State, long.Ended, long.Evidence, long.Left = "succeeded", true, measured(31337), 72
		p.Event(long)
		p.Event(campaign.Event{Look: &rundir.Look{Pairs: 3, Verdict: "inconclusive", Cell: "concurrency=128,prompt_len=4096"}})
		p.Done()
		for _, l := range strings.FieldsFunc(b.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
			l = strings.TrimPrefix(l, "\033[K")
			if len(l) > 40 || (tty && strings.Contains(l, "client") && len(l) > 39) {
				t.Errorf("terminal %v: a line of %d columns, wider than 40: %q", tty, len(l), l)
			}
		}
	}
}

// The lines of runs 9 and 10 of 12, one failed ("-") and one with a
// figure, keep their columns: the time, the figure and what is left
// start where the line above has them.
func TestProgressColumnsStayPut(t *testing.T) {
	var b strings.Builder
	p := NewProgress(&b)
	p.Event(campaign.Event{Index: 9, Total: 12, Arm: "async", State: "failed", Elapsed: 3 * time.Second, Ended: true, Left: 3})
	p.Event(campaign.Event{Index: 10, Total: 12, Arm: "blocking", State: "succeeded", Elapsed: 3 * time.Second, Ended: true, Evidence: measured(26294), Left: 2})
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), b.String())
	}
	for _, col := range []string{"3.0s", "left"} {
		if i, j := strings.Index(lines[0], col), strings.Index(lines[1], col); i != j {
			t.Errorf("%q at column %d, then %d:\n%s", col, i, j, b.String())
		}
	}
}

// A sweep's run names its cell, as the summary's arm column does: three
// runs of arm async are otherwise one line thrice.
func TestProgressLineNamesTheCell(t *testing.T) {
	var b strings.Builder
	p := NewProgress(&b)
	p.Event(campaign.Event{Index: 3, Total: 84, Arm: "async", Cell: "concurrency=32", State: "succeeded", Ended: true, Elapsed: time.Second})
	if got := b.String(); !strings.Contains(got, "run  3/84 async concurrency=32 succeeded") {
		t.Errorf("progress %q does not name the cell", got)
	}
}

// A sweep's run line at 80 columns stays one line: the estimate's words
// give way before the line wraps, and the count of runs left stays.
func TestProgressLeftWordsGiveWayToTheCell(t *testing.T) {
	for _, c := range []struct {
		cell, want string
	}{
		{"", "  23 left, at most ~3m50s"},
		{"x=1", "  23 left, ~3m50s"},
		{"concurrency=128", "  23 left"},
	} {
		var b strings.Builder
		p := newProgress(&b, false, 80)
		p.Event(campaign.Event{Index: 61, Total: 84, Arm: "blocking", Cell: c.cell, State: "succeeded", Ended: true, Elapsed: 10 * time.Second, Evidence: measured(31337), Left: 23})
		line := strings.TrimSuffix(b.String(), "\n")
		if strings.Contains(line, "\n") || len(line) > 80 {
			t.Errorf("cell %q: not one line of 80 columns:\n%s", c.cell, b.String())
		}
		if !strings.HasSuffix(line, c.want) {
			t.Errorf("cell %q: %q, want it to end %q", c.cell, line, c.want)
		}
	}
}

// The summary gives every run that started a row and the runs after the
// last of them one row that says why they did not run.
func TestSummaryRowsAndWhyTheRestDidNotRun(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	p := &rundir.Plan{Scenario: "s", Order: "abba", Seed: 1, Runs: []rundir.PlannedRun{
		{Index: 1, Arm: "a", Result: &rundir.Outcome{State: "succeeded", Started: start, Ended: start.Add(1500 * time.Millisecond)}},
		{Index: 2, Arm: "b"}, {Index: 3, Arm: "b"}, {Index: 4, Arm: "a"},
	}}
	r := &campaign.Result{Out: "out/s", Plan: p, Decided: "look at pair 1 of at most 2: improved", Runs: make([]campaign.Run, len(p.Runs))}
	for i := range p.Runs {
		r.Runs[i].Planned = &p.Runs[i]
	}
	r.Runs[0].Status = &rundir.Status{State: rundir.StateSucceeded}
	r.Runs[0].Evidence = measured(42)
	var b strings.Builder
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"4 runs planned (abba order, seed 1)", "accepted", "1.5s", "42", "2-4", "not needed: the sequential design stopped at its look at pair 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// A Slurm job requeued and cancelled before its new attempt ran leaves its
// earlier attempt's status and accepted evidence in the run directory; the
// summary must say what compare says of it (censored, its controller
// failed), not show the stale attempt as an accepted success.
func TestSummaryCensorsARunWhoseControllerFailed(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	never := &rundir.Outcome{State: "cancelled", ExitCode: -1, Started: start, Ended: start.Add(time.Second),
		Detail: "slurm job 7 CANCELLED; requeued (restart 1); it never ran again, so no attempt of it has a result"}
	p := &rundir.Plan{Scenario: "s", Order: "abba", Seed: 1, Runs: []rundir.PlannedRun{
		{Index: 1, Arm: "a", Dir: "out/s/runs/1-a", Result: never},
		{Index: 2, Arm: "b", Result: &rundir.Outcome{State: "succeeded", Started: start, Ended: start.Add(time.Second)}},
		{Index: 3, Arm: "b", Result: &rundir.Outcome{State: "failed", ExitCode: 1, Started: start, Ended: start.Add(time.Second)}},
	}}
	r := &campaign.Result{Out: "out/s", Plan: p, Runs: make([]campaign.Run, len(p.Runs))}
	for i := range p.Runs {
		r.Runs[i].Planned = &p.Runs[i]
		r.Runs[i].Status = &rundir.Status{State: rundir.StateSucceeded}
		r.Runs[i].Evidence = measured(42)
	}
	// A failed controller that left no evidence: its status says why.
	r.Runs[2].Status = &rundir.Status{State: rundir.StateFailed, Reasons: []reason.Reason{reason.New(reason.LaunchFailed, "srun: no such partition")}}
	r.Runs[2].Evidence = nil
	var b strings.Builder
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	var row1, row2, row3 string
	for _, l := range strings.Split(b.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "| 1 "):
			row1 = l
		case strings.HasPrefix(l, "| 2 "):
			row2 = l
		case strings.HasPrefix(l, "| 3 "):
			row3 = l
		}
	}
	if !strings.Contains(row3, "no such partition") {
		t.Errorf("run 3's row: %q, want its status's reason", row3)
	}
	for _, want := range []string{"cancelled", "censored", "it never ran again", "status -1"} {
		if !strings.Contains(row1, want) {
			t.Errorf("run 1's row lacks %q: %q\n%s", want, row1, b.String())
		}
	}
	if strings.Contains(row1, "accepted") || strings.Contains(row1, "succeeded") {
		t.Errorf("run 1's row shows its stale attempt as a success: %q", row1)
	}
	if !strings.Contains(row2, "succeeded") || !strings.Contains(row2, "accepted") {
		t.Errorf("run 2's row: %q, want it succeeded and accepted", row2)
	}
}

// A concurrent campaign's summary says how many of its blocks ran side
// by side, and names each block that did not or that shared a node.
func TestSummarySaysWhichBlocksRanSideBySide(t *testing.T) {
	p := &rundir.Plan{Scenario: "s", Order: "abba", Concurrent: true}
	r := &campaign.Result{Plan: p, Together: []campaign.Together{
		{Runs: []int{1, 2}, Overlapped: true}, {Runs: []int{3, 4}}, {Runs: []int{5, 6}, Overlapped: true, Shared: []string{"c2"}}}}
	var b strings.Builder
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"abba order, the runs of each block side by side", "the runs of 2 of 3 blocks that ended overlapped in time",
		"runs 3 4 did not overlap in time", "runs 5 6 shared node c2"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

// A censored run's reason is prefixed with what its allocation said only
// where the launcher said something beyond the exit code (an empty
// detail, a local leader's plain exit, adds nothing), whatever the words:
// a detail that happens to start "exit status" is the launcher's and is
// shown. Before, the summary hid any detail starting with those words.
func TestSummaryShowsALaunchersDetailByItsPresence(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	censored := &evidence.Evidence{Reasons: []reason.Reason{reason.New(reason.LaunchFailed, "rank 0 failed")}}
	p := &rundir.Plan{Scenario: "s", Order: "abba", Seed: 1, Runs: []rundir.PlannedRun{
		{Index: 1, Arm: "a", Result: &rundir.Outcome{State: "failed", ExitCode: 3, Started: start, Ended: start.Add(time.Second)}},
		{Index: 2, Arm: "b", Result: &rundir.Outcome{State: "failed", ExitCode: 3, Started: start, Ended: start.Add(time.Second),
			Detail: "exit status of the job step: node lost"}},
	}}
	r := &campaign.Result{Out: "out/s", Plan: p, Runs: make([]campaign.Run, len(p.Runs))}
	for i := range p.Runs {
		r.Runs[i].Planned = &p.Runs[i]
		r.Runs[i].Status = &rundir.Status{State: rundir.StateFailed}
		r.Runs[i].Evidence = censored
	}
	var b strings.Builder
	if err := WriteSummary(&b, r); err != nil {
		t.Fatal(err)
	}
	var row1, row2 string
	for _, l := range strings.Split(b.String(), "\n") {
		switch {
		case strings.HasPrefix(l, "| 1 "):
			row1 = l
		case strings.HasPrefix(l, "| 2 "):
			row2 = l
		}
	}
	if strings.Contains(row1, "; ") {
		t.Errorf("run 1's row: %q, want its reason alone (its launcher said nothing more)", row1)
	}
	if !strings.Contains(row2, "node lost; ") {
		t.Errorf("run 2's row: %q, want the launcher's detail before the reason\n%s", row2, b.String())
	}
}

// Off a terminal a run is one line as it ends; with Verbose (run -v) every
// phase is a line too, so a log shows where a run was when it stopped.
func TestVerboseProgressWritesEveryPhase(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		var b strings.Builder
		p := NewProgress(&b)
		p.Verbose = verbose
		p.Event(campaign.Event{Index: 1, Total: 2, Arm: "a", State: "client", Elapsed: time.Second})
		p.Event(campaign.Event{Index: 1, Total: 2, Arm: "a", State: "succeeded", Ended: true, Elapsed: 2 * time.Second})
		if got := strings.Contains(b.String(), "run 1/2 a        client"); got != verbose {
			t.Errorf("verbose %v: the client phase written %v:\n%s", verbose, got, b.String())
		}
		if !strings.Contains(b.String(), "run 1/2 a        succeeded") {
			t.Errorf("verbose %v: the run's end not written:\n%s", verbose, b.String())
		}
	}
}
