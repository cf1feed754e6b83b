package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"golang.org/x/crypto/ssh"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"github.com/abbench/abbench/dsse"
	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/scenarios"
	"github.com/abbench/abbench/sshsig"
)

// VerifyError says what failed; every verification failure is one.
type VerifyError struct {
	Bundle string
	What   string
}

func (e *VerifyError) Error() string { return fmt.Sprintf("%s: %s", e.Bundle, e.What) }

// VerifyOptions say whom to trust.
type VerifyOptions struct {
	AllowedSigners *sshsig.AllowedSigners // nil: no signer is trusted
	Identity       string                 // required principal; empty allows any
	AllowUnsigned  bool
	// SkipSignature checks everything but the signature: files, digests,
	// manifest and re-derived evidence. A bundle edited after it was
	// written still fails; only a checked signature says who wrote it.
	SkipSignature bool
	Now           time.Time // zero: time.Now()
}

// Verified is a bundle that passed.
type Verified struct {
	Dir      string
	Signer   string // the allowed principals that accepted the signature; "" if unsigned
	Unsigned bool
	// DSSE says the bundle's DSSE envelope verified too (bundles made
	// before abbench wrote one have none).
	DSSE      bool
	Evidence  *evidence.Evidence
	Statement Statement
}

// Verify checks a bundle directory: the signature over the manifest's
// exact bytes first, then that every file is present with its digest and
// no other file, link or special file is there, then that the evidence
// re-derived from the bundled log bytes and records equals evidence.json.
func Verify(dir string, opts VerifyOptions) (*Verified, error) {
	fail := func(format string, args ...any) error {
		return &VerifyError{Bundle: dir, What: fmt.Sprintf(format, args...)}
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	v := &Verified{Dir: dir}
	manifest, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil, fail("no %s: %v", ManifestFile, err)
	}
	armored, err := os.ReadFile(filepath.Join(dir, SignatureFile))
	envelope, _ := os.ReadFile(filepath.Join(dir, DSSEFile))
	if err := checkSignature(v, manifest, armored, envelope, err, opts); err != nil {
		return nil, fail("%v", err)
	}
	// Only now, with the manifest's bytes trusted, parse it.
	if v.Statement, err = ParseStatement(manifest); err != nil {
		return nil, fail("%s does not parse: %v", ManifestFile, err)
	}
	st := v.Statement
	if st.Type != StatementType || st.PredicateType != PredicateType && st.PredicateType != PredicateTypeV1 {
		return nil, fail("%s is not an abbench evidence statement (_type %q, predicateType %q)", ManifestFile, st.Type, st.PredicateType)
	}
	if err := checkFiles(dir, st); err != nil {
		return nil, fail("%v", err)
	}
	// Re-derive the evidence from the bundled bytes alone.
	var ev evidence.Evidence
	data, _ := os.ReadFile(filepath.Join(dir, EvidenceFile))
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fail("%s does not parse: %v", EvidenceFile, err)
	}
	v.Evidence = &ev
	if ev.Arm != st.Predicate.Arm || ev.Token != st.Predicate.Token || ev.MatchedDigest != st.Predicate.MatchedDigest || ev.Accepted != st.Predicate.Accepted {
		return nil, fail("the manifest's predicate does not match %s", EvidenceFile)
	}
	scenarioData, _ := os.ReadFile(filepath.Join(dir, ScenarioFile))
	s, err := scenarios.ParseWithPrompts(scenarioData, filepath.Join(dir, ScenarioFile), st.Predicate.Prompts)
	if err != nil {
		return nil, fail("the bundled scenario does not load: %v", err)
	}
	again, err := Recollect(s, ev.Arm, dir)
	if err != nil {
		return nil, fail("re-deriving the evidence: %v", err)
	}
	if diff := firstDifference(&ev, again); diff != "" {
		return nil, fail("%s does not match the evidence re-derived from the bundled logs and records: %s", EvidenceFile, diff)
	}
	return v, nil
}

