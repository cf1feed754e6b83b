package sshsig

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
	"golang.org/x/term"
)

// ErrNoTerminal says a passphrase-protected key was read where no terminal
// can ask for its passphrase (CI): sign through ssh-agent there.
var ErrNoTerminal = errors.New("a passphrase-protected key, and no terminal to ask for its passphrase")

// LoadKey reads an OpenSSH private key file. A KEY-cert.pub beside it makes
// the signer sign as that certificate. A passphrase-protected key asks for
// its passphrase on the terminal, and fails clearly where there is none
// (CI): use ssh-agent there.
func LoadKey(path string) (ssh.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	signer, err := ssh.ParsePrivateKey(data)
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		if !term.IsTerminal(int(os.Stdin.Fd())) {
			return nil, fmt.Errorf("%s: %w: load it into ssh-agent and sign through the agent", path, ErrNoTerminal)
		}
		fmt.Fprintf(os.Stderr, "passphrase for %s: ", path)
		pass, rerr := term.ReadPassword(int(os.Stdin.Fd()))
		fmt.Fprintln(os.Stderr)
		if rerr != nil {
			return nil, rerr
		}
		signer, err = ssh.ParsePrivateKeyWithPassphrase(data, pass)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	certPath := strings.TrimSuffix(path, ".pub") + "-cert.pub"
	if certData, err := os.ReadFile(certPath); err == nil {
		pub, _, _, _, err := ssh.ParseAuthorizedKey(certData)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", certPath, err)
		}
		cert, ok := pub.(*ssh.Certificate)
		if !ok {
			return nil, fmt.Errorf("%s is not a certificate", certPath)
		}
		return ssh.NewCertSigner(cert, signer)
	}
	return signer, nil
}

// AgentSigner returns a signer from the ssh-agent at SSH_AUTH_SOCK: the key
// whose public key is in pubFile when given, else the agent's first key.
// The caller closes the returned closer when done.
func AgentSigner(pubFile string) (ssh.Signer, func() error, error) {
	sock := os.Getenv("SSH_AUTH_SOCK")
	if sock == "" {
		return nil, nil, errors.New("SSH_AUTH_SOCK is not set: start ssh-agent and ssh-add a key")
	}
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting to ssh-agent at %s: %w", sock, err)
	}
	// fail closes the connection after an error, which it returns: the
	// connection held nothing a failed close could lose.
	fail := func(err error) (ssh.Signer, func() error, error) {
		_ = conn.Close()
		return nil, nil, err
	}
	signers, err := agent.NewClient(conn).Signers()
	if err != nil {
		return fail(fmt.Errorf("ssh-agent: %w", err))
	}
	if len(signers) == 0 {
		return fail(errors.New("ssh-agent holds no key: ssh-add one"))
	}
	if pubFile == "" {
		return signers[0], conn.Close, nil
	}
	data, err := os.ReadFile(pubFile)
	if err != nil {
		return fail(err)
	}
	want, _, _, _, err := ssh.ParseAuthorizedKey(data)
	if err != nil {
		return fail(fmt.Errorf("%s: %w", pubFile, err))
	}
	for _, s := range signers {
		if string(s.PublicKey().Marshal()) == string(want.Marshal()) {
			return s, conn.Close, nil
		}
	}
	return fail(fmt.Errorf("ssh-agent does not hold the key of %s", pubFile))
}

// OpenSigner returns the signer a user chose: the key file key, or with
// agent the ssh-agent key whose public key is in pubFile (default: the
// agent's first), or nil when neither is given (unsigned). close is never nil.
func OpenSigner(key string, agent bool, pubFile string) (s ssh.Signer, close func() error, err error) {
	noop := func() error { return nil }
	switch {
	case agent && key != "":
		return nil, noop, errors.New("give a signing key file or the agent, not both")
	case agent:
		s, closer, err := AgentSigner(pubFile)
		if err != nil {
			return nil, noop, err
		}
		return s, closer, nil
	case key != "":
		s, err := LoadKey(key)
		return s, noop, err
	}
	return nil, noop, nil
}
