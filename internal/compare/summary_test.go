package compare

import (
	"fmt"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/arms/ranks"
	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/termwidth"
)

// A comparison's summary is a few lines that fit 80 columns, the verdict
// line last, after where the full report is with its warnings counted:
// an arm a line, or a censored
// one's first root causes, each cut to three lines, and where the full
// report is.
func TestSummaryIsShortAndEndsWithTheVerdict(t *testing.T) {
	accepted := Compare(runsOf(map[string][]float64{"blocking": {24301.2, 24288.1, 24310.5}, "async": {38412.7, 38390.2, 38430.9}}), Options{Effect: 1})
	// Cut in the middle: the tail of a rank's last log line is the cause.
	long := strings.Repeat("a rank's last log line, long ", 20) + "executable file not found in $PATH"
	censored := &Result{Verdict: Censored, Baseline: "blocking", Warnings: []string{"unsigned"}, Reasons: []reason.Reason{
		reason.New(reason.RankExited, "ctx rank 0 exited with status 127; last log line: %s", long),
		reason.New(reason.ArmModeMismatch, "ctx rank 1 logged no mode line"),
		reason.New(reason.ArmModeMismatch, "ctx rank 2 logged no mode line"),
		reason.New(reason.ArmModeMismatch, "ctx rank 3 logged no mode line"),
	}}
	for name, c := range map[string]struct {
		r    *Result
		want []string
	}{
		"accepted": {accepted, []string{"output_throughput (tokens/s), baseline blocking:", "  async      n=3   median 38,413  +58.", "improved", "  blocking   n=3   median 24,301  baseline"}},
		"censored": {censored, []string{"root causes first:\n  rank-exited", " ... ", "executable file not found in $PATH\n", "  arm-mode-mismatch", "  and 2 more root cause(s)\n", "full report, with its 1 warning(s): abbench compare out\n"}},
	} {
		var b strings.Builder
		w := termwidth.NewWriter(&b, 80)
		if err := NewReport(c.r).WriteSummary(w, "abbench compare out"); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) > 10 {
			t.Errorf("%s: %d lines, want at most 10:\n%s", name, len(lines), out)
		}
		for _, l := range lines {
			if termwidth.Display(l) > 80 {
				t.Errorf("%s: a line of %d columns: %q", name, termwidth.Display(l), l)
			}
		}
		if !strings.Contains(out, ": abbench compare out\nverdict: "+NewReport(c.r).Headline()[:20]) {
			t.Errorf("%s: the verdict is not last, after where the full report is:\n%s", name, out)
		}
		joined := strings.ReplaceAll(out, "\n    ", " ") // a reason's wrapped lines read as one
		for _, want := range c.want {
			if !strings.Contains(joined, want) {
				t.Errorf("%s: no %q in\n%s", name, want, out)
			}
		}
	}
}

// A sweep's summary is a line per treatment of every cell, a censored
// cell's first root cause, where the full report is, and the sweep's
// verdict last; its table of cells fits 80 columns in the full report.
func TestSweepSummaryIsALineACell(t *testing.T) {
	sw := CompareSweep(censoredCellRuns(), Options{})
	var b strings.Builder
	w := termwidth.NewWriter(&b, 80)
	if err := sw.WriteSummary(w, "abbench compare out"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) > 10 || !strings.HasPrefix(lines[len(lines)-1], "sweep: censored (Holm's step-down over 3 test(s))") {
		t.Errorf("%d lines, the last %q:\n%s", len(lines), lines[len(lines)-1], out)
	}
	for _, want := range []string{"\n  concurrency=8 async +10.10% [+", "improved\n", "\n  concurrency=128 censored: ", "full report, with its 3 warning(s): abbench compare out\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	b.Reset()
	if err := sw.WriteText(w); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "|") && termwidth.Display(l) > 80 {
			t.Errorf("a table line of %d columns: %q", termwidth.Display(l), l)
		}
		if strings.HasPrefix(l, "| con") && strings.HasPrefix(strings.Split(l, "|")[1], " concur ") {
			t.Errorf("the cell's name is cut: %q", l)
		}
	}
}

// A censored summary names a reason's runs by their directories' names,
// keeping its three lines for the cause (a refused connection's words
// were cut for three run paths), and cuts a long reason between words.
func TestSummaryReasonKeepsItsCause(t *testing.T) {
	rs := reason.New(reason.RequestsFailed, "0 of 256 requests succeeded (256 failed); the first: request 0: connect: dial tcp 127.0.0.1:1: connect: connection refused")
	for i := range 3 {
		rs.Runs = append(rs.Runs, fmt.Sprintf("/home/someone/campaigns/terminal-agreement-openai-2026-12-03/runs/%d-async", i+1))
	}
	var b strings.Builder
	if err := NewReport(&Result{Verdict: Censored, Baseline: "blocking", Reasons: []reason.Reason{rs}}).WriteSummary(termwidth.NewWriter(&b, 80), "abbench compare out"); err != nil {
		t.Fatal(err)
	}
	joined := strings.ReplaceAll(b.String(), "\n    ", " ")
	if !strings.Contains(joined, "connection refused (3 runs: 1-async, 2-async, 3-async)") {
		t.Fatalf("the cause or the runs' names lost:\n%s", b.String())
	}
	for _, c := range []struct{ s, want string }{
		{"requests-failed: the first: connect: dial tcp: connect: connection refused (3 runs: a, b, c)", "requests-failed: ... b, c)"},
		{strings.Repeat("x", 60), strings.Repeat("x", 18) + " ... " + strings.Repeat("x", 7)},
	} {
		if got := clipMiddle(c.s, 30); got != c.want {
			t.Errorf("clipMiddle(%q, 30) = %q, want %q", c.s, got, c.want)
		}
	}
}

// A rank whose program was not found: its summary line, cut in its
// middle, keeps the program's name, which the rank wrapper's question
// names again at the line's end (it kept "misspelled, or not installed
// where the rank runs?" and lost the name).
func TestSummaryKeepsTheProgramNotFound(t *testing.T) {
	_, err := rankwrap.LookPath("disagsim", strings.Repeat("/opt/tools/bin:", 8)+"/usr/bin")
	rs := reason.New(reason.RankExited, "gen rank 0 %s during phase start; last log line: abbench-rank: %v", ranks.Exited(127).Reason, err).At("async", "gen", 0)
	rs.Runs = []string{"out/runs/1-async"}
	var b strings.Builder
	if err := NewReport(&Result{Verdict: Censored, Baseline: "blocking", Reasons: []reason.Reason{rs}}).WriteSummary(termwidth.NewWriter(&b, 80), "abbench compare out"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ReplaceAll(b.String(), "\n    ", " "), `"disagsim"`) {
		t.Errorf("the program's name lost:\n%s", b.String())
	}
}
