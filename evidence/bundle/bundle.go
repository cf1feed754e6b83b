// Package bundle turns an arm run into signed evidence a reviewer can check
// without trusting whoever ran it: a directory (optionally a .tar.gz)
// holding evidence.json, the scenario as run, the scoped log bytes the
// evidence was derived from (verbatim, with their source and offset), the
// raw records, the registrations, provenance.json, an in-toto Statement v1
// manifest of every other file's SHA-256, and an SSH signature over the
// manifest's exact bytes (ssh-keygen -Y sign format, namespace
// abbench-evidence).
//
// A bundle is written to a temporary directory and renamed into place only
// when complete, so no crash leaves half a bundle that verifies.
package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/digest"
	"github.com/abbench/abbench/dsse"
	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/internal/guarded"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/machine"
	"github.com/abbench/abbench/rundir"
	"github.com/abbench/abbench/scenarios"
	"github.com/abbench/abbench/sshsig"
)

// The names and types of a bundle.
const (
	Namespace     = "abbench-evidence"
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType is the versioned predicate spec (docs/bundles.md):
	// lowerCamelCase fields, as the in-toto guidelines ask.
	PredicateType = "https://github.com/abbench/abbench/blob/main/docs/bundles.md#predicate-v2"
	// PredicateTypeV1 is the first predicate (snake_case fields): bundles
	// made with it still verify.
	PredicateTypeV1 = "https://github.com/abbench/abbench/evidence/v1"
	ManifestFile    = "manifest.json"
	SignatureFile   = "manifest.json.sig"
	// DSSEFile is the same statement in a DSSE envelope, signed by the
	// same key, for in-toto, cosign and SLSA verifiers.
	DSSEFile     = "manifest.dsse.json"
	ScenarioFile = "scenario.yaml"
	ScopesFile   = "scopes.json"
	Provenance   = "provenance.json"
	EvidenceFile = rundir.EvidenceFile
	StatusFile   = rundir.StatusFile
)

// Statement is the manifest: an in-toto Statement v1.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject is one file of the bundle and its digest.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Predicate summarises the evidence.
type Predicate struct {
	Scenario      string         `json:"scenario"`
	Arm           string         `json:"arm"`
	Token         string         `json:"token"`
	MatchedDigest string         `json:"matchedDigest"`
	Workload      *digest.Digest `json:"workloadDigest"`
	Prompts       *digest.Digest `json:"promptsDigest"` // nil: a workload without prompts
	Accepted      bool           `json:"accepted"`
	Started       time.Time      `json:"started"`
	Ended         time.Time      `json:"ended"`
}

// predicateV1 is the first predicate's spelling.
type predicateV1 struct {
	Scenario      string         `json:"scenario"`
	Arm           string         `json:"arm"`
	Token         string         `json:"token"`
	MatchedDigest string         `json:"matched_digest"`
	Workload      *digest.Digest `json:"workload_digest"`
	Prompts       *digest.Digest `json:"prompts_digest"`
	Accepted      bool           `json:"accepted"`
	Started       time.Time      `json:"started"`
	Ended         time.Time      `json:"ended"`
}

// ParseStatement reads a manifest of either predicate version.
func ParseStatement(manifest []byte) (Statement, error) {
	var st Statement
	if err := json.Unmarshal(manifest, &st); err != nil {
		return st, err
	}
	if st.PredicateType == PredicateTypeV1 {
		var old struct {
			Predicate predicateV1 `json:"predicate"`
		}
		if err := json.Unmarshal(manifest, &old); err != nil {
			return st, err
		}
		st.Predicate = Predicate(old.Predicate)
	}
	return st, nil
}

// ScopeRecord says where a bundled log's bytes came from.
type ScopeRecord struct {
	Source     string `json:"source"`
	Offset     int64  `json:"offset"`
	Inode      uint64 `json:"inode,omitempty"`
	Bytes      int64  `json:"bytes"`
	SHA256     string `json:"sha256"`
	Unreadable string `json:"unreadable,omitempty"`
}

