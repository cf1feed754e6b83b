package render

import (
	"fmt"
	"io"
	"time"

	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/launcher"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/textout"
	"github.com/abbench/abbench/internal/texttable"
)

// WriteSummary draws the campaign's runs as a table: state, evidence,
// time, the headline metric and the first reason of each.
func WriteSummary(w io.Writer, r *campaign.Result) error {
	p := r.Plan
	design := fmt.Sprintf("%s order", p.Order)
	if q := p.Sequential; q != nil {
		design += fmt.Sprintf(", sequential %d-%d pairs", q.MinPairs, q.MaxPairs)
	}
	if p.Warmup > 0 {
		design += fmt.Sprintf(", %d warm-up block(s)", p.Warmup)
	}
	if p.Concurrent {
		design += ", the runs of each block side by side"
	}
	out := textout.New(w)
	out.Printf("scenario %s, %d runs planned (%s, seed %d) in %s\n\n", p.Scenario, len(p.Runs), design, p.Seed, r.Out)
	var rows [][]string
	metric := "headline metric"
	last := len(r.Runs) // runs after the last that started are summed up in one row
	for last > 0 && r.Runs[last-1].Planned.Result == nil && r.Runs[last-1].Status == nil {
		last--
	}
	for _, run := range r.Runs[:last] {
		if run.Evidence != nil && run.Evidence.HeadlineMetric != "" {
			metric = run.Evidence.HeadlineMetric
		}
		rows = append(rows, summaryRow(p, run))
	}
	if last < len(r.Runs) {
		why := "the campaign was interrupted"
		switch {
		case r.Decided != "":
			why = "not needed: the sequential design stopped at its " + r.Decided
		case r.Stopped != "":
			why = "stopped early (see above)"
		case r.Unrecorded != nil:
			why = "stopped: " + rundir.PlanFile + " could not be written (see below)"
		}
		rows = append(rows, []string{fmt.Sprintf("%d-%d", last+1, len(r.Runs)), "", "not run", "-", "-", "-", why})
	}
	// The metric is named above the table, not in its header: a long
	// name (output_throughput) would take the columns the reason needs.
	out.Printf("raw %s of each run:\n", metric)
	if err := texttable.Write(out, []string{"run", "arm", "run", "evidence", "took", "raw", "reason"}, rows); err != nil {
		return err
	}
	if p.Concurrent {
		writeTogether(out, r.Together)
	}
	return out.Err()
}

// WriteBrief sums the campaign's runs up in a line: how many ran of those
// planned, how many were accepted, and why the others did not run.
func WriteBrief(w io.Writer, r *campaign.Result) error {
	ran, accepted := 0, 0
	for _, run := range r.Runs {
		if run.Planned.Result != nil || run.Status != nil {
			ran++
		}
		if row := summaryRow(r.Plan, run); row[3] == "accepted" {
			accepted++
		}
	}
	line := fmt.Sprintf("%s: %d of %d planned runs ran, %d accepted", r.Plan.Scenario, ran, len(r.Runs), accepted)
	switch {
	case ran == len(r.Runs):
	case r.Decided != "":
		line += "; the sequential design stopped at its " + r.Decided
	case r.Stopped != "":
		line += "; stopped early"
	}
	out := textout.New(w)
	out.Println(line)
	return out.Err()
}

// summaryRow is one run's row: its state, evidence, time, headline metric
// and first reason. A run whose controller failed (rundir.Outcome's
// ControllerFailed: a requeued job that never ran again, most often) is
// censored whatever evidence its directory's newest attempt holds, as
// compare censors it: that attempt is no result of this run. Without
// evidence, its status says why, as compare says.
func summaryRow(p *rundir.Plan, run campaign.Run) []string {
	pr := run.Planned
	state, took, ev, headline, why := "not run", "-", "-", Headline(run.Evidence), ""
	if run.Status != nil {
		state = run.Status.State
	}
	if pr.Result != nil {
		took = pr.Result.Ended.Sub(pr.Result.Started).Round(10 * time.Millisecond).String()
	}
	switch {
	case pr.Result.ControllerFailed():
		state, ev, headline, why = pr.Result.State, "censored", "-", controllerFailure(pr)
		if run.Evidence == nil && run.Status != nil && len(run.Status.Reasons) > 0 {
			why = run.Status.Reasons[0].String()
		}
	case run.Evidence != nil && run.Evidence.Accepted:
		ev = "accepted"
	case run.Evidence != nil:
		ev, why = "censored", runReason(run)
	case pr.Result != nil:
		why = runReason(run)
	}
	arm := pr.Arm
	if pr.Warmup {
		arm += " (warm-up)"
	}
	arm, why = cellRun(p, pr, arm, why)
	return []string{fmt.Sprint(pr.Index), arm, state, ev, took, headline, why}
}

// controllerFailure says a run's controller failed, with what its
// allocation said.
func controllerFailure(pr *rundir.PlannedRun) string {
	if pr.Result.Detail == "" {
		return fmt.Sprintf("controller exited with status %d (see %s)", pr.Result.ExitCode, pr.Dir)
	}
	return fmt.Sprintf("%s: controller exited with status %d (see %s)", pr.Result.Detail, pr.Result.ExitCode, pr.Dir)
}

// runReason is the first reason a run was not accepted, what its
// allocation said first (a Slurm job's state).
func runReason(run campaign.Run) string {
	pr := run.Planned
	if run.Evidence != nil && len(run.Evidence.Reasons) > 0 {
		r := run.Evidence.RootCausesFirst()[0].String()
		if pr.Result != nil && pr.Result.State != string(launcher.Succeeded) && pr.Result.Detail != "" {
			r = pr.Result.Detail + "; " + r
		}
		return r
	}
	if run.Status != nil && len(run.Status.Reasons) > 0 {
		return run.Status.Reasons[0].String()
	}
	if pr.Result != nil {
		return controllerFailure(pr)
	}
	return "not run"
}

// Headline is a run's headline metric, formatted, or "-".
func Headline(ev *evidence.Evidence) string {
	if ev == nil || ev.Throughput == nil {
		return "-"
	}
	v, ok := ev.Throughput.Metrics[ev.Headline()]
	if !ok {
		return "-"
	}
	return numfmt.Value(v)
}
