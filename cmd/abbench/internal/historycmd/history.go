// Package historycmd is abbench history: add keeps an accepted
// comparison's runs and deltas in a store, show prints each metric's series
// with its change points (package history does the work).
package historycmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/comparison"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/cmd/abbench/internal/signing"
	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/history"
	"github.com/abbench/abbench/internal/textout"
)

// New is the history command and its subcommands.
func New() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "history",
		Short:   "Keep runs and comparisons; find where a metric moved",
		Long:    help.Text("history"),
		Example: "  abbench history add out/nightly --store perf/history.jsonl\n  abbench history show --store perf/history.jsonl --plot trend.svg",
		Args:    cli.Args(cobra.NoArgs, "give a subcommand: add or show"),
	}
	cmd.AddCommand(newHistoryAddCmd(), newHistoryShowCmd())
	return cmd
}

func newHistoryAddCmd() *cobra.Command {
	var store, metric string
	opts := comparison.Options{Format: cli.Format{Value: "table", Choices: []string{"table"}}}
	cmd := &cobra.Command{
		Use:     "add RUN... --store FILE",
		Short:   "Append an accepted comparison's runs and deltas to a history store",
		Long:    help.Text("history-add"),
		Example: "  abbench history add out/nightly --store perf/history.jsonl \\\n      --allowed-signers allowed_signers",
		Args:    cli.Args(cobra.MinimumNArgs(1), "give the runs to add, for example abbench history add out/nightly --store history.jsonl"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if store == "" {
				return cli.Usagef("for example --store perf/history.jsonl (created when missing)", "--store is required")
			}
			if metric != "" { // a store's entry is of one metric
				opts.Metric = []string{metric}
			}
			runs, cleanup, err := opts.LoadRuns(args)
			defer cleanup()
			if err != nil {
				return err
			}
			return runHistoryAdd(cmd.OutOrStdout(), cmd.ErrOrStderr(), store, opts, runs)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&store, "store", "", "the history store (JSON Lines, append-only; created when missing)")
	fs.StringVar(&opts.Baseline, "baseline", "", "baseline arm of the comparison (default: the scenario's)")
	fs.StringVar(&metric, "metric", "", "record metric to keep (default: the scenario's headline metric)")
	fs.Float64Var(&opts.Effect, "smallest-effect", 0, "smallest effect of interest in percent (default 1)")
	fs.Float64Var(&opts.Alpha, "alpha", decide.DefaultRule.Alpha, "level of the comparison's tests")
	signing.AddTrustFlags(fs, &opts.Trust, "verify every run's bundle against this allowed_signers file first; entries then say signed")
	return cmd
}

func runHistoryAdd(stdout, stderr io.Writer, store string, opts comparison.Options, runs []compare.Run) error {
	co := opts.Resolved
	if opts.Baseline != "" && !compare.IsArm(runs, opts.Baseline) {
		return cli.Usagef("history add compares the arms of its runs; compare with a stored baseline with abbench compare --baseline", "--baseline %s: no arm of these runs", opts.Baseline)
	}
	checked, err := opts.Trust.VerifyRuns(runs, opts.Verified)
	if err != nil {
		return err
	}
	co.SignaturesChecked = checked
	r, entries, err := historyEntries(runs, co)
	if errors.Is(err, history.ErrCensored) {
		return &cli.Error{Code: cli.ExitCensored, Err: err, Hint: "the store keeps accepted evidence only; abbench compare lists the reasons"}
	} else if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(store), 0o755); err != nil {
		return fmt.Errorf("--store %s: creating its directory: %w", store, err)
	}
	added, removed, err := history.Append(store, entries)
	var twice *history.DuplicateRunError
	if errors.As(err, &twice) {
		return &cli.Error{Code: cli.ExitCensored, Err: err, Hint: "the store keeps each planned run once; the run given now is censored as compare censors a run given twice"}
	} else if err != nil {
		return err
	}
	out := textout.New(stderr)
	if removed != "" {
		out.Printf("abbench: warning: %s\n", removed)
	}
	var nRuns, nComparisons int
	for _, e := range entries {
		if e.Kind == history.KindRun {
			nRuns++
		} else {
			nComparisons++
		}
	}
	fitted, done := cli.Fit(stdout)
	_, err = fmt.Fprintf(fitted, "%s: added %d entries (%d run(s) and %d comparison(s) of %s on %s; %d were already stored)\n",
		store, added, nRuns, nComparisons, r.Scenario, r.Metric, len(entries)-added)
	return errors.Join(err, done(), out.Err())
}

