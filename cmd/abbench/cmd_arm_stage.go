// The file is not named cmd_arm.go: a _arm suffix would make it an ARM-only file.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/cmd/abbench/internal/render"
	"github.com/abbench/abbench/cmd/abbench/internal/signing"
	"github.com/abbench/abbench/cmd/abbench/internal/version"
	"github.com/abbench/abbench/internal/armpipeline"
	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/hookproc"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

type armOptions struct {
	plan     string
	runIndex int
	arm      string
	cell     string
	out      string
	ranks    string
	sign     signing.Sign
	format   cli.Format
}

func newArmCmd() *cobra.Command {
	var opts armOptions
	cmd := &cobra.Command{
		Use:     "arm SCENARIO (--arm NAME | --plan PLAN --run-index I) [--out DIR]",
		Short:   "Run one arm in the current allocation (a CI stage)",
		Long:    help.Text("arm"),
		Example: help.Text("arm.examples"),
		Args:    cli.Args(cobra.ExactArgs(1), "abbench arm SCENARIO --arm NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runArm(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), opts, args[0])
		},
	}
	cmd.Flags().StringVar(&opts.arm, "arm", "", "the arm to run (required without --plan; with it, the plan's arm for --run-index)")
	cmd.Flags().StringVar(&opts.cell, "cell", "", "the cell of a sweep to run (the scenario's matrix:; abbench validate lists them); with --plan, the plan's")
	cmd.Flags().StringVar(&opts.out, "out", "out", "output directory; the run goes to OUT/TOKEN")
	cmd.Flags().StringVar(&opts.plan, "plan", "", "the plan.json of the campaign this run belongs to (abbench plan writes one for CI stages; abbench run passes its own); recorded in the signed provenance")
	cmd.Flags().IntVar(&opts.runIndex, "run-index", 0, "with --plan: this run's index in the plan")
	cmd.Flags().StringVar(&opts.ranks, "ranks", arms.RankDrivers()[0], arms.RanksHelp())
	signing.AddSignFlags(cmd, &opts.sign)
	cli.AddFormat(cmd.Flags(), &opts.format, "table", "json")
	return cmd
}

func runArm(ctx context.Context, stdout, stderr io.Writer, opts armOptions, path string) error {
	if err := opts.format.Check(); err != nil {
		return err
	}
	if err := arms.CheckRanks(opts.ranks); err != nil {
		return cli.Usagef("", "--%v", err)
	}
	var ref *rundir.CampaignRef
	if opts.plan != "" {
		r, planned, err := armpipeline.PlannedArm(opts.plan, opts.runIndex)
		if err != nil {
			return cli.Usage(err, "--plan and --run-index name this run in its campaign's plan.json (abbench plan lists each stage's index)")
		}
		if opts.arm != "" && opts.arm != planned {
			return cli.Usagef("leave --arm out: the plan names the arm of each run", "--arm %s: run %d of %s is of arm %s", opts.arm, opts.runIndex, opts.plan, planned)
		}
		opts.arm, ref = planned, r
	}
	if opts.arm == "" {
		return cli.Usagef("abbench arm SCENARIO --arm NAME, or --plan PLAN --run-index I for a stage of a plan", "--arm is required without --plan")
	}
	s, err := scenarios.LoadArm(path, opts.arm)
	if err != nil {
		return err
	}
	if s, err = armCell(s, ref, opts.cell); err != nil {
		return err
	}
	if err := pinStageImages(ctx, s, opts.ranks, opts.plan); err != nil {
		return err
	}
	if ref != nil && ref.MatchedDigest != s.MatchedDigest() {
		return cli.Usagef("plan again with this scenario (abbench plan), or run the scenario the plan was made from",
			"%s was planned for matched digest %.12s, %s has %.12s: every stage of a plan runs the scenario it was planned with", opts.plan, ref.MatchedDigest, path, s.MatchedDigest())
	}
	signer, closeSigner, err := opts.sign.Signer()
	if err != nil {
		return err
	}
	defer func() { _ = closeSigner() }() // the bundle is signed (or not) by then: closing the agent or key loses nothing
	if err := sweepDead(stderr); err != nil {
		return err
	}
	st, ev, err := armpipeline.Run(ctx, s, opts.arm, armpipeline.Options{Out: opts.out, Ranks: opts.ranks, Signer: signer,
		Archive: opts.sign.Archive, Campaign: ref, Tool: "abbench " + version.String(), Progress: func(e arms.Event) {
			// Progress for a person: a line lost changes nothing recorded.
			_, _ = fmt.Fprintf(stderr, "abbench: arm %s: %-8s %6.2fs  %s\n", e.Arm, e.Phase, e.Elapsed.Seconds(), e.Detail)
		}})
	if err != nil {
		return err
	}
	if opts.format.Value == "json" {
		if err := cli.WriteJSON(stdout, ev); err != nil {
			return err
		}
	} else {
		// Text for a person: every line fitted to the terminal, as run's
		// and compare's (the criteria's table was 213 columns).
		fitted, done := opts.format.Fitted(stdout)
		if err := render.WriteArm(fitted, st, ev); err != nil {
			return err
		}
		if err := done(); err != nil {
			return err
		}
	}
	if st.State == rundir.StateInterrupted {
		return &cli.Error{Code: cli.ExitError, Err: fmt.Errorf("arm %s was interrupted; its logs and status are in %s", st.Arm, st.Dir)}
	}
	return evidenceErr(ev, st.Dir)
}

