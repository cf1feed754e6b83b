package signing

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/sshsig"
)

// Trust is whom a command that reads bundles trusts.
type Trust struct {
	AllowedSigners string // an allowed_signers file; "": no signature is checked
	Identity       string // the principal required of them
	AllowUnsigned  bool   // accept unsigned bundles (abbench verify --allow-unsigned)
}

// AddTrustFlags adds --allowed-signers (usage says what the command does
// with it) and --identity.
func AddTrustFlags(fs *pflag.FlagSet, o *Trust, usage string) {
	fs.StringVar(&o.AllowedSigners, "allowed-signers", "", usage)
	fs.StringVar(&o.Identity, "identity", "", "require this principal of the allowed signers")
}

// BundleOptions reads the allowed signers into the bundles' verification.
func (o Trust) BundleOptions() (bundle.VerifyOptions, error) {
	vo := bundle.VerifyOptions{Identity: o.Identity, AllowUnsigned: o.AllowUnsigned}
	if o.AllowedSigners != "" {
		as, err := sshsig.ReadAllowedSigners(o.AllowedSigners)
		if err != nil {
			return vo, cli.Usage(err, "an allowed_signers line is: PRINCIPALS [OPTIONS] KEYTYPE BASE64KEY")
		}
		vo.AllowedSigners = as
	}
	return vo, nil
}

// VerifyRuns refuses (exit 4) any run that is not a bundle signed by one
// of the allowed signers, vo being what BundleOptions read; it says
// whether the signatures were checked (not without --allowed-signers).
func (o Trust) VerifyRuns(runs []compare.Run, vo bundle.VerifyOptions) (bool, error) {
	if o.AllowedSigners == "" {
		return false, nil
	}
	if err := compare.VerifyRuns(runs, vo); err != nil {
		e := &cli.Error{Code: cli.ExitUnverified, Err: fmt.Errorf("--allowed-signers: %w", err)}
		if errors.Is(err, bundle.ErrUnsigned) {
			// A comparison has no --allow-unsigned: without --allowed-signers
			// it still verifies every bundle, only not its signer.
			e.Hint = "sign the runs (abbench run --sign-key KEY), or compare without --allowed-signers to accept unsigned bundles"
		}
		return false, e
	}
	return true, nil
}
