// Package signing is the flags of abbench's signatures: how a command
// signs the bundles it writes (--sign-key, --sign-agent, --sign-pub,
// --archive), and whom a command that reads bundles trusts
// (--allowed-signers, --identity), with the one check of a comparison's
// runs against them.
package signing

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/internal/campaign"
	"github.com/abbench/abbench/internal/sshsig"
)

// EnvSignKey names a signing key file for CI, where flags are awkward.
const EnvSignKey = "ABBENCH_SIGN_KEY"

// Sign is how a command signs its bundles.
type Sign struct {
	key     string
	agent   bool
	pub     string
	Archive bool // also pack the bundle as bundle.tar.gz
}

// AddSignFlags adds the flags that fill o.
func AddSignFlags(cmd *cobra.Command, o *Sign) {
	fs := cmd.Flags()
	fs.StringVar(&o.key, "sign-key", "", "sign the bundle with this OpenSSH private key (a KEY-cert.pub beside it signs as that certificate); default $"+EnvSignKey)
	fs.BoolVar(&o.agent, "sign-agent", false, "sign the bundle through ssh-agent (SSH_AUTH_SOCK)")
	fs.StringVar(&o.pub, "sign-pub", "", "with --sign-agent: the public key file of the agent key to use (default: its first key)")
	fs.BoolVar(&o.Archive, "archive", false, "also pack the bundle as bundle.tar.gz")
}

// Signer returns the configured signer (nil: unsigned) and a closer.
func (o *Sign) Signer() (ssh.Signer, func() error, error) {
	key := o.key
	if key == "" && !o.agent {
		key = os.Getenv(EnvSignKey)
	}
	s, closer, err := sshsig.OpenSigner(key, o.agent, o.pub)
	if errors.Is(err, sshsig.ErrNoTerminal) {
		return nil, closer, cli.Usage(err, "ssh-add the key, then sign with --sign-agent")
	} else if err != nil {
		return nil, closer, cli.Usage(err, "")
	}
	return s, closer, nil
}

// Campaign checks the signer first, so a bad key fails before any run,
// and returns how every run's controller signs the same way.
func (o *Sign) Campaign() (campaign.Signing, error) {
	_, closer, err := o.Signer()
	if err != nil {
		return campaign.Signing{}, err
	}
	if err := closer(); err != nil {
		return campaign.Signing{}, fmt.Errorf("closing the signer: %w", err)
	}
	return campaign.Signing{Key: o.key, Agent: o.agent, Pub: o.pub, Archive: o.Archive}, nil
}
