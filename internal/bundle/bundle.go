package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/guarded"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

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
	// PodWait bounds the wait for the launcher's pod facts of a run under
	// Kubernetes (0: DefaultPodWait).
	PodWait time.Duration
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
	files []string // what the manifest lists, relative to dir
}

// write runs the steps of Write, in order: copy the run's files,
// provenance (with the pod's facts under Kubernetes), manifest (which lists every file the steps before wrote)
// and sign (its exact bytes).
func (w *writer) write(in Input) error {
	regs, err := w.copy(in)
	if err != nil {
		return err
	}
	prov := w.provenance(in, regs)
	if err = w.pod(in, regs, &prov); err != nil {
		return err
	}
	if err := w.putJSON(ProvenanceFile, prov); err != nil {
		return err
	}
	manifest, err := w.manifest(in)
	if err != nil {
		return err
	}
	return w.sign(in.Signer, manifest)
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

// copy is Write's first step: it puts the evidence, the scenario, the
// run's status, the scoped logs with scopes.json, the inputs the evidence
// read and the registrations (redacted) in the bundle, and returns the
// registrations as bundled.
func (w *writer) copy(in Input) ([]rundir.Registration, error) {
	if err := w.putJSON(EvidenceFile, in.Evidence); err != nil {
		return nil, err
	}
	if err := w.put(ScenarioFile, in.ScenarioBytes); err != nil {
		return nil, err
	}
	if err := w.copyFile(StatusFile); err != nil {
		return nil, err
	}
	if err := w.copyLogs(in); err != nil {
		return nil, err
	}
	for _, rel := range in.Evidence.Inputs {
		if err := w.copyFile(rel); err != nil {
			return nil, err
		}
	}
	return w.copyRegistrations()
}

// copyLogs puts the scoped log bytes in the bundle, verbatim, under the
// names the run directory uses (the hooks' output whole), and
// scopes.json, which says where each came from.
func (w *writer) copyLogs(in Input) error {
	scopes := map[string]ScopeRecord{}
	for _, f := range in.Evidence.Ranks {
		if err := w.scope(f.Scope, scopes); err != nil {
			return err
		}
	}
	for _, rs := range in.Status.Ranks { // logs that could not be read have no facts
		if _, done := scopes[rs.Log]; !done && hasRules(in.Scenario, rs.Role) {
			if err := w.scope(evidence.Scope{File: rs.Log, Offset: rs.Offset, Inode: rs.Inode}, scopes); err != nil {
				return err
			}
		}
	}
	for _, h := range in.Status.Hooks { // every hook's output, whole, read by rules or not
		if err := w.scope(evidence.Scope{File: h.Log}, scopes); err != nil {
			return err
		}
	}
	return w.putJSON(ScopesFile, Scopes{Schema: ScopesSchema, Scopes: scopes})
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

// copyRegistrations puts every rank's registration in the bundle,
// redacted, and returns them: one that does not read refuses the bundle.
func (w *writer) copyRegistrations() ([]rundir.Registration, error) {
	var regs []rundir.Registration
	for _, rel := range w.list(filepath.Join(rundir.CoordDir, rundir.RanksDir)) {
		var reg rundir.Registration
		data, err := w.read(rel)
		if err != nil {
			return nil, fmt.Errorf("registration: %w", err)
		}
		if json.Unmarshal(data, &reg) != nil {
			return nil, fmt.Errorf("registration %s: unreadable", filepath.Join(w.run, rel))
		}
		redactRegistration(&reg)
		if err := w.putJSON(rel, reg); err != nil {
			return nil, err
		}
		regs = append(regs, reg)
	}
	return regs, nil
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
