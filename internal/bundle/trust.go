package bundle

import (
	"bytes"
	"errors"
	"io/fs"
	"path/filepath"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/dsse"
	"github.com/abbench/abbench/internal/sshsig"
)

// manifestCheck is what decides whether a manifest is trusted, from its bytes
// alone, for a bundle directory and an archive alike: the signature,
// envelope and statement steps, in that order, record what they find in v.
type manifestCheck struct {
	opts     VerifyOptions
	v        *Verified
	manifest []byte
	armored  []byte // the signature; armoredErr says why there is none
	// armoredErr is the error reading the signature: fs.ErrNotExist for
	// an unsigned bundle.
	armoredErr error
	dsse       []byte        // the DSSE envelope; nil when the bundle has none
	key        ssh.PublicKey // the key the signature verified with; nil when it was not checked
}

// ErrUnsigned is the failure of an unsigned bundle where a signature was
// required: each command says its own way on (verify --allow-unsigned; a
// comparison without --allowed-signers), so the text names no flag.
var ErrUnsigned = errors.New("unsigned")

// signature checks the SSH signature over the manifest's exact bytes as
// the options say, and records the signer.
func (c *manifestCheck) signature() error {
	now := c.opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	unsigned := errors.Is(c.armoredErr, fs.ErrNotExist)
	switch {
	case c.opts.SkipSignature:
		c.v.Unsigned = unsigned
		return nil
	case unsigned && !c.opts.AllowUnsigned:
		return fail(StepSignature, SignatureFile, "%w (no %s)", ErrUnsigned, SignatureFile)
	case unsigned:
		c.v.Unsigned = true
		return nil
	case c.armoredErr != nil:
		return fail(StepSignature, SignatureFile, "%s: %w", SignatureFile, c.armoredErr)
	}
	sig, err := sshsig.Parse(c.armored)
	if err != nil {
		return fail(StepSignature, SignatureFile, "%s: %w", SignatureFile, err)
	}
	if c.opts.AllowedSigners == nil {
		return fail(StepSignature, SignatureFile, "signed, but no allowed_signers file was given to say whom to trust")
	}
	who, err := c.opts.AllowedSigners.Verify(sig, Namespace, c.opts.Identity, c.manifest, now)
	if err != nil {
		return fail(StepSignature, SignatureFile, "signature: %w", err)
	}
	c.v.Signer, c.key = who, sig.PublicKey
	c.v.Key = dsse.KeyID(signingKey(sig.PublicKey))
	return nil
}

// signingKey is the key that made a signature: a certificate's signature
// key, else the key itself.
func signingKey(k ssh.PublicKey) ssh.PublicKey {
	if cert, ok := k.(*ssh.Certificate); ok {
		return cert.Key
	}
	return k
}

// envelope requires the DSSE envelope, when the bundle has one and its
// signature was checked, to carry exactly the manifest, as an in-toto
// statement, signed by the key that made the signature (a certificate's
// signature key).
func (c *manifestCheck) envelope() error {
	if c.key == nil || c.dsse == nil {
		return nil
	}
	env, err := dsse.Parse(c.dsse)
	if err != nil {
		return fail(StepEnvelope, DSSEFile, "%s: %w", DSSEFile, err)
	}
	payload, err := env.DecodedPayload()
	switch {
	case err != nil:
		return fail(StepEnvelope, DSSEFile, "%s: %w", DSSEFile, err)
	case env.PayloadType != dsse.InTotoPayloadType:
		return fail(StepEnvelope, DSSEFile, "%s: payloadType %q is not %s", DSSEFile, env.PayloadType, dsse.InTotoPayloadType)
	case !bytes.Equal(payload, c.manifest):
		return fail(StepEnvelope, DSSEFile, "%s: its payload is not %s", DSSEFile, ManifestFile)
	}
	if err := env.VerifyWith(signingKey(c.key)); err != nil {
		return fail(StepEnvelope, DSSEFile, "%s: %w", DSSEFile, err)
	}
	c.v.DSSE = true
	return nil
}

// statement parses the manifest, only now that its bytes are trusted: an
// abbench evidence statement, valid as the in-toto attestation library
// holds it (stockStatement: the manifest parsed once), whose subjects are
// local names.
func (c *manifestCheck) statement() error {
	st, hasPredicate, err := parseStatement(c.manifest)
	if err != nil {
		return fail(StepStatement, ManifestFile, "%s does not parse: %w", ManifestFile, err)
	}
	if st.Type != StatementType || st.PredicateType != PredicateType && st.PredicateType != PredicateTypeV1 {
		return fail(StepStatement, ManifestFile, "%s is not an abbench evidence statement (_type %q, predicateType %q)", ManifestFile, st.Type, st.PredicateType)
	}
	if err := stockStatement(st, hasPredicate); err != nil {
		return fail(StepStatement, ManifestFile, "%s is not a valid in-toto Statement: %w", ManifestFile, err)
	}
	for _, s := range st.Subject {
		if !filepath.IsLocal(filepath.FromSlash(s.Name)) {
			return fail(StepStatement, ManifestFile, "manifest names %q, which is not a local path", s.Name)
		}
	}
	c.v.Statement = st
	return nil
}
