// The file is not named cmd_arm.go: a _arm suffix would make it an ARM-only file.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/arms"
	"github.com/abbench/abbench/arms/rankwrap"
	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/scenarios"
)

type armOptions struct {
	arm    string
	out    string
	ranks  string
	sign   signOptions
	format formatFlag
}

func newArmCmd() *cobra.Command {
	var opts armOptions
	cmd := &cobra.Command{
		Use:   "arm SCENARIO --arm NAME [--out DIR]",
		Short: "Run one arm in the current allocation (a CI stage)",
		Long: `arm runs one arm of a scenario in the allocation it is started in, for
example one CI stage. It creates a fresh launch token and a coordination
directory named by it (DIR/TOKEN/coord), starts the roles in order through
the rank wrapper, requires every rank to register the arm's values exactly as
its process received them and every mode line to agree before any client
traffic, runs the client, drains, checks the modes again, and stops every
process: SIGTERM, the scenario's kill grace, SIGKILL.

When it returns no process of the run is alive, and DIR/TOKEN holds every log,
every registration and status.json saying how the run ended. DIR/LATEST names
the newest token. A rerun into the same DIR gets a new token and never reads
the old files. Progress goes to stderr; --format json prints the evidence.

The run's evidence goes to DIR/TOKEN/evidence.json and its bundle to
DIR/TOKEN/bundle (see abbench verify), signed with --sign-key or
--sign-agent (or ABBENCH_SIGN_KEY), unsigned otherwise; --archive also
packs it as DIR/TOKEN/bundle.tar.gz.`,
		Example: `  abbench arm scenarios/quickstart.yaml --arm async --out out/async`,
		Args:    argsUsage(cobra.ExactArgs(1), "abbench arm SCENARIO --arm NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runArm(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts, args[0])
		},
	}
	cmd.Flags().StringVar(&opts.arm, "arm", "", "the arm to run (required)")
	cmd.Flags().StringVar(&opts.out, "out", "out", "output directory; the run goes to OUT/TOKEN")
	cmd.Flags().StringVar(&opts.ranks, "ranks", "local", "how ranks start: local (processes of this host), or srun (one srun step per role, inside a Slurm allocation)")
	addSignFlags(cmd, &opts.sign)
	addFormatFlag(cmd.Flags(), &opts.format, "table", "json")
	return cmd
}

func loadScenario(path string) (*scenarios.Scenario, error) {
	s, err := scenarios.Load(path)
	if err != nil && os.IsNotExist(err) {
		return nil, usageError(err, "check the scenario path")
	}
	return s, err
}

func runArm(ctx context.Context, stdout, stderr io.Writer, opts armOptions, path string) error {
	if err := opts.format.check(); err != nil {
		return err
	}
	if opts.arm == "" {
		return usagef("abbench arm SCENARIO --arm NAME", "--arm is required")
	}
	s, err := loadScenario(path)
	if err != nil {
		return err
	}
	if _, ok := s.Arms[opts.arm]; !ok {
		return usagef("", "arm %q is not in %s (arms: %v)", opts.arm, path, s.ArmOrder)
	}
	signer, closeSigner, err := opts.sign.signer()
	if err != nil {
		return err
	}
	defer closeSigner()
	if opts.ranks != arms.RanksLocal && opts.ranks != arms.RanksSrun {
		return usagef("", "--ranks %q: choose local or srun", opts.ranks)
	}
	st, err := arms.Run(ctx, s, opts.arm, arms.Options{Out: opts.out, Ranks: opts.ranks, Progress: func(e arms.Event) {
		fmt.Fprintf(stderr, "abbench: arm %s: %-8s %6.2fs  %s\n", e.Arm, e.Phase, e.Elapsed.Seconds(), e.Detail)
	}})
	if err != nil {
		return err
	}
	ev, err := evidence.Collect(s, opts.arm, st.Dir)
	if err != nil {
		return err
	}
	if err := writeEvidence(st.Dir, ev); err != nil {
		return err
	}
	if err := writeBundle(s, st, ev, signer, opts.sign.archive); err != nil {
		return fmt.Errorf("writing the bundle: %w", err)
	}
	if opts.format.value == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(ev); err != nil {
			return err
		}
	} else {
		printStatus(stdout, st)
		printEvidence(stdout, ev)
	}
	if st.State == arms.StateInterrupted {
		return statusErr(st)
	}
	return evidenceErr(ev, st.Dir)
}