// Prov is provenance.json.
type Prov struct {
	Tool         string              `json:"tool"`
	Source       *SourceRevision     `json:"source,omitempty"`
	Image        string              `json:"image,omitempty"`
	Hosts        []string            `json:"hosts"`
	Allocations  []string            `json:"allocations"`
	Token        string              `json:"token"`
	RestartCount string              `json:"restart_count,omitempty"`
	Started      time.Time           `json:"started"`
	Ended        time.Time           `json:"ended"`
	Prompts      *digest.Digest      `json:"prompts_digest"` // nil: a workload without prompts
	Environment  map[string][]string `json:"environment"`    // per rank, secrets redacted
	// Campaign is the campaign plan this run belongs to, when abbench run
	// started it: signed with the rest, so runs cannot be dropped from or
	// added to a campaign unnoticed.
	Campaign *rundir.CampaignRef `json:"campaign,omitempty"`
	// Machines are the facts of the hosts the run ran on (package
	// machine): compare censors runs of different hardware classes.
	Machines []machine.Facts `json:"machines,omitempty"`
}

// SourceRevision is the system under test's repository state.
type SourceRevision struct {
	Repository string `json:"repository"`
	Head       string `json:"head"`
	Tree       string `json:"tree"`
	Dirty      bool   `json:"dirty"`
}

// Input is what Write needs.
type Input struct {
	RunDir        string // the attempt directory
	Scenario      *scenarios.Scenario
	ScenarioBytes []byte
	Evidence      *evidence.Evidence
	Status        *rundir.Status
	// Machine is the controller host's facts as the controller collected
	// them, handed over in memory (arms.Result); nil records none.
	Machine  *machine.Facts
	Campaign *rundir.CampaignRef // the campaign the run belongs to; nil outside one
	Tool     string              // abbench version
	Signer   ssh.Signer          // nil writes an unsigned bundle
}

