package sshsig

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/testdaemon"
)

const ns = "abbench-evidence"

func needSSHKeygen(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ssh-keygen (openssh-client) is missing; .ci/run installs it")
		}
		t.Skip("ssh-keygen not installed (Debian openssh-client)")
	}
}

func sh(t *testing.T, dir string, stdin []byte, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func keygen(t *testing.T, dir, name, typ string, extra ...string) string {
	args := append([]string{"-q", "-t", typ, "-N", "", "-C", name, "-f", filepath.Join(dir, name)}, extra...)
	sh(t, dir, nil, "ssh-keygen", args...)
	return filepath.Join(dir, name)
}

func pub(t *testing.T, key string) string {
	data, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

var message = []byte("{\"_type\": \"https://in-toto.io/Statement/v1\"}\n")

// skipRSAUnderShort skips the RSA case under go test -short: ssh-keygen
// makes a 3072-bit RSA key in about a second of CPU.
func skipRSAUnderShort(t *testing.T, typ string) {
	t.Helper()
	if typ == "rsa" && testing.Short() {
		t.Skip("makes an RSA key: go test without -short runs it")
	}
}

func TestInteropWithSSHKeygen(t *testing.T) {
	needSSHKeygen(t)
	for _, kt := range []struct{ typ, bits string }{{"ed25519", ""}, {"ecdsa", "256"}, {"rsa", "3072"}} {
		t.Run(kt.typ, func(t *testing.T) {
			skipRSAUnderShort(t, kt.typ)
			dir := t.TempDir()
			var extra []string
			if kt.bits != "" {
				extra = []string{"-b", kt.bits}
			}
			key := keygen(t, dir, "id_"+kt.typ, kt.typ, extra...)
			allowed := filepath.Join(dir, "allowed_signers")
			os.WriteFile(allowed, []byte("ci@example.org "+pub(t, key)+"\n"), 0o644)
			msgFile := filepath.Join(dir, "manifest.json")
			os.WriteFile(msgFile, message, 0o644)

			// abbench signs, ssh-keygen verifies.
			signer, err := LoadKey(key)
			if err != nil {
				t.Fatal(err)
			}
			armored, err := Sign(signer, ns, message)
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(msgFile+".sig", armored, 0o644)
			out := sh(t, dir, message, "ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "ci@example.org", "-n", ns, "-s", msgFile+".sig")
			if !strings.Contains(out, "Good") {
				t.Fatalf("ssh-keygen: %s", out)
			}

			// ssh-keygen signs, abbench verifies, and its armor is byte-identical in shape.
			os.Remove(msgFile + ".sig")
			sh(t, dir, nil, "ssh-keygen", "-Y", "sign", "-f", key, "-n", ns, msgFile)
			theirs, _ := os.ReadFile(msgFile + ".sig")
			sig, err := Parse(theirs)
			if err != nil {
				t.Fatal(err)
			}
			as, err := ReadAllowedSigners(allowed)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := as.Verify(sig, ns, "ci@example.org", message, time.Now()); err != nil {
				t.Fatal(err)
			}
			// ed25519 signatures have one length, so the armor must have
			// ssh-keygen's exact shape (lines wrapped at 70 columns).
			if kt.typ == "ed25519" && lineLengths(theirs) != lineLengths(armored) {
				t.Fatalf("armor lines %s, ssh-keygen's %s", lineLengths(armored), lineLengths(theirs))
			}
			if kt.typ == "rsa" && sig.Sig.Format != ssh.KeyAlgoRSASHA512 {
				t.Fatalf("ssh-keygen RSA signature format %s", sig.Sig.Format)
			}
		})
	}
}

// lineLengths is the armor's shape: the length of each line.
func lineLengths(b []byte) string {
	var n []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		n = append(n, strconv.Itoa(len(l)))
	}
	return strings.Join(n, ",")
}

func TestAgentAndCertificate(t *testing.T) {
	needSSHKeygen(t)
	testdaemon.StartSSHAgent(t)
	dir := t.TempDir()
	key := keygen(t, dir, "id_user", "ed25519")
	ca := keygen(t, dir, "ca", "ed25519")
	msgFile := filepath.Join(dir, "m")
	os.WriteFile(msgFile, message, 0o644)

	// Through the real ssh-agent started above.
	sh(t, dir, nil, "ssh-add", "-q", key)
	signer, closeAgent, err := AgentSigner(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	armored, err := Sign(signer, ns, message)
	closeAgent()
	if err != nil {
		t.Fatal(err)
	}
	allowed := filepath.Join(dir, "allowed_signers")
	os.WriteFile(allowed, []byte("dev@example.org "+pub(t, key)+"\n"), 0o644)
	os.WriteFile(msgFile+".sig", armored, 0o644)
	sh(t, dir, message, "ssh-keygen", "-Y", "verify", "-f", allowed, "-I", "dev@example.org", "-n", ns, "-s", msgFile+".sig")

	// A user certificate, trusted through a cert-authority line.
	sh(t, dir, nil, "ssh-keygen", "-q", "-s", ca, "-I", "ci-runner", "-n", "ci@example.org", "-V", "-1h:+1h", key+".pub")
	certSigner, err := LoadKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := certSigner.PublicKey().(*ssh.Certificate); !ok {
		t.Fatal("LoadKey ignored the certificate beside the key")
	}
	armored, err = Sign(certSigner, ns, message)
	if err != nil {
		t.Fatal(err)
	}
	caAllowed := filepath.Join(dir, "ca_allowed")
	os.WriteFile(caAllowed, []byte(`ci@example.org cert-authority,namespaces="abbench-evidence" `+pub(t, ca)+"\n"), 0o644)
	os.WriteFile(msgFile+".sig", armored, 0o644)
	sh(t, dir, message, "ssh-keygen", "-Y", "verify", "-f", caAllowed, "-I", "ci@example.org", "-n", ns, "-s", msgFile+".sig")
	as, _ := ReadAllowedSigners(caAllowed)
	sig, _ := Parse(armored)
	if _, err := as.Verify(sig, ns, "ci@example.org", message, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := as.Verify(sig, ns, "mallory@example.org", message, time.Now()); err == nil {
		t.Fatal("a certificate verified for a principal it does not name")
	}
}

func TestVerifyRejects(t *testing.T) {
	needSSHKeygen(t)
	dir := t.TempDir()
	key := keygen(t, dir, "k", "ed25519")
	other := keygen(t, dir, "o", "ed25519")
	signer, _ := LoadKey(key)
	armored, _ := Sign(signer, ns, message)
	sig, err := Parse(armored)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		name, allowed, namespace, identity string
		msg                                []byte
		untrusted                          bool
	}{
		{"changed message", "a@x " + pub(t, key), ns, "a@x", []byte("other"), false},
		{"wrong namespace", "a@x " + pub(t, key), "file", "a@x", message, false},
		{"unknown key", "a@x " + pub(t, other), ns, "a@x", message, true},
		{"wrong identity", "a@x " + pub(t, key), ns, "b@x", message, true},
		{"namespace not allowed", `a@x namespaces="git" ` + pub(t, key), ns, "a@x", message, true},
		{"not yet valid", `a@x valid-after="20270101" ` + pub(t, key), ns, "a@x", message, true},
		{"expired", `a@x valid-before="20261101Z" ` + pub(t, key), ns, "a@x", message, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			as, err := ParseAllowedSigners([]byte(c.allowed+"\n"), "allowed_signers")
			if err != nil {
				t.Fatal(err)
			}
			_, err = as.Verify(sig, c.namespace, c.identity, c.msg, now)
			var ue *UntrustedError
			var ie *InvalidSignatureError
			if c.untrusted && !errors.As(err, &ue) || !c.untrusted && !errors.As(err, &ie) {
				t.Fatalf("got %v", err)
			}
		})
	}
	as, _ := ParseAllowedSigners([]byte(`a@x valid-after="20260101",valid-before="20270101" `+pub(t, key)+"\n"), "f")
	if _, err := as.Verify(sig, ns, "a@x", message, now); err != nil {
		t.Fatalf("within its validity: %v", err)
	}
}

func TestRefusesSHA1RSA(t *testing.T) {
	needSSHKeygen(t)
	skipRSAUnderShort(t, "rsa")
	dir := t.TempDir()
	key := keygen(t, dir, "r", "rsa", "-b", "2048")
	signer, _ := LoadKey(key)
	as := signer.(ssh.AlgorithmSigner)
	digest, _ := hashMessage(HashSHA512, message)
	s, err := as.SignWithAlgorithm(nil, signedData(ns, HashSHA512, digest), ssh.KeyAlgoRSA)
	if err != nil {
		t.Skipf("cannot make a SHA-1 signature here: %v", err)
	}
	blob := ssh.Marshal(wireSig{[6]byte([]byte(magic)), sigVersion, string(signer.PublicKey().Marshal()), ns, "", HashSHA512, string(ssh.Marshal(s))})
	sig, err := Parse(armor(blob))
	if err != nil {
		t.Fatal(err)
	}
	if err := sig.Verify(ns, message); err == nil || !strings.Contains(err.Error(), "SHA-1") {
		t.Fatalf("SHA-1 signature: %v", err)
	}
}

func TestPassphraseKeyFailsClearlyWithoutTerminal(t *testing.T) {
	needSSHKeygen(t)
	dir := t.TempDir()
	// One round of the passphrase's key derivation, not ssh-keygen's 16:
	// LoadKey refuses the key before it derives anything, and the rounds
	// were most of this test's CPU.
	sh(t, dir, nil, "ssh-keygen", "-q", "-t", "ed25519", "-a", "1", "-N", "secret phrase", "-f", filepath.Join(dir, "p"))
	_, err := LoadKey(filepath.Join(dir, "p"))
	if err == nil || !strings.Contains(err.Error(), "passphrase") || !strings.Contains(err.Error(), "ssh-agent") {
		t.Fatalf("got %v", err)
	}
}

// TestPrincipalPatternsAsOpenSSH holds abbench's reading of the principals
// of an allowed_signers line against ssh-keygen -Y verify itself: '*' and
// '?', negation ("!ci@example.org,*" refuses ci@example.org), and no other
// syntax ('[' is a literal).
func TestPrincipalPatternsAsOpenSSH(t *testing.T) {
	needSSHKeygen(t)
	dir := t.TempDir()
	key := keygen(t, dir, "k", "ed25519")
	msgFile := filepath.Join(dir, "msg")
	os.WriteFile(msgFile, message, 0o644)
	sh(t, dir, nil, "ssh-keygen", "-Y", "sign", "-f", key, "-n", ns, msgFile)
	armored, _ := os.ReadFile(msgFile + ".sig")
	sig, err := Parse(armored)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ principals, identity string }{
		{"ci@example.org", "ci@example.org"},
		{"ci@example.org", "dev@example.org"},
		{"*", "anyone"},
		{"!ci@example.org,*", "ci@example.org"},
		{"!ci@example.org,*", "dev@example.org"},
		{"*,!ci@example.org", "ci@example.org"},
		{"*@example.org,!bad@*", "bad@example.org"},
		{"*@example.org,!bad@*", "good@example.org"},
		{"c?@example.org", "ci@example.org"},
		{"c?@example.org", "cii@example.org"},
		{"[c]i@example.org", "ci@example.org"},
		{"[c]i@example.org", "[c]i@example.org"},
		{"!ci@example.org", "ci@example.org"},
		{"!ci@example.org", "dev@example.org"},
		{"*.org", "ci@example.org"},
		{"CI@example.org", "ci@example.org"},
	}
	for _, c := range cases {
		line := c.principals + " " + pub(t, key)
		allowed := filepath.Join(dir, "allowed")
		os.WriteFile(allowed, []byte(line+"\n"), 0o644)
		cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", allowed, "-I", c.identity, "-n", ns, "-s", msgFile+".sig")
		cmd.Stdin = bytes.NewReader(message)
		openssh := cmd.Run() == nil
		as, err := ParseAllowedSigners([]byte(line+"\n"), "allowed")
		if err != nil {
			t.Fatal(err)
		}
		_, verr := as.Verify(sig, ns, c.identity, message, time.Now())
		if ours := verr == nil; ours != openssh {
			t.Errorf("principals %q, identity %q: abbench accepts %v, ssh-keygen %v (%v)", c.principals, c.identity, ours, openssh, verr)
		}
	}
}