// checkSignature checks the signature armored (read with readErr) over
// the manifest's exact bytes as opts say, and records the signer in v.
// A DSSE envelope, when the bundle has one, must hold the same manifest
// bytes and verify with the same key.
func checkSignature(v *Verified, manifest, armored, envelope []byte, readErr error, opts VerifyOptions) error {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	switch {
	case opts.SkipSignature:
		v.Unsigned = errors.Is(readErr, fs.ErrNotExist)
	case errors.Is(readErr, fs.ErrNotExist):
		if !opts.AllowUnsigned {
			return fmt.Errorf("unsigned (no %s): verify with --allow-unsigned to accept that", SignatureFile)
		}
		v.Unsigned = true
	case readErr != nil:
		return fmt.Errorf("%s: %v", SignatureFile, readErr)
	default:
		sig, err := sshsig.Parse(armored)
		if err != nil {
			return fmt.Errorf("%s: %v", SignatureFile, err)
		}
		if opts.AllowedSigners == nil {
			return fmt.Errorf("signed, but no allowed_signers file was given to say whom to trust")
		}
		who, err := opts.AllowedSigners.Verify(sig, Namespace, opts.Identity, manifest, opts.Now)
		if err != nil {
			return fmt.Errorf("signature: %v", err)
		}
		v.Signer = who
		if envelope != nil {
			if err := checkEnvelope(envelope, manifest, sig.PublicKey); err != nil {
				return fmt.Errorf("%s: %v", DSSEFile, err)
			}
			v.DSSE = true
		}
	}
	return nil
}

// checkEnvelope requires the DSSE envelope to carry exactly the manifest,
// as an in-toto statement, signed by key (a certificate's signature key).
func checkEnvelope(data, manifest []byte, key ssh.PublicKey) error {
	env, err := dsse.Parse(data)
	if err != nil {
		return err
	}
	payload, err := env.DecodedPayload()
	switch {
	case err != nil:
		return err
	case env.PayloadType != dsse.InTotoPayloadType:
		return fmt.Errorf("payloadType %q is not %s", env.PayloadType, dsse.InTotoPayloadType)
	case !bytes.Equal(payload, manifest):
		return fmt.Errorf("its payload is not %s", ManifestFile)
	}
	if cert, ok := key.(*ssh.Certificate); ok {
		key = cert.Key
	}
	return env.VerifyWith(key)
}

// checkFiles requires exactly the manifest's subjects (plus the manifest
// and its signature), each a regular file with its digest.
func checkFiles(dir string, st Statement) error {
	want := map[string]string{}
	for _, s := range st.Subject {
		if !filepath.IsLocal(filepath.FromSlash(s.Name)) {
			return fmt.Errorf("manifest names %q, which is not a local path", s.Name)
		}
		want[s.Name] = s.Digest["sha256"]
	}
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: bundles hold regular files only", rel)
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", rel)
		}
		if rel == ManifestFile || rel == SignatureFile || rel == DSSEFile {
			return nil
		}
		sum, ok := want[rel]
		if !ok {
			return fmt.Errorf("%s is not in the manifest (a file was added)", rel)
		}
		got, err := filehash.SHA256(path)
		if err != nil {
			return err
		}
		if got != sum {
			return fmt.Errorf("%s was changed: its SHA-256 is %s, the manifest says %s", rel, got, sum)
		}
		seen[rel] = true
		return nil
	})
	if err != nil {
		return err
	}
	var missing []string
	for name := range want {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fmt.Errorf("%v named in the manifest are missing (removed or renamed)", missing)
	}
	return nil
}

// firstDifference compares two evidence documents as JSON values and names
// the first field that differs.
func firstDifference(a, b *evidence.Evidence) string {
	var x, y any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if bytes.Equal(ja, jb) {
		return ""
	}
	_ = json.Unmarshal(ja, &x) // both were marshalled just above: they parse
	_ = json.Unmarshal(jb, &y)
	return diffPath("", x, y)
}

func diffPath(path string, x, y any) string {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok {
			return path
		}
		keys := map[string]bool{}
		for k := range xv {
			keys[k] = true
		}
		for k := range yv {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			if d := diffPath(path+"."+k, xv[k], yv[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Sprintf("%s (%v vs %v)", path, short(x), short(y))
		}
		for i := range xv {
			if d := diffPath(fmt.Sprintf("%s[%d]", path, i), xv[i], yv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(x, y) {
		return fmt.Sprintf("%s (%v in evidence.json, %v re-derived)", path, short(x), short(y))
	}
	return ""
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// Recollect derives the evidence of a bundle from its bundled log bytes and
// records (its logs hold only their scopes), as verify and replay do.
func Recollect(s *scenarios.Scenario, arm, dir string) (*evidence.Evidence, error) {
	var scopes map[string]ScopeRecord
	data, err := os.ReadFile(filepath.Join(dir, ScopesFile))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &scopes); err != nil {
		return nil, fmt.Errorf("%s does not parse: %v", ScopesFile, err)
	}
	unreadable := map[string]string{}
	for name, rec := range scopes {
		if rec.Unreadable != "" {
			unreadable[name] = rec.Unreadable
		}
	}
	return evidence.CollectWith(s, arm, dir, evidence.Options{ScopedLogs: true, Unreadable: unreadable})
}

// IsBundle reports whether dir holds a bundle.
func IsBundle(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ManifestFile))
	return err == nil
}
