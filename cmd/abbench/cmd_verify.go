package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
		Use:   "verify BUNDLE... --allowed-signers FILE",
		Short: "Check bundles' signatures, manifests and evidence",
		Long: `verify checks evidence bundles (directories or .tar.gz archives) without
trusting whoever made them, offline:

  1. the SSH signature over manifest.json's exact bytes, against an
     allowed_signers file in ssh-keygen's format (principals, namespaces=,
     valid-after=, valid-before=, cert-authority), before the manifest is
     parsed; the namespace must be abbench-evidence;
  2. every file the manifest names is present with its SHA-256, and no other
     file, link or special file is there;
  3. the evidence re-derived from the bundled log bytes and records equals
     evidence.json.

OpenSSH alone can check step 1:
  ssh-keygen -Y verify -f allowed_signers -I IDENTITY -n abbench-evidence \
    -s BUNDLE/manifest.json.sig < BUNDLE/manifest.json

Unsigned bundles pass only with --allow-unsigned, and say so. Any failure
exits 4 and names what failed.`,
		Example: `  abbench verify out/async/*/bundle --allowed-signers allowed_signers
  abbench verify run.tar.gz --allowed-signers allowed_signers --identity ci@example.org`,
		Args: argsUsage(cobra.MinimumNArgs(1), "give the bundles to verify"),
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

// openBundle returns a bundle directory: the path itself, or a .tar.gz
// unpacked into a temporary directory (removed by the returned cleanup).
func openBundle(path string) (string, func(), error) {
	if !strings.HasSuffix(path, ".tar.gz") && !strings.HasSuffix(path, ".tgz") {
		return path, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "abbench-bundle-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	dir := filepath.Join(tmp, "bundle")
	if err := bundle.Unpack(path, dir); err != nil {
		cleanup()
		return "", nil, &bundle.VerifyError{Bundle: path, What: err.Error()}
	}
	return dir, cleanup, nil
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
		dir, cleanup, err := openBundle(p)
		if err == nil {
			var v *bundle.Verified
			v, err = bundle.Verify(dir, vo)
			cleanup()
			if err == nil {
				res.OK, res.Signer, res.Unsigned, res.Arm, res.Accepted = true, v.Signer, v.Unsigned, v.Evidence.Arm, v.Evidence.Accepted
			}
		}
		if err != nil {
			res.Error = strings.ReplaceAll(err.Error(), dir, p)
			failed++
		}
		results = append(results, res)
	}
	if opts.format.value == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(results)
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
