// Package dsse signs and verifies Dead Simple Signing Envelopes
// (github.com/secure-systems-lab/dsse, v1.0.0) with the SSH keys abbench
// already signs bundles with (a key file or ssh-agent): in-toto, cosign and
// SLSA tooling read DSSE, not SSHSIG. The envelope, its pre-authentication
// encoding and the rules of which signature counts for which key are
// go-securesystemslib's, the library stock DSSE verifiers use, so abbench
// writes and accepts exactly what they do; this package adds only the SSH
// keys, with each signature encoded as those verifiers expect: Ed25519 raw
// (64 bytes), ECDSA ASN.1 DER over SHA-256/384/512 by curve, RSA PKCS#1
// v1.5 over SHA-256 (what ssh-agent's rsa-sha2-256 gives).
package dsse

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"golang.org/x/crypto/ssh"
)

// InTotoPayloadType is the payload type of an in-toto Statement.
const InTotoPayloadType = "application/vnd.in-toto+json"

// Envelope is a DSSE envelope: go-securesystemslib's, with abbench's
// verification by SSH key.
type Envelope ssldsse.Envelope

// Signature is one signature of an envelope.
type Signature = ssldsse.Signature

// KeyID names a key as ssh-keygen does: SHA256:base64 (what
// go-securesystemslib names a key without an id by, too). abbench names
// the key it verified with by it; envelopes it signs carry no keyid.
func KeyID(k ssh.PublicKey) string { return ssh.FingerprintSHA256(k) }

// Sign wraps payload in an envelope signed by signer.
func Sign(signer ssh.Signer, payloadType string, payload []byte) (*Envelope, error) {
	es, err := ssldsse.NewEnvelopeSigner(keySigner{signer})
	if err != nil {
		return nil, fmt.Errorf("dsse: %w", err)
	}
	env, err := es.SignPayload(context.Background(), payloadType, payload)
	if err != nil {
		return nil, err
	}
	return (*Envelope)(env), nil
}

// keySigner signs PAE bytes with an SSH key, for go-securesystemslib's
// envelope signer.
type keySigner struct{ key ssh.Signer }

// KeyID is empty: a keyid is an unsigned hint, and stock verifiers name
// the same key differently (go-securesystemslib by its securesystemslib
// keyid when loaded from a file, by its SSH fingerprint when bare; cosign
// by nothing), skipping a signature whose keyid is not their name for the
// key. A signature without one is tried with every key they are given.
func (s keySigner) KeyID() (string, error) { return "", nil }

func (s keySigner) Sign(_ context.Context, pae []byte) ([]byte, error) {
	var sig *ssh.Signature
	var err error
	switch s.key.PublicKey().Type() {
	case ssh.KeyAlgoRSA:
		as, ok := s.key.(ssh.AlgorithmSigner)
		if !ok {
			return nil, errors.New("dsse: this RSA signer cannot sign with SHA-256")
		}
		sig, err = as.SignWithAlgorithm(rand.Reader, pae, ssh.KeyAlgoRSASHA256)
	default:
		sig, err = s.key.Sign(rand.Reader, pae)
	}
	if err != nil {
		return nil, fmt.Errorf("dsse: signing: %w", err)
	}
	return encode(sig)
}

// encode turns an SSH signature blob into the DSSE encoding of its
// algorithm.
func encode(sig *ssh.Signature) ([]byte, error) {
	switch sig.Format {
	case ssh.KeyAlgoED25519, ssh.KeyAlgoRSASHA256:
		return sig.Blob, nil
	case ssh.KeyAlgoECDSA256, ssh.KeyAlgoECDSA384, ssh.KeyAlgoECDSA521:
		var rs struct{ R, S *big.Int }
		if err := ssh.Unmarshal(sig.Blob, &rs); err != nil {
			return nil, fmt.Errorf("dsse: ECDSA signature: %w", err)
		}
		return asn1.Marshal(rs)
	}
	return nil, fmt.Errorf("dsse: signatures of %s keys are not supported (ed25519, ECDSA and RSA are)", sig.Format)
}

// DecodedPayload is the envelope's payload, decoded as go-securesystemslib
// decodes it (standard base64, else URL base64).
func (e *Envelope) DecodedPayload() ([]byte, error) {
	payload, err := (*ssldsse.Envelope)(e).DecodeB64Payload()
	if err != nil {
		return nil, fmt.Errorf("dsse: %w", err)
	}
	return payload, nil
}

// Parse reads an envelope.
func Parse(data []byte) (*Envelope, error) {
	var e Envelope
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("dsse: %w", err)
	}
	if e.PayloadType == "" || len(e.Signatures) == 0 {
		return nil, errors.New("dsse: an envelope needs a payloadType and a signature")
	}
	return &e, nil
}