// Write writes the bundle of a run to dest, which must not exist.
func Write(in Input, dest string) error {
	if _, err := os.Lstat(dest); err == nil {
		return fmt.Errorf("bundle %s already exists", dest)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-")
	if err != nil {
		return err
	}
	// Gone once renamed; after a failure, what a failed removal leaves is
	// a hidden temporary directory beside dest, which nothing reads.
	defer func() { _ = os.RemoveAll(tmp) }()
	root, err := os.OpenRoot(in.RunDir)
	if err != nil {
		return err
	}
	defer func() { _ = root.Close() }() // read only
	w := &writer{dir: tmp, run: in.RunDir, root: root}
	if err := w.write(in); err != nil {
		return err
	}
	if err := os.Rename(tmp, dest); err != nil {
		return fmt.Errorf("placing bundle %s: %w", dest, err)
	}
	return nil
}

type writer struct {
	dir, run string
	// root is the run directory: every input is read through it, never
	// through a link, as evidence read it (package guarded). A process a
	// rank left behind may still write there.
	root  *os.Root
	files []string
}

// read reads a file of the run directory (rel relative to it).
func (w *writer) read(rel string) ([]byte, error) {
	data, err := guarded.ReadFile(w.root, rel)
	if err != nil {
		return nil, fmt.Errorf("bundle: %s of run %s: %w", rel, w.run, err)
	}
	return data, nil
}

// list names the .json files of a directory of the run, sorted (none when
// it is not there).
func (w *writer) list(dir string) []string {
	d, err := w.root.Open(dir)
	if err != nil {
		return nil
	}
	defer readonly.Close(d)
	names, _ := d.Readdirnames(-1)
	var rels []string
	for _, n := range names {
		if strings.HasSuffix(n, ".json") {
			rels = append(rels, filepath.Join(dir, n))
		}
	}
	slices.Sort(rels)
	return rels
}

func (w *writer) put(rel string, data []byte) error {
	path := filepath.Join(w.dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	w.files = append(w.files, rel)
	return nil
}

func (w *writer) putJSON(rel string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return w.put(rel, append(data, '\n'))
}

// copyFile copies a file of the run directory into the bundle under the same name.
func (w *writer) copyFile(rel string) error {
	if !filepath.IsLocal(rel) {
		return fmt.Errorf("bundle: %q is not inside the run directory", rel)
	}
	data, err := w.read(rel)
	if err != nil {
		return err
	}
	return w.put(rel, data)
}

func (w *writer) write(in Input) error {
	ev, st := in.Evidence, in.Status
	if err := w.putJSON(EvidenceFile, ev); err != nil {
		return err
	}
	if err := w.put(ScenarioFile, in.ScenarioBytes); err != nil {
		return err
	}
	statusData, err := w.read(StatusFile)
	if err != nil {
		return err
	}
	if err := w.put(StatusFile, statusData); err != nil {
		return err
	}
	// The scoped log bytes, verbatim, under the names the run directory uses.
	scopes := map[string]ScopeRecord{}
	for _, f := range ev.Ranks {
		if err := w.scope(f.Scope, scopes); err != nil {
			return err
		}
	}
	for _, rs := range st.Ranks { // logs that could not be read have no facts
		if _, done := scopes[rs.Log]; !done && hasRules(in.Scenario, rs.Role) {
			if err := w.scope(evidence.Scope{File: rs.Log, Offset: rs.Offset, Inode: rs.Inode}, scopes); err != nil {
				return err
			}
		}
	}
	if err := w.putJSON(ScopesFile, scopes); err != nil {
		return err
	}
	for _, rel := range ev.Inputs {
		if err := w.copyFile(rel); err != nil {
			return err
		}
	}
	prov := Prov{Tool: in.Tool, Token: st.Token, Started: st.Started, Ended: st.Ended, Prompts: promptsOf(in.Scenario),
		Hosts: []string{}, Allocations: []string{}, Environment: map[string][]string{}}
	// The controller's host as the controller saw it, handed over in
	// memory (coord/machine.json, which any rank can write, only names
	// it); then the other nodes of the allocation, as their first rank
	// reported them: recorded as reports, and never displacing the
	// controller's.
	if in.Machine != nil {
		f := in.Machine.Redacted()
		f.ReportedBy = machine.ByController
		prov.Machines = []machine.Facts{f}
	}
	for _, rel := range w.list(filepath.Join(rundir.CoordDir, rundir.MachinesDir)) {
		var f machine.Facts
		if data, err := w.read(rel); err == nil && json.Unmarshal(data, &f) == nil {
			prov.Machines = machine.Merge(prov.Machines, f.FromRank().Redacted())
		}
	}
	// Registrations, redacted.
	for _, rel := range w.list(filepath.Join(rundir.CoordDir, rundir.RanksDir)) {
		var reg rundir.Registration
		data, err := w.read(rel)
		if err != nil {
			return fmt.Errorf("registration: %w", err)
		}
		if json.Unmarshal(data, &reg) != nil {
			return fmt.Errorf("registration %s: unreadable", filepath.Join(w.run, rel))
		}
		redactRegistration(&reg)
		if err := w.putJSON(rel, reg); err != nil {
			return err
		}
		if !slices.Contains(prov.Hosts, reg.Host) {
			prov.Hosts = append(prov.Hosts, reg.Host)
		}
		if id := reg.Scheduler["SLURM_JOB_ID"]; id != "" && !slices.Contains(prov.Allocations, id) {
			prov.Allocations = append(prov.Allocations, id)
		}
		if rc := reg.Scheduler["SLURM_RESTART_COUNT"]; rc != "" {
			prov.RestartCount = rc
		}
	}
	for _, rel := range w.list(filepath.Join(rundir.CoordDir, rundir.EnvDir)) {
		var env []string
		data, _ := w.read(rel)
		if json.Unmarshal(data, &env) == nil {
			prov.Environment[strings.TrimSuffix(filepath.Base(rel), ".json")] = redact.Env(env)
		}
	}
	slices.Sort(prov.Hosts)
	prov.Source = sourceRevision(in.Scenario)
	prov.Image = redact.URL(in.Scenario.Source.Image)
	prov.Campaign = in.Campaign
	if err := w.putJSON(Provenance, prov); err != nil {
		return err
	}
	// The manifest names every other file; the signature covers its bytes.
	stmt := Statement{Type: StatementType, PredicateType: PredicateType, Predicate: Predicate{
		Scenario: ev.Scenario, Arm: ev.Arm, Token: ev.Token, MatchedDigest: ev.MatchedDigest, Workload: ev.Workload,
		Prompts: promptsOf(in.Scenario), Accepted: ev.Accepted, Started: st.Started, Ended: st.Ended}}
	slices.Sort(w.files)
	for _, rel := range w.files {
		sum, err := filehash.SHA256(filepath.Join(w.dir, rel))
		if err != nil {
			return err
		}
		stmt.Subject = append(stmt.Subject, Subject{Name: filepath.ToSlash(rel), Digest: map[string]string{"sha256": sum}})
	}
	manifest, err := json.MarshalIndent(stmt, "", "  ")
	if err != nil {
		return err
	}
	manifest = append(manifest, '\n')
	if err := os.WriteFile(filepath.Join(w.dir, ManifestFile), manifest, 0o644); err != nil {
		return err
	}
	if in.Signer != nil {
		sig, err := sshsig.Sign(in.Signer, Namespace, manifest)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(w.dir, SignatureFile), sig, 0o644); err != nil {
			return err
		}
		env, err := dsse.Sign(in.Signer, dsse.InTotoPayloadType, manifest)
		if err != nil {
			return err
		}
		data, _ := json.MarshalIndent(env, "", "  ")
		if err := os.WriteFile(filepath.Join(w.dir, DSSEFile), append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func hasRules(s *scenarios.Scenario, role string) bool {
	return len(s.RulesFor(role)) > 0
}

// scope copies one log's scoped bytes, or records why they could not be read.
func (w *writer) scope(sc evidence.Scope, scopes map[string]ScopeRecord) error {
	if _, done := scopes[sc.File]; done {
		return nil
	}
	if !filepath.IsLocal(sc.File) {
		return fmt.Errorf("bundle: log %q is not inside the run directory", sc.File)
	}
	rec := ScopeRecord{Source: filepath.Join(w.run, sc.File), Offset: sc.Offset, Inode: sc.Inode}
	path := filepath.Join(w.dir, sc.File)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	h := sha256.New()
	read := evidence.Scope{File: sc.File, Offset: sc.Offset, Inode: sc.Inode}.In(w.root)
	n, rerr := read.ReadBlocks(func([]byte, int64) {}, io.MultiWriter(f, h))
	if cerr := f.Close(); cerr != nil {
		return cerr
	}
	var se *evidence.StaleError
	switch {
	case errors.As(rerr, &se):
		rec.Unreadable = se.Why
		if err := os.Remove(path); err != nil { // an unlisted file would fail the bundle's check
			return err
		}
	case rerr != nil:
		return rerr
	default:
		rec.Bytes, rec.SHA256 = n, hex.EncodeToString(h.Sum(nil))
		w.files = append(w.files, sc.File)
	}
	scopes[sc.File] = rec
	return nil
}

// redactRegistration redacts what a rank recorded: arm values by name and
// URL, scheduler values by name and URL, the command, host and user by
// URL (the wrapper redacted the command when it recorded it; a rank could
// have rewritten it since).
func redactRegistration(reg *rundir.Registration) {
	for k, v := range reg.ArmEnv {
		if v != nil {
			r := redact.Value(k, *v)
			reg.ArmEnv[k] = &r
		}
	}
	for k, v := range reg.Scheduler {
		reg.Scheduler[k] = redact.Value(k, v)
	}
	for i, a := range reg.Command {
		reg.Command[i] = redact.URL(a)
	}
	reg.Host, reg.User = redact.URL(reg.Host), redact.URL(reg.User)
}

// sourceRevision reads the repository the scenario names, if any.
func sourceRevision(s *scenarios.Scenario) *SourceRevision {
	repo := s.Source.Repository
	if repo == "" {
		return nil
	}
	repo = s.Path(repo)
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	return &SourceRevision{Repository: redact.URL(repo), Head: git("rev-parse", "HEAD"), Tree: git("rev-parse", "HEAD^{tree}"), Dirty: git("status", "--porcelain") != ""}
}

// promptsOf is the scenario's prompts digest, nil when its workload has no
// prompts file (there is nothing to digest).
func promptsOf(s *scenarios.Scenario) *digest.Digest {
	if s.Workload.Prompts == "" {
		return nil
	}
	d := s.PromptsDigest
	return &d
}
