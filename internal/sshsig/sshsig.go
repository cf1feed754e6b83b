// Package sshsig signs and verifies SSH signatures in the format of
// ssh-keygen -Y sign (OpenSSH's PROTOCOL.sshsig), byte-compatible with it,
// and reads ssh-keygen's allowed_signers files. golang.org/x/crypto/ssh
// provides the keys, signers and certificates; this package is the small
// codec around them.
package sshsig

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

const (
	magic      = "SSHSIG"
	sigVersion = 1
	armorBegin = "-----BEGIN SSH SIGNATURE-----"
	armorEnd   = "-----END SSH SIGNATURE-----"
	// HashSHA512 is the hash abbench signs with, as ssh-keygen does by default.
	HashSHA512 = "sha512"
	HashSHA256 = "sha256"
)

// Signature is a parsed SSH signature.
type Signature struct {
	PublicKey ssh.PublicKey // a key or an *ssh.Certificate
	Namespace string
	Hash      string
	Sig       *ssh.Signature
}

// InvalidSignatureError says why a signature does not verify.
type InvalidSignatureError struct{ Reason string }

func (e *InvalidSignatureError) Error() string { return "invalid signature: " + e.Reason }

func invalid(format string, args ...any) error {
	return &InvalidSignatureError{Reason: fmt.Sprintf(format, args...)}
}

func hashMessage(hash string, msg []byte) ([]byte, error) {
	switch hash {
	case HashSHA512:
		h := sha512.Sum512(msg)
		return h[:], nil
	case HashSHA256:
		h := sha256.Sum256(msg)
		return h[:], nil
	}
	return nil, invalid("unsupported hash algorithm %q", hash)
}

// signedData is the blob the key actually signs.
func signedData(namespace, hash string, digest []byte) []byte {
	return ssh.Marshal(struct {
		Magic     [6]byte
		Namespace string
		Reserved  string
		Hash      string
		Digest    string
	}{[6]byte([]byte(magic)), namespace, "", hash, string(digest)})
}

type wireSig struct {
	Magic     [6]byte
	Version   uint32
	PublicKey string
	Namespace string
	Reserved  string
	Hash      string
	Signature string
}

// Sign signs msg in namespace with signer (a key, a certificate signer, or
// an agent's key) and returns the armored signature. RSA keys sign with
// rsa-sha2-512, never SHA-1.
func Sign(signer ssh.Signer, namespace string, msg []byte) ([]byte, error) {
	if namespace == "" {
		return nil, errors.New("sshsig: empty namespace")
	}
	digest, _ := hashMessage(HashSHA512, msg)
	data := signedData(namespace, HashSHA512, digest)
	var (
		sig *ssh.Signature
		err error
	)
	if isRSA(signer.PublicKey()) {
		as, ok := signer.(ssh.AlgorithmSigner)
		if !ok {
			return nil, errors.New("sshsig: this RSA signer cannot sign with rsa-sha2-512")
		}
		sig, err = as.SignWithAlgorithm(rand.Reader, data, ssh.KeyAlgoRSASHA512)
	} else {
		sig, err = signer.Sign(rand.Reader, data)
	}
	if err != nil {
		return nil, fmt.Errorf("sshsig: signing: %w", err)
	}
	blob := ssh.Marshal(wireSig{[6]byte([]byte(magic)), sigVersion, string(signer.PublicKey().Marshal()), namespace, "", HashSHA512, string(ssh.Marshal(sig))})
	return armor(blob), nil
}

func isRSA(k ssh.PublicKey) bool {
	if c, ok := k.(*ssh.Certificate); ok {
		k = c.Key
	}
	return k.Type() == ssh.KeyAlgoRSA
}

// armor wraps the blob's base64 at 70 columns, as ssh-keygen does.
func armor(blob []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(blob)
	var b bytes.Buffer
	b.WriteString(armorBegin + "\n")
	for len(enc) > 70 {
		b.WriteString(enc[:70] + "\n")
		enc = enc[70:]
	}
	b.WriteString(enc + "\n" + armorEnd + "\n")
	return b.Bytes()
}

// Parse reads an armored signature.
func Parse(armored []byte) (*Signature, error) {
	text := strings.TrimSpace(string(armored))
	if !strings.HasPrefix(text, armorBegin) || !strings.HasSuffix(text, armorEnd) {
		return nil, invalid("not an armored SSH signature")
	}
	body := strings.TrimSuffix(strings.TrimPrefix(text, armorBegin), armorEnd)
	blob, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body), ""))
	if err != nil {
		return nil, invalid("armor is not base64: %v", err)
	}
	var w wireSig
	if err := ssh.Unmarshal(blob, &w); err != nil {
		return nil, invalid("malformed signature blob: %v", err)
	}
	if string(w.Magic[:]) != magic {
		return nil, invalid("bad magic")
	}
	if w.Version != sigVersion {
		return nil, invalid("unsupported signature version %d", w.Version)
	}
	pub, err := ssh.ParsePublicKey([]byte(w.PublicKey))
	if err != nil {
		return nil, invalid("public key: %v", err)
	}
	var sig ssh.Signature
	if err := ssh.Unmarshal([]byte(w.Signature), &sig); err != nil {
		return nil, invalid("signature: %v", err)
	}
	return &Signature{PublicKey: pub, Namespace: w.Namespace, Hash: w.Hash, Sig: &sig}, nil
}

// Verify checks that s signs msg in namespace with its own public key. It
// does not say whether that key is trusted: see AllowedSigners.Verify.
func (s *Signature) Verify(namespace string, msg []byte) error {
	if s.Namespace != namespace {
		return invalid("namespace is %q, want %q", s.Namespace, namespace)
	}
	if s.Sig.Format == ssh.KeyAlgoRSA || s.Sig.Format == ssh.CertAlgoRSAv01 {
		return invalid("SHA-1 ssh-rsa signatures are refused; sign with rsa-sha2-512")
	}
	digest, err := hashMessage(s.Hash, msg)
	if err != nil {
		return err
	}
	key := s.PublicKey
	if c, ok := key.(*ssh.Certificate); ok {
		key = c.Key
	}
	if err := key.Verify(signedData(namespace, s.Hash, digest), s.Sig); err != nil {
		return invalid("the signature does not match the data: %v", err)
	}
	return nil
}