// sweepDead stops what controllers that died without ending their runs
// left behind, and says so on w. abbench arm and abbench run call it
// first, and start nothing when it fails: the registry of running
// controllers is not private to this user.
func sweepDead(w io.Writer) error {
	swept, err := arms.SweepDead()
	var unmarked *reason.Error
	if err != nil && !errors.As(err, &unmarked) {
		return err
	}
	return render.WriteSwept(w, swept, unmarked)
}

// evidenceErr is exit 0 for accepted evidence and 3 (censored) otherwise.
func evidenceErr(ev *evidence.Evidence, dir string) error {
	if ev.Accepted {
		return nil
	}
	first := "a criterion failed"
	if len(ev.Reasons) > 0 {
		first = ev.RootCausesFirst()[0].String()
	}
	return &cli.Error{Code: cli.ExitCensored, Err: fmt.Errorf("arm %s: evidence not accepted: %s", ev.Arm, first),
		Hint: rundir.EvidenceFile + ", " + rundir.StatusFile + " and the logs are in " + dir}
}

// newInternalCmd is a hidden verb abbench starts itself, never a user.
func newInternalCmd(use, short string, args cobra.PositionalArgs, run func(args []string) error) *cobra.Command {
	return &cobra.Command{Use: use, Short: "Internal: " + short, Hidden: true, Args: cli.Args(args, "abbench starts this itself"),
		RunE: func(_ *cobra.Command, a []string) error { return run(a) }}
}

func newGuardCmd() *cobra.Command {
	return newInternalCmd("guard TOKEN ATTEMPT CONTROLLER-PID [DOCKER]", "outlive a controller and stop what its run left", cobra.RangeArgs(3, 4), func(args []string) error {
		pid, err := strconv.Atoi(args[2])
		if err != nil {
			return cli.Usage(err, "")
		}
		docker := ""
		if len(args) == 4 {
			docker = args[3]
		}
		arms.IgnoreSignals()
		return arms.Guard(os.Stdin, args[0], args[1], pid, docker)
	})
}

func newHookGuardCmd() *cobra.Command {
	return newInternalCmd(campaign.HookGuardVerb+" TOKEN SECONDS", "outlive abbench run while a campaign hook runs and stop the hook if abbench dies", cobra.ExactArgs(2), func(args []string) error {
		return hookproc.GuardMain(os.Stdin, args[0], args[1])
	})
}

func newRankExecCmd() *cobra.Command {
	return newInternalCmd("rank-exec -- COMMAND [ARG...]", "register a rank in its coordination namespace, then exec its command", cobra.MinimumNArgs(1), func(args []string) error {
		if err := rankwrap.Main(args); err != nil {
			return &cli.Error{Code: 127, Err: err}
		}
		return nil // --install, done
	})
}