func writeEvidence(dir string, ev *evidence.Evidence) error {
	data, err := json.MarshalIndent(ev, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "evidence.json"), append(data, '\n'), 0o644)
}

// evidenceErr is exit 0 for accepted evidence and 3 (censored) otherwise.
func evidenceErr(ev *evidence.Evidence, dir string) error {
	if ev.Accepted {
		return nil
	}
	first := "a criterion failed"
	if len(ev.Reasons) > 0 {
		first = ev.Reasons[0].String()
	}
	return &statusError{code: exitCensored, err: fmt.Errorf("arm %s: evidence not accepted: %s", ev.Arm, first),
		hint: "evidence.json, status.json and the logs are in " + dir}
}

func printEvidence(w io.Writer, ev *evidence.Evidence) {
	verdict := "accepted"
	if !ev.Accepted {
		verdict = "NOT accepted"
	}
	fmt.Fprintf(w, "evidence: %s\n", verdict)
	if ev.Workload != nil {
		fmt.Fprintf(w, "workload digest: %s\n", ev.Workload)
	}
	if ev.Throughput != nil {
		metric := ev.HeadlineMetric
		if metric == "" {
			metric = "output_throughput"
		}
		if v, ok := ev.Throughput.Metrics[metric]; ok {
			fmt.Fprintf(w, "%s: %.4g (%s record, valid %v)\n", metric, v, ev.Throughput.Format, ev.Throughput.Valid)
		} else {
			fmt.Fprintf(w, "%s: none (%s record, valid %v)\n", metric, ev.Throughput.Format, ev.Throughput.Valid)
		}
	}
	if len(ev.Criteria) > 0 {
		var rows [][]string
		for _, c := range ev.Criteria {
			mark := "✓"
			if !c.OK {
				mark = "✗"
			}
			codes := ""
			for i, code := range c.Codes {
				if i > 0 {
					codes += ", "
				}
				codes += string(code)
			}
			rows = append(rows, []string{mark, c.ID, c.Detail, codes})
		}
		fmt.Fprintln(w)
		writeTable(w, []string{"", "criterion", "detail", "censor"}, rows)
	}
	if len(ev.Reasons) > 0 {
		fmt.Fprintln(w, "\nreasons:")
		for _, r := range ev.Reasons {
			fmt.Fprintf(w, "  %s\n", r)
		}
	}
}

func printStatus(w io.Writer, st *arms.Status) {
	fmt.Fprintf(w, "arm %s: run %s in %s (token %s)\n", st.Arm, st.State, st.Ended.Sub(st.Started).Round(time.Millisecond), st.Token)
	fmt.Fprintf(w, "run directory: %s\n", st.Dir)
}

// statusErr maps a run's end to the exit status: accepted 0, failed with
// reasons 3 (censored), interrupted 1.
func statusErr(st *arms.Status) error {
	switch st.State {
	case arms.StateSucceeded:
		return nil
	case arms.StateInterrupted:
		return &statusError{code: exitError, err: fmt.Errorf("arm %s was interrupted; its logs and status are in %s", st.Arm, st.Dir)}
	}
	return &statusError{code: exitCensored, err: fmt.Errorf("arm %s failed: %s", st.Arm, firstReason(st)), hint: "status.json and the logs are in " + st.Dir}
}

func firstReason(st *arms.Status) string {
	if len(st.Reasons) == 0 {
		return "no reason recorded"
	}
	return st.Reasons[0].String()
}

func newRankExecCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "rank-exec -- COMMAND [ARG...]",
		Short:  "Internal: register a rank in its coordination namespace, then exec its command",
		Hidden: true,
		Args:   argsUsage(cobra.MinimumNArgs(1), "rank-exec is started by the controller"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if len(args) == 3 && args[0] == "--launch" {
				err = rankwrap.ExecLaunched(args[1], args[2])
			} else {
				err = rankwrap.Exec(args)
			}
			return &statusError{code: 127, err: err}
		},
	}
}