type historyShowOptions struct {
	store    string
	filter   history.Filter
	detector history.Detector
	plot     string
	format   cli.Format
}

func newHistoryShowCmd() *cobra.Command {
	var o historyShowOptions
	cmd := &cobra.Command{
		Use:     "show --store FILE",
		Short:   "Print each metric's series with its change points; export or plot it",
		Long:    help.Text("history-show"),
		Example: "  abbench history show --store perf/history.jsonl --plot trend.svg\n  abbench history show --store perf/history.jsonl --format perfdb > perf.ndjson",
		Args:    cli.Args(cobra.NoArgs, "history show reads --store; it takes no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runHistoryShow(cmd.OutOrStdout(), cmd.ErrOrStderr(), o)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.store, "store", "", "the history store written by abbench history add")
	fs.StringVar(&o.filter.Scenario, "scenario", "", "only this scenario")
	fs.StringVar(&o.filter.Arm, "arm", "", "only this arm")
	fs.StringVar(&o.filter.Metric, "metric", "", "only this metric")
	fs.Float64Var(&o.detector.MaxP, "max-p", 0.01, "largest permutation p of a change point")
	fs.Float64Var(&o.detector.MinPct, "min-change", 0, "smallest change of the mean to report, in percent")
	fs.IntVar(&o.detector.MinSize, "min-runs", 3, "fewest runs on either side of a change point")
	fs.Uint64Var(&o.detector.Seed, "seed", 1, "seed of the permutation tests (results are the same for a seed)")
	fs.StringVar(&o.plot, "plot", "", "also write an SVG trend plot (one panel per series) to this file")
	cli.AddFormat(fs, &o.format, "table", "json", "perfdb")
	return cmd
}

func runHistoryShow(stdout, stderr io.Writer, o historyShowOptions) error {
	if err := o.format.Check(); err != nil {
		return err
	}
	switch {
	case o.store == "":
		return cli.Usagef("for example --store perf/history.jsonl", "--store is required")
	case o.detector.MaxP <= 0 || o.detector.MaxP >= 1:
		return cli.Usagef("", "--max-p %v: choose a level between 0 and 1, such as 0.01", o.detector.MaxP)
	case o.detector.MinSize < 2:
		return cli.Usagef("", "--min-runs %d: a side needs at least 2 runs", o.detector.MinSize)
	}
	if _, err := os.Stat(o.store); err != nil {
		return cli.Usagef("write one with abbench history add RUN... --store FILE", "--store: %v", err)
	}
	entries, torn, err := history.Read(o.store)
	if err != nil {
		return cli.Usage(err, "")
	}
	if torn != "" {
		if _, err := fmt.Fprintf(stderr, "abbench: warning: %s\n", torn); err != nil {
			return err
		}
	}
	if o.format.Value == "perfdb" {
		return history.PerfDB(stdout, entries, o.filter)
	}
	series := history.BuildSeries(entries, o.filter, o.detector)
	if o.plot != "" {
		f, err := atomicfile.Create(o.plot, 0o644)
		if err != nil {
			return err
		}
		if err := history.SVG(f, series); err != nil {
			f.Abort()
			return err
		}
		if err := f.Commit(); err != nil {
			return err
		}
	}
	if o.format.Value == "json" {
		return cli.WriteJSON(stdout, map[string]any{"schema": "abbench-history-show-v1", "store": o.store, "series": series})
	}
	fitted, done := o.format.Fitted(stdout)
	return errors.Join(history.Text(fitted, series, o.detector), done())
}
