package dsse_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/dsse"
	"github.com/abbench/abbench/internal/sshsig"
	"github.com/abbench/abbench/internal/testdaemon"
)

var payload = []byte(`{"_type":"https://in-toto.io/Statement/v1","subject":[],"predicateType":"x","predicate":{}}`)

func keygen(t *testing.T, dir, name, typ string) string {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ssh-keygen (openssh-client) is missing; .ci/run installs it")
		}
		t.Skip("ssh-keygen not installed")
	}
	path := filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", typ, "-N", "", "-C", name, "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	return path
}

// independent verifies env with go-securesystemslib's DSSE verifier (its
// PAE, its base64, its key handling): a second implementation of the spec,
// given only the public key, as PEM, loaded as the library loads a key
// (signerverifier.LoadKey, which names it by its own keyid): nothing of
// abbench's, no keyid, is handed to it. An envelope whose signatures have
// keyids (as abbench wrote them before: the SSH fingerprint) is verified
// with the bare key, which the library names by its SSH fingerprint.
func independent(t *testing.T, env *dsse.Envelope, pub ssh.PublicKey) []byte {
	t.Helper()
	data, _ := json.Marshal(env)
	var e ssldsse.Envelope
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatal(err)
	}
	ck, err := dsse.CryptoKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(ck)
	if err != nil {
		t.Fatal(err)
	}
	key, err := signerverifier.LoadKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	v, err := bareVerifier(ck, key)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := v.KeyID(); id == "" || id == dsse.KeyID(pub) {
		t.Fatalf("the library's keyid %q is not its own", id)
	}
	if slices.ContainsFunc(e.Signatures, func(s ssldsse.Signature) bool { return s.KeyID != "" }) {
		key.KeyID = "" // the library names a key without an id by its SSH fingerprint
		v, err = bareVerifier(ck, key)
		if err != nil {
			t.Fatal(err)
		}
	}
	ev, err := ssldsse.NewEnvelopeVerifier(v)
	if err != nil {
		t.Fatal(err)
	}
	accepted, body, err := ev.VerifyAndDecode(context.Background(), &e)
	if err != nil || len(accepted) != 1 {
		t.Fatalf("go-securesystemslib refused the envelope: %v (%d keys)", err, len(accepted))
	}
	return body
}

// bareVerifier is the library's verifier of key, of the type of ck.
func bareVerifier(ck crypto.PublicKey, key *signerverifier.SSLibKey) (ssldsse.Verifier, error) {
	switch k := ck.(type) {
	case ed25519.PublicKey:
		return signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
	case *ecdsa.PublicKey:
		return signerverifier.NewECDSASignerVerifierFromSSLibKey(key)
	default:
		return nil, fmt.Errorf("no independent verifier for %T", k)
	}
}

func TestKeyFileSignaturesVerifyIndependently(t *testing.T) {
	dir := t.TempDir()
	for _, typ := range []string{"ed25519", "ecdsa"} {
		signer, err := sshsig.LoadKey(keygen(t, dir, "id_"+typ, typ))
		if err != nil {
			t.Fatal(err)
		}
		env, err := dsse.Sign(signer, dsse.InTotoPayloadType, payload)
		if err != nil {
			t.Fatal(err)
		}
		if id := env.Signatures[0].KeyID; id != "" {
			t.Errorf("%s: keyid %q: a stock verifier skips a signature whose keyid is not its name for the key", typ, id)
		}
		if body := independent(t, env, signer.PublicKey()); string(body) != string(payload) {
			t.Errorf("%s: payload %q", typ, body)
		}
		if err := env.VerifyWith(signer.PublicKey()); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
		// A changed payload does not verify, here or there.
		env.Payload = base64.StdEncoding.EncodeToString(append(payload, ' '))
		if env.VerifyWith(signer.PublicKey()) == nil {
			t.Errorf("%s: a changed payload verified", typ)
		}
	}
}

// RSA signatures are RSASSA-PKCS1-v1_5 over SHA-256 (what ssh-agent's
// rsa-sha2-256 signs), checked here with the standard library alone.
func TestRSASignatureIsPKCS1v15SHA256(t *testing.T) {
	// ssh-keygen makes a 3072-bit RSA key in a third of a second to a
	// second of CPU, most of this package's quick-loop time.
	if testing.Short() {
		t.Skip("makes an RSA key: go test without -short runs it")
	}
	signer, err := sshsig.LoadKey(keygen(t, t.TempDir(), "id_rsa", "rsa"))
	if err != nil {
		t.Fatal(err)
	}
	env, err := dsse.Sign(signer, dsse.InTotoPayloadType, payload)
	if err != nil {
		t.Fatal(err)
	}
	sig, _ := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	// PAE as the DSSE v1.0.0 specification spells it.
	pae := fmt.Sprintf("DSSEv1 %d %s %d %s", len(dsse.InTotoPayloadType), dsse.InTotoPayloadType, len(payload), payload)
	h := sha256.Sum256([]byte(pae))
	pub := signer.PublicKey().(ssh.CryptoPublicKey).CryptoPublicKey().(*rsa.PublicKey)
	if err := rsa.VerifyPKCS1v15(pub, crypto.SHA256, h[:], sig); err != nil {
		t.Fatal(err)
	}
}

func TestAgentSignaturesVerifyIndependently(t *testing.T) {
	testdaemon.StartSSHAgent(t)
	dir := t.TempDir()
	for _, typ := range []string{"ed25519", "ecdsa"} {
		key := keygen(t, dir, "agent_"+typ, typ)
		if out, err := exec.Command("ssh-add", "-q", key).CombinedOutput(); err != nil {
			t.Fatalf("ssh-add: %v %s", err, out)
		}
		signer, closeAgent, err := sshsig.AgentSigner(key + ".pub")
		if err != nil {
			t.Fatal(err)
		}
		env, err := dsse.Sign(signer, dsse.InTotoPayloadType, payload)
		closeAgent()
		if err != nil {
			t.Fatal(err)
		}
		independent(t, env, signer.PublicKey())
	}
}

// An envelope with a signature that does not decode is refused whole, as
// go-securesystemslib refuses it, even when another signature verifies:
// abbench and stock verifiers accept the same envelopes. An envelope whose
// signatures are all standard or URL base64 verifies by any of them.
func TestEnvelopeWithAnUndecodableSignatureIsRefused(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(nil)
	signer, _ := ssh.NewSignerFromKey(priv)
	env, err := dsse.Sign(signer, dsse.InTotoPayloadType, payload)
	if err != nil {
		t.Fatal(err)
	}
	good := env.Signatures[0]
	env.Signatures = []dsse.Signature{good, {KeyID: "other", Sig: "!!"}}
	if err := env.VerifyWith(signer.PublicKey()); err == nil || !strings.Contains(err.Error(), "dsse: signature other:") {
		t.Fatalf("an envelope with an undecodable signature: %v", err)
	}
	env.Signatures = []dsse.Signature{{KeyID: "other", Sig: "AAAA"}, good}
	if err := env.VerifyWith(signer.PublicKey()); err != nil {
		t.Fatalf("an envelope with another key's signature beside a good one: %v", err)
	}
}
