package dsse_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/dsse"
	"github.com/abbench/abbench/internal/fuzzseed"
	"github.com/abbench/abbench/internal/sshsig"
)

// FuzzEnvelope parses any envelope and verifies it with two keys: the
// signing key of the bundles in testdata and a fixed one. A refusal says
// dsse:; an envelope verifies with a key exactly when one of its
// signatures does and every signature decodes (DSSE allows standard and
// URL base64); each such signature verifies with go-securesystemslib's
// DSSE verifier and its key types' own verifiers too (a second
// implementation of the signature encodings) with the same payload; and
// the envelope verifies again after a round trip through JSON.
func FuzzEnvelope(f *testing.F) {
	fuzzseed.Add(f, "../../testdata/nccl/bundles/machine-ring.tar.gz") // not an envelope: gzip bytes
	for _, env := range fuzzseed.Members(f, "../../testdata/nccl/bundles/*.tar.gz", "manifest.dsse.json") {
		f.Add(env)
	}
	signer := fuzzseed.Signer(f)
	env, err := dsse.Sign(signer, dsse.InTotoPayloadType, payload)
	if err != nil {
		f.Fatal(err)
	}
	own, _ := json.Marshal(env)
	f.Add(own)
	f.Add(bytes.Replace(own, []byte(`"signatures":[`), []byte(`"signatures":[{"keyid":"x","sig":"!!"},`), 1))
	f.Add(bytes.Replace(own, []byte(`"signatures":[`), []byte(`"signatures":[{"keyid":"x","sig":"AAAA"},`), 1))
	f.Add([]byte(`{"payloadType":"x","payload":"","signatures":[{"sig":""}]}`))
	allowed, err := sshsig.ReadAllowedSigners("../../testdata/nccl/allowed_signers")
	if err != nil {
		f.Fatal(err)
	}
	keys := []ssh.PublicKey{allowed.Signers[0].Key, signer.PublicKey()}
	f.Fuzz(func(t *testing.T, data []byte) {
		env, err := dsse.Parse(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "dsse: ") {
				t.Fatalf("an error that does not say dsse: %v", err)
			}
			return
		}
		for _, key := range keys {
			holdsForKey(t, env, key)
		}
	})
}

// holdsForKey checks FuzzEnvelope's properties of env for one key.
func holdsForKey(t *testing.T, env *dsse.Envelope, key ssh.PublicKey) {
	err := env.VerifyWith(key)
	if err != nil && !strings.HasPrefix(err.Error(), "dsse: ") {
		t.Fatalf("a refusal that does not say dsse: %v", err)
	}
	one, decodes := false, true
	for _, sig := range env.Signatures {
		decodes = decodes && decodesAsBase64(sig.Sig)
		alone := *env
		alone.Signatures = []dsse.Signature{sig}
		if alone.VerifyWith(key) != nil {
			continue
		}
		one = true
		payload, err := alone.DecodedPayload()
		if err != nil {
			t.Fatalf("verified, but the payload does not decode: %v", err)
		}
		if body := independent(t, &alone, key); !bytes.Equal(body, payload) {
			t.Fatalf("go-securesystemslib decodes the payload %q, abbench %q", body, payload)
		}
	}
	if verified := err == nil; verified != (one && decodes) {
		t.Fatalf("the envelope verifies %v (%v); one of its signatures alone %v, all decode %v", verified, err, one, decodes)
	}
	if err != nil {
		return
	}
	again, _ := json.Marshal(env)
	round, err := dsse.Parse(again)
	if err != nil || round.VerifyWith(key) != nil {
		t.Fatalf("verified, but not after a round trip through JSON: %s (%v)", again, err)
	}
}

// decodesAsBase64 says whether s is standard or URL base64, as DSSE
// allows a signature to be.
func decodesAsBase64(s string) bool {
	_, std := base64.StdEncoding.DecodeString(s)
	_, url := base64.URLEncoding.DecodeString(s)
	return std == nil || url == nil
}
