package campaign

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/internal/texttable"
	"github.com/abbench/abbench/launcher"
	"github.com/abbench/abbench/reason"
)

// WriteSummary draws the campaign's runs as a table: state, evidence,
// time, the headline metric and the first reason of each.
func WriteSummary(w io.Writer, r *Result) error {
	p := r.Plan
	fmt.Fprintf(w, "scenario %s, %d runs (%s order, seed %d) in %s\n\n", p.Scenario, len(p.Runs), p.Order, p.Seed, r.Out)
	var rows [][]string
	metric := "headline metric"
	for _, run := range r.Runs {
		pr := run.Planned
		state, took, ev, why := "not run", "-", "-", ""
		if run.Status != nil {
			state = run.Status.State
		}
		if pr.Result != nil {
			took = pr.Result.Ended.Sub(pr.Result.Started).Round(10 * time.Millisecond).String()
		}
		if run.Evidence != nil {
			ev = "accepted"
			if !run.Evidence.Accepted {
				ev, why = "censored", run.Reason()
			}
			if run.Evidence.HeadlineMetric != "" {
				metric = run.Evidence.HeadlineMetric
			}
		} else if pr.Result != nil {
			why = run.Reason()
		}
		rows = append(rows, []string{fmt.Sprint(pr.Index), pr.Arm, state, ev, took, Headline(run.Evidence), why})
	}
	return texttable.Write(w, []string{"run", "arm", "run", "evidence", "took", metric + " (raw)", "reason"}, rows)
}

// Reason is the first reason a run was not accepted, what its allocation
// said first (a Slurm job's state).
func (run Run) Reason() string {
	pr := run.Planned
	if run.Evidence != nil && len(run.Evidence.Reasons) > 0 {
		r := reason.Group(run.Evidence.Reasons)[0].String()
		if pr.Result != nil && pr.Result.State != string(launcher.Succeeded) && pr.Result.Detail != "" && !strings.HasPrefix(pr.Result.Detail, "exit status") {
			r = pr.Result.Detail + "; " + r
		}
		return r
	}
	if run.Status != nil && len(run.Status.Reasons) > 0 {
		return run.Status.Reasons[0].String()
	}
	if pr.Result != nil {
		return fmt.Sprintf("%s: controller exited with status %d (see %s)", pr.Result.Detail, pr.Result.ExitCode, pr.Dir)
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
	return fmt.Sprintf("%.4g", v)
}
