package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/evidence/bundle"
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
		Use:     "verify BUNDLE... --allowed-signers FILE",
		Short:   "Check bundles' signatures, manifests and evidence",
		Long:    help("verify"),
		Example: help("verify.examples"),
		Args:    argsUsage(cobra.MinimumNArgs(1), "give the bundles to verify"),
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

type verifyResult struct {
	Bundle   string `json:"bundle"`
	OK       bool   `json:"ok"`
	Signer   string `json:"signer,omitempty"`
	Unsigned bool   `json:"unsigned"`
	Arm      string `json:"arm,omitempty"`
	Accepted bool   `json:"evidence_accepted"`
	Error    string `json:"error,omitempty"`
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
	var results []verifyResult
	failed := 0
	for _, p := range paths {
		res := verifyResult{Bundle: p}
		if v, err := bundle.VerifyPath(p, vo); err != nil {
			res.Error = err.Error()
			failed++
		} else {
			res.OK, res.Signer, res.Unsigned, res.Arm, res.Accepted = true, v.Signer, v.Unsigned, v.Evidence.Arm, v.Evidence.Accepted
		}
		results = append(results, res)
	}
	if opts.format.value == "json" {
		writeJSON(stdout, results)
	} else {
		for _, r := range results {
			switch {
			case !r.OK:
				fmt.Fprintf(stdout, "FAIL %s\n", r.Error)
			case r.Unsigned:
				fmt.Fprintf(stdout, "ok   %s: UNSIGNED (accepted by --allow-unsigned); arm %s, evidence accepted: %v\n", r.Bundle, r.Arm, r.Accepted)
			default:
				fmt.Fprintf(stdout, "ok   %s: signed by %s; arm %s, evidence accepted: %v\n", r.Bundle, r.Signer, r.Arm, r.Accepted)
			}
		}
	}
	if failed > 0 {
		return &statusError{code: exitUnverfied, err: fmt.Errorf("%d of %d bundle(s) failed verification", failed, len(paths))}
	}
	return nil
}
