// Package verifycmd is abbench verify: every bundle a path leads to, verified.
package verifycmd

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/help"
	"github.com/abbench/abbench/cmd/abbench/internal/signing"
	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/compare"
)

type verifyOptions struct {
	trust  signing.Trust
	format cli.Format
}

// New is the command.
func New() *cobra.Command {
	var opts verifyOptions
	cmd := &cobra.Command{
		Use:     "verify PATH... --allowed-signers FILE",
		Short:   "Check a bundle's, run's or campaign's signatures and evidence",
		Long:    help.Text("verify"),
		Example: help.Text("verify.examples"),
		Args:    cli.Args(cobra.MinimumNArgs(1), "give the bundles, runs or campaigns to verify"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.OutOrStdout(), opts, args)
		},
	}
	signing.AddTrustFlags(cmd.Flags(), &opts.trust, "allowed_signers file (ssh-keygen format) naming the trusted signers")
	cmd.Flags().BoolVar(&opts.trust.AllowUnsigned, "allow-unsigned", false, "accept unsigned bundles (and say so)")
	cli.AddFormat(cmd.Flags(), &opts.format, "table", "json")
	return cmd
}

func runVerify(stdout io.Writer, opts verifyOptions, paths []string) error {
	if err := opts.format.Check(); err != nil {
		return err
	}
	if opts.trust.AllowedSigners == "" && !opts.trust.AllowUnsigned {
		return cli.Usagef("give --allowed-signers FILE, or --allow-unsigned for unsigned bundles", "no allowed_signers file: nobody would be trusted")
	}
	vo, err := opts.trust.BundleOptions()
	if err != nil {
		return err
	}
	checks, failed := compare.VerifyPaths(paths, vo)
	if opts.format.Value == "json" {
		err = cli.WriteJSON(stdout, bundle.CheckReport{Schema: bundle.CheckSchema, Checks: checks})
	} else {
		fitted, done := opts.format.Fitted(stdout)
		err = errors.Join(bundle.WriteChecks(fitted, checks), done())
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return &cli.Error{Code: cli.ExitUnverified, Err: fmt.Errorf("%d of %d check(s) failed verification", failed, len(checks)), Hint: verifyHint(checks)}
	}
	return nil
}

// verifyHint is the way on from failed checks: for an unsigned bundle,
// this command's --allow-unsigned accepts it; where every failed check is
// of a planned run that never started, a resume.
func verifyHint(checks []bundle.Check) string {
	neverRan, failed := 0, 0
	for _, c := range checks {
		if !c.OK && c.Unsigned {
			return "an unsigned bundle passes with --allow-unsigned (and says so)"
		}
		if !c.OK {
			failed++
			if c.NeverRan {
				neverRan++
			}
		}
	}
	if neverRan > 0 && neverRan == failed {
		// An interrupted campaign read as tampering: its runs are
		// missing, which a resume mends, and nothing was altered.
		return fmt.Sprintf("%d planned run(s) never started (the campaign was interrupted or stopped early): missing, not altered; abbench run --resume DIR runs them, then verify passes", neverRan)
	}
	return ""
}
