package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/evidence/bundle"
	"github.com/abbench/abbench/evidence/compare"
	"github.com/abbench/abbench/sshsig"
)

type verifyOptions struct {
	allowedSigners string
	identity       string
	allowUnsigned  bool
	format         formatFlag
}

func newVerifyCmd() *cobra.Command {
	var opts verifyOptions
	cmd := &cobra.Command{
		Use:     "verify PATH... --allowed-signers FILE",
		Short:   "Check bundles' signatures, manifests and evidence: a bundle, a run, or a whole campaign",
		Long:    help("verify"),
		Example: help("verify.examples"),
		Args:    argsUsage(cobra.MinimumNArgs(1), "give the bundles, runs or campaigns to verify"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runVerify(cmd.OutOrStdout(), opts, args)
		},
	}
	cmd.Flags().StringVar(&opts.allowedSigners, "allowed-signers", "", "allowed_signers file (ssh-keygen format) naming the trusted signers")
	cmd.Flags().StringVar(&opts.identity, "identity", "", "require this principal")
	cmd.Flags().BoolVar(&opts.allowUnsigned, "allow-unsigned", false, "accept unsigned bundles (and say so)")
	addFormatFlag(cmd.Flags(), &opts.format, "table", "json")
	return cmd
}

func (o verifyOptions) bundleOptions() (bundle.VerifyOptions, error) {
	vo := bundle.VerifyOptions{Identity: o.identity, AllowUnsigned: o.allowUnsigned}
	if o.allowedSigners != "" {
		as, err := sshsig.ReadAllowedSigners(o.allowedSigners)
		if err != nil {
			return vo, usageError(err, "an allowed_signers line is: PRINCIPALS [OPTIONS] KEYTYPE BASE64KEY")
		}
		vo.AllowedSigners = as
	}
	return vo, nil
}

func runVerify(stdout io.Writer, opts verifyOptions, paths []string) error {
	if err := opts.format.check(); err != nil {
		return err
	}
	if opts.allowedSigners == "" && !opts.allowUnsigned {
		return usagef("give --allowed-signers FILE, or --allow-unsigned for unsigned bundles", "no allowed_signers file: nobody would be trusted")
	}
	vo, err := opts.bundleOptions()
	if err != nil {
		return err
	}
	checks, failed := compare.VerifyPaths(paths, vo)
	if opts.format.value == "json" {
		err = writeJSON(stdout, bundle.CheckReport{Schema: bundle.CheckSchema, Checks: checks})
	} else {
		err = bundle.WriteChecks(stdout, checks)
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return &statusError{code: exitUnverfied, err: fmt.Errorf("%d of %d check(s) failed verification", failed, len(checks))}
	}
	return nil
}
