package bundle

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/dsse"
	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/internal/sshsig"
)

// manifest is Write's third step: the manifest, naming every file the
// steps before wrote with its SHA-256, written and returned as the exact
// bytes the signatures cover.
func (w *writer) manifest(in Input) ([]byte, error) {
	ev, st := in.Evidence, in.Status
	stmt := Statement{Type: StatementType, PredicateType: PredicateType, Predicate: Predicate{
		Scenario: ev.Scenario, Arm: ev.Arm, Token: ev.Token, MatchedDigest: ev.MatchedDigest, Workload: ev.Workload,
		Prompts: promptsOf(in.Scenario), Accepted: ev.Accepted, Started: st.Started, Ended: st.Ended}}
	slices.Sort(w.files)
	for _, rel := range w.files {
		sum, err := filehash.SHA256(filepath.Join(w.dir, rel))
		if err != nil {
			return nil, err
		}
		stmt.Subject = append(stmt.Subject, Subject{Name: filepath.ToSlash(rel), Digest: map[string]string{DigestAlgorithm: sum}})
	}
	manifest, err := encodeStatement(stmt)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(w.dir, ManifestFile), manifest, 0o644); err != nil {
		return nil, err
	}
	return manifest, nil
}

// sign is Write's last step: with a signer, the SSH signature over the
// manifest's exact bytes and the DSSE envelope carrying them; without
// one, nothing (the bundle is unsigned).
func (w *writer) sign(signer ssh.Signer, manifest []byte) error {
	if signer == nil {
		return nil
	}
	sig, err := sshsig.Sign(signer, Namespace, manifest)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(w.dir, SignatureFile), sig, 0o644); err != nil {
		return err
	}
	env, err := dsse.Sign(signer, dsse.InTotoPayloadType, manifest)
	if err != nil {
		return err
	}
	data, _ := json.MarshalIndent(env, "", "  ")
	return os.WriteFile(filepath.Join(w.dir, DSSEFile), append(data, '\n'), 0o644)
}