// VerifyWith says whether one of the envelope's signatures verifies with
// key, over PAE(payloadType, payload), by go-securesystemslib's envelope
// verifier: a signature counts only for the key its keyid names (a keyid
// is an unsigned hint, but one naming another key says the signature is
// not this key's), and an envelope with a signature that does not decode
// is refused whole.
func (e *Envelope) VerifyWith(key ssh.PublicKey) error {
	pub, err := CryptoKey(key)
	if err != nil {
		return err
	}
	kv := &keyVerifier{pub: pub, id: KeyID(key)}
	ev, err := ssldsse.NewEnvelopeVerifier(kv)
	if err != nil {
		return fmt.Errorf("dsse: %w", err)
	}
	if _, err := ev.Verify(context.Background(), (*ssldsse.Envelope)(e)); err != nil {
		return kv.why(e, err)
	}
	return nil
}

// keyVerifier verifies signatures with one key, for go-securesystemslib's
// envelope verifier, and keeps why the last one it was asked about failed.
type keyVerifier struct {
	pub  crypto.PublicKey
	id   string
	last error
}

func (v *keyVerifier) KeyID() (string, error)   { return v.id, nil }
func (v *keyVerifier) Public() crypto.PublicKey { return v.pub }

func (v *keyVerifier) Verify(_ context.Context, pae, sig []byte) error {
	v.last = verify(v.pub, pae, sig)
	return v.last
}

// why is the root cause of the envelope verifier's refusal err, found in
// the verifier's order: a payload or a signature that does not decode
// (which refuses the envelope whole), else a signature of this key that
// did not verify, else one whose keyid names another key, else what the
// verifier said.
func (v *keyVerifier) why(e *Envelope, err error) error {
	if _, perr := e.DecodedPayload(); perr != nil {
		return perr
	}
	for i, s := range e.Signatures {
		// Decoded as the verifier decodes a signature: as a payload.
		if _, serr := (&ssldsse.Envelope{Payload: s.Sig}).DecodeB64Payload(); serr != nil {
			return fmt.Errorf("dsse: signature %s: %w", signatureName(i, s), serr)
		}
	}
	if v.last != nil {
		return fmt.Errorf("%w with key %s", v.last, v.id)
	}
	for i, s := range e.Signatures {
		if s.KeyID != "" && s.KeyID != v.id {
			return fmt.Errorf("dsse: signature %s: the keyid names another key than %s", signatureName(i, s), v.id)
		}
	}
	return fmt.Errorf("dsse: %w (key %s)", err, v.id)
}

// signatureName names the envelope's i-th signature: by its keyid, or
// its place when it has none.
func signatureName(i int, s Signature) string {
	if s.KeyID != "" {
		return s.KeyID
	}
	return fmt.Sprintf("%d (no keyid)", i+1)
}

// CryptoKey is an SSH public key as a crypto key (an ssh-agent's key
// wrapper is parsed again from its wire form).
func CryptoKey(key ssh.PublicKey) (crypto.PublicKey, error) {
	if _, ok := key.(ssh.CryptoPublicKey); !ok {
		parsed, err := ssh.ParsePublicKey(key.Marshal())
		if err != nil {
			return nil, fmt.Errorf("dsse: %s key: %w", key.Type(), err)
		}
		key = parsed
	}
	cpk, ok := key.(ssh.CryptoPublicKey)
	if !ok {
		return nil, fmt.Errorf("dsse: %s keys are not supported", key.Type())
	}
	return cpk.CryptoPublicKey(), nil
}

func verify(pub crypto.PublicKey, msg, sig []byte) error {
	switch k := pub.(type) {
	case ed25519.PublicKey:
		if ed25519.Verify(k, msg, sig) {
			return nil
		}
	case *ecdsa.PublicKey:
		var digest []byte
		switch k.Curve {
		case elliptic.P256():
			h := sha256.Sum256(msg)
			digest = h[:]
		case elliptic.P384():
			h := sha512.Sum384(msg)
			digest = h[:]
		default:
			h := sha512.Sum512(msg)
			digest = h[:]
		}
		if ecdsa.VerifyASN1(k, digest, sig) {
			return nil
		}
	case *rsa.PublicKey:
		h := sha256.Sum256(msg)
		if rsa.VerifyPKCS1v15(k, crypto.SHA256, h[:], sig) == nil {
			return nil
		}
	default:
		return fmt.Errorf("dsse: %T keys are not supported", pub)
	}
	return errors.New("dsse: the signature does not verify")
}
