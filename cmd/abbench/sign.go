package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/sshsig"
)

// EnvSignKey names a signing key file for CI, where flags are awkward.
const EnvSignKey = "ABBENCH_SIGN_KEY"

type signOptions struct {
	key     string
	agent   bool
	pub     string
	archive bool
}

func addSignFlags(cmd *cobra.Command, o *signOptions) {
	fs := cmd.Flags()
	fs.StringVar(&o.key, "sign-key", "", "sign the bundle with this OpenSSH private key (a KEY-cert.pub beside it signs as that certificate); default $"+EnvSignKey)
	fs.BoolVar(&o.agent, "sign-agent", false, "sign the bundle through ssh-agent (SSH_AUTH_SOCK)")
	fs.StringVar(&o.pub, "sign-pub", "", "with --sign-agent: the public key file of the agent key to use (default: its first key)")
	fs.BoolVar(&o.archive, "archive", false, "also pack the bundle as bundle.tar.gz")
}

// signer returns the configured signer (nil: unsigned) and a closer.
func (o *signOptions) signer() (ssh.Signer, func() error, error) {
	key := o.key
	if key == "" && !o.agent {
		key = os.Getenv(EnvSignKey)
	}
	s, closer, err := sshsig.OpenSigner(key, o.agent, o.pub)
	if err != nil {
		return nil, closer, usageError(err, "")
	}
	return s, closer, nil
}

// args are the flags that make each arm controller sign the same way,
// checked here first so a bad key fails before any run.
func (o *signOptions) args() ([]string, error) {
	_, closer, err := o.signer()
	if err != nil {
		return nil, err
	}
	closer()
	var a []string
	switch {
	case o.agent:
		a = append(a, "--sign-agent")
		if o.pub != "" {
			pub, _ := filepath.Abs(o.pub)
			a = append(a, "--sign-pub", pub)
		}
	case o.key != "":
		key, _ := filepath.Abs(o.key)
		a = append(a, "--sign-key", key)
	}
	if o.archive {
		a = append(a, "--archive")
	}
	return a, nil
}
