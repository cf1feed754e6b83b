package bundle

import (
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/dsse"
	"github.com/abbench/abbench/internal/sshsig"
)

// stockVerifier is go-securesystemslib's verifier of an ed25519 public
// key as the library loads it from a PEM file (signerverifier.LoadKey: the
// keyid is the library's own, a hash of the key), or, with named false,
// of the bare key (the library then names it by its SSH fingerprint).
func stockVerifier(t *testing.T, pub ssh.PublicKey, named bool) ssldsse.Verifier {
	t.Helper()
	k := pub.(ssh.CryptoPublicKey).CryptoPublicKey().(ed25519.PublicKey)
	key := &signerverifier.SSLibKey{KeyType: signerverifier.ED25519KeyType, Scheme: signerverifier.ED25519KeyType, KeyVal: signerverifier.KeyVal{Public: hex.EncodeToString(k)}}
	if named {
		der, err := x509.MarshalPKIXPublicKey(k)
		if err != nil {
			t.Fatal(err)
		}
		if key, err = signerverifier.LoadKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})); err != nil {
			t.Fatal(err)
		}
		if key.KeyID == "" {
			t.Fatal("the library named the key by nothing")
		}
	}
	v, err := signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// stockVerify verifies the envelope in file with v by the library's
// EnvelopeVerifier, as a reviewer's program would, and returns the payload.
func stockVerify(t *testing.T, file string, v ssldsse.Verifier) ([]byte, error) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var env ssldsse.Envelope
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatal(err)
	}
	ev, err := ssldsse.NewEnvelopeVerifier(v)
	if err != nil {
		t.Fatal(err)
	}
	accepted, body, err := ev.VerifyAndDecode(context.Background(), &env)
	if err == nil && len(accepted) != 1 {
		t.Fatalf("%d keys accepted", len(accepted))
	}
	return body, err
}

// go-securesystemslib's stock EnvelopeVerifier, given only the signer's
// public key, verifies a bundle's envelope as written, nothing injected:
// the key loaded from PEM as the library loads it (named by its own
// keyid) and the bare key alike. abbench's verification names the key.
func TestStockDSSEVerifierAcceptsTheEnvelope(t *testing.T) {
	signer, pub := newSigner(t)
	b := writeBundle(t, signer, 4)
	manifest, _ := os.ReadFile(filepath.Join(b, ManifestFile))
	for _, named := range []bool{true, false} {
		body, err := stockVerify(t, filepath.Join(b, DSSEFile), stockVerifier(t, signer.PublicKey(), named))
		if err != nil || string(body) != string(manifest) {
			t.Errorf("key loaded from PEM %v: %v (payload is the manifest: %v)", named, err, string(body) == string(manifest))
		}
	}
	other, _ := newSigner(t)
	if _, err := stockVerify(t, filepath.Join(b, DSSEFile), stockVerifier(t, other.PublicKey(), true)); err == nil {
		t.Error("another key verified the envelope")
	}
	checks, failed := CheckAll([]string{b}, VerifyOptions{AllowedSigners: trust(t, "ci@x "+pub), Identity: "ci@x"})
	var out strings.Builder
	if err := WriteChecks(&out, checks); failed != 0 || err != nil || checks[0].Key != dsse.KeyID(signer.PublicKey()) || !checks[0].DSSE ||
		!strings.Contains(out.String(), "(SSHSIG and DSSE); arm async, evidence accepted: true; key "+dsse.KeyID(signer.PublicKey())) {
		t.Errorf("abbench verify: %+v %v\n%s", checks, err, out.String())
	}
}

// The committed GPU bundle's envelope was written with the SSH
// fingerprint as its keyid, before abbench wrote none: the library
// verifies it given the bare key (which it names by that fingerprint) and
// skips its signature for a key loaded from PEM (which it names by its
// own keyid), as docs/bundles.md says; abbench verifies it still.
func TestStockDSSEVerifierAndACommittedEnvelope(t *testing.T) {
	const archive = "../../testdata/nccl/bundles/machine-ring.tar.gz"
	dir := t.TempDir()
	if err := Unpack(archive, dir); err != nil {
		t.Fatal(err)
	}
	allowed, err := sshsig.ReadAllowedSigners("../../testdata/nccl/allowed_signers")
	if err != nil {
		t.Fatal(err)
	}
	key := allowed.Signers[0].Key
	env := filepath.Join(dir, DSSEFile)
	if _, err := stockVerify(t, env, stockVerifier(t, key, false)); err != nil {
		t.Errorf("the bare key: %v", err)
	}
	if _, err := stockVerify(t, env, stockVerifier(t, key, true)); err == nil {
		t.Error("a key loaded from PEM verified an envelope whose keyid is the SSH fingerprint: docs/bundles.md says it does not")
	}
	if v, err := VerifyPath(archive, VerifyOptions{AllowedSigners: allowed}); err != nil || !v.DSSE {
		t.Errorf("abbench verify: %v", err)
	}
}
