package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/scenarios"
	"github.com/abbench/abbench/internal/sshsig"

	"golang.org/x/sys/unix"
)

// Step names one check of verification. Verify runs them in this order
// and stops at the first that fails; UnpackVerified runs read, signature,
// envelope and statement on an archive before it extracts anything, then
// files as it extracts.
type Step string

const (
	StepRead      Step = "read"      // the manifest, its signature and envelope are read (an archive: opened)
	StepSignature Step = "signature" // the SSH signature over the manifest's exact bytes, by a trusted signer
	StepEnvelope  Step = "envelope"  // the DSSE envelope carries the same bytes, signed by the same key
	StepStatement Step = "statement" // the manifest is an abbench evidence statement naming local files
	StepFiles     Step = "files"     // exactly the manifest's files, each a regular file with its digest
	StepEvidence  Step = "evidence"  // evidence.json parses and agrees with the manifest's predicate
	StepScenario  Step = "scenario"  // the bundled scenario loads
	StepRederive  Step = "rederive"  // the evidence re-derived from the bundled logs and records is evidence.json
)

// VerifyError is a verification failure: every error Verify,
// UnpackVerified, Open and VerifyPath return is one. Its text is the
// bundle's path and the root cause.
type VerifyError struct {
	Bundle string // the bundle's path: a directory or an archive
	Step   Step   // the check that failed
	File   string // the bundle's file it is about (slash-separated); "" when it is about none
	Err    error  // what failed
}

func (e *VerifyError) Error() string { return e.Bundle + ": " + e.Err.Error() }
func (e *VerifyError) Unwrap() error { return e.Err }

// fail is the failure of step about file; the step's caller names the bundle.
func fail(step Step, file, format string, args ...any) error {
	return &VerifyError{Step: step, File: file, Err: fmt.Errorf(format, args...)}
}

// failedAt is err (a step's failure, or any other error, which is then
// step's) as a failure of the bundle at path.
func failedAt(path string, step Step, err error) *VerifyError {
	var ve *VerifyError
	if !errors.As(err, &ve) {
		ve = &VerifyError{Step: step, Err: err}
	}
	e := *ve
	if e.Bundle == "" { // an archive's failure already names it
		e.Bundle = path
	}
	return &e
}

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
	Dir    string
	Signer string // the allowed principals that accepted the signature; "" if unsigned
	// Key is the SHA-256 fingerprint of the key that made the signature
	// and the envelope (a certificate's signature key); "" if unsigned.
	Key      string
	Unsigned bool
	// DSSE says the bundle's DSSE envelope verified too (bundles made
	// before abbench wrote one have none).
	DSSE bool
	// OlderRules, when set, says the bundle's evidence was derived by
	// older evidence rules than this abbench's: its re-derivation differs
	// in wording or fields, not in judgment (see Evidence.Rules).
	OlderRules string
	Evidence   *evidence.Evidence
	Statement  Statement
	// Provenance is the bundle's provenance.json, parsed from the bytes
	// its digest was checked on, but for its Environment (nil here; read
	// it with ReadProvenance); nil when the bundle (a directory) holds
	// none or it does not parse, which no step of verification requires.
	Provenance *Provenance
}

// Verify checks a bundle directory, step by step (Step): the signature
// over the manifest's exact bytes first, and its DSSE envelope; then the
// manifest; then that every file is present with its digest and no other
// file, link or special file is there; then that the evidence re-derived
// from the bundled log bytes and records equals evidence.json. A failure
// is a *VerifyError naming the step and the file. A Verifier verifies
// many bundles so, parsing each distinct bundled scenario once.
func Verify(dir string, opts VerifyOptions) (*Verified, error) {
	return NewVerifier(opts).Verify(dir)
}

// verifyDir is Verify with the scenarios parsed so far.
func verifyDir(dir string, opts VerifyOptions, cache *scenarioCache) (*Verified, error) {
	c := newDirCheck(dir, opts, cache)
	if err := runSteps(dir, c.steps()); err != nil {
		return nil, err
	}
	return c.verified(), nil
}

// newDirCheck is the verification of the bundle directory dir, no step run.
func newDirCheck(dir string, opts VerifyOptions, cache *scenarioCache) *dirCheck {
	return &dirCheck{dir: dir, manifestCheck: manifestCheck{opts: opts, v: &Verified{Dir: dir}}, scenarios: cache, kept: map[string][]byte{}}
}

// steps are the checks of a bundle directory, in order.
func (c *dirCheck) steps() []step {
	return []step{
		{StepRead, c.read},
		{StepSignature, c.signature},
		{StepEnvelope, c.envelope},
		{StepStatement, c.statement},
		{StepFiles, c.files},
		{StepEvidence, c.evidence},
		{StepScenario, c.scenario},
		{StepRederive, c.rederive},
	}
}

// verified is what the steps established, once every one passed.
func (c *dirCheck) verified() *Verified {
	if data, ok := c.kept[ProvenanceFile]; ok {
		c.v.Provenance, _ = parseProvenanceFacts(c.path(ProvenanceFile), data)
	}
	return c.v
}

// step is one named check of a verification.
type step struct {
	name Step
	run  func() error
}

// runSteps runs steps in order and returns the first failure, as a
// failure of the bundle at path.
func runSteps(path string, steps []step) error {
	for _, s := range steps {
		if err := s.run(); err != nil {
			return failedAt(path, s.name, err)
		}
	}
	return nil
}

// dirCheck is the verification of a bundle directory; each step reads
// what the steps before it established.
type dirCheck struct {
	manifestCheck
	dir string
	// kept are the bytes of the files later steps read (keptFiles, and
	// the others that fit the budget: readonce.go), as the files step
	// read and hashed them: each file is read once, and what is parsed is
	// exactly what was hashed.
	kept map[string][]byte
	held int64 // the bytes kept
	// signatureListed says the files step listed a signature (of any
	// type): whether the bundle is signed when the signature is not checked.
	signatureListed bool
	scenarios       *scenarioCache
	ev              *evidence.Evidence
	bundled         parsedScenario // the bundled scenario, as the scenario step loaded it
}

func (c *dirCheck) path(name string) string { return filepath.Join(c.dir, name) }

// read reads the manifest, its signature and its envelope, which may be
// absent (manifestCheck's steps say whether that is allowed); when the
// signature is not checked, it only asks whether there is one.
func (c *dirCheck) read() error {
	var err error
	if c.manifest, err = readRegular(c.path(ManifestFile)); err != nil {
		return fail(StepRead, ManifestFile, "no %s: %w", ManifestFile, err)
	}
	if c.opts.SkipSignature {
		// Neither the signature nor the envelope is checked: whether there
		// is a signature is all the steps after ask (Verified.Unsigned),
		// which the files step's listing of the bundle says, with no stat
		// here. It still refuses either as a link or special file.
		return nil
	}
	c.armored, c.armoredErr = readRegular(c.path(SignatureFile))
	c.dsse, err = readRegular(c.path(DSSEFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fail(StepRead, DSSEFile, "%s: %w", DSSEFile, err)
	}
	return nil
}

// files requires exactly the manifest's subjects (plus the manifest, its
// signature and envelope), each a regular file with its digest.
func (c *dirCheck) files() error {
	want := map[string]string{}
	for _, s := range c.v.Statement.Subject {
		want[s.Name] = s.Digest[DigestAlgorithm]
	}
	seen := make(map[string]bool, len(want))
	err := c.walk(func(rel string, in fileAt) error {
		if rel == ManifestFile || rel == SignatureFile || rel == DSSEFile {
			return nil
		}
		sum, ok := want[rel]
		if !ok {
			return fail(StepFiles, rel, "%s is not in the manifest (a file was added)", rel)
		}
		got, err := c.hash(rel, in, true)
		if err == nil && got != sum {
			// The first read of a small file was taken for all of it; a
			// file system may return less before the end (FUSE, NFS): read
			// to the end before the file is called changed.
			got, err = c.hash(rel, in, false)
		}
		if err != nil {
			return fail(StepFiles, rel, "%w", err)
		}
		if got != sum {
			return fail(StepFiles, rel, "%s was changed: its SHA-256 is %s, the manifest says %s", rel, got, sum)
		}
		seen[rel] = true
		return nil
	})
	if err != nil {
		return err
	}
	if c.opts.SkipSignature {
		c.v.Unsigned = !c.signatureListed
	}
	var missing []string
	for name := range want {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return fail(StepFiles, missing[0], "%v named in the manifest are missing (removed or renamed)", missing)
	}
	return nil
}

// walk calls file with the slash-separated name of every file under the
// bundle's directory, in lexical order, after refusing a link or special
// file there, and with where to open it: by its name in its directory,
// open (a path of one name to walk, where the bundle's full path was
// walked for each file, a tenth of the kernel's time verifying a bundle).
// Each directory is listed once, and nothing else is asked of the kernel
// for it: the listing's types are what checkEntry reads, and the open of
// each file (openUnstated) and directory (openDir) checks it again.
func (c *dirCheck) walk(file func(rel string, in fileAt) error) error {
	return c.walkDir(fileAt{dir: unix.AT_FDCWD, name: c.dir, path: c.dir}, "", file)
}

// walkDir walks the bundle's directory rel, at in.
func (c *dirCheck) walkDir(in fileAt, rel string, file func(rel string, in fileAt) error) error {
	dir, err := openDir(in, rel == "")
	if err != nil {
		return err
	}
	defer readonly.Close(dir)
	entries, err := dir.ReadDir(-1)
	if err != nil {
		return err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	fd := int(dir.Fd())
	for _, d := range entries {
		name := path.Join(rel, d.Name())
		if err := checkEntry(name, d); err != nil {
			return err
		}
		c.signatureListed = c.signatureListed || name == SignatureFile
		at := fileAt{dir: fd, name: d.Name(), path: c.path(name)}
		if d.IsDir() {
			err = c.walkDir(at, name, file)
		} else {
			err = file(name, at)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkEntry refuses a link or special file of the bundle.
func checkEntry(rel string, d fs.DirEntry) error {
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		return fail(StepFiles, rel, "%s is a symbolic link: bundles hold regular files only", rel)
	case !d.IsDir() && !d.Type().IsRegular():
		return fail(StepFiles, rel, "%s is not a regular file", rel)
	}
	return nil
}

// evidence reads evidence.json, which must agree with the predicate.
func (c *dirCheck) evidence() error {
	data := c.kept[EvidenceFile] // the files step read it, or the manifest does not name it
	c.ev = &evidence.Evidence{}  // on its own: what Verified keeps holds nothing else of the check alive
	if err := json.Unmarshal(data, c.ev); err != nil {
		return fail(StepEvidence, EvidenceFile, "%s does not parse: %w", EvidenceFile, err)
	}
	c.v.Evidence = c.ev
	p := c.v.Statement.Predicate
	if c.ev.Arm != p.Arm || c.ev.Token != p.Token || c.ev.MatchedDigest != p.MatchedDigest || c.ev.Accepted != p.Accepted {
		return fail(StepEvidence, EvidenceFile, "the manifest's predicate does not match %s", EvidenceFile)
	}
	return nil
}

// scenario loads the bundled scenario with the predicate's prompts digest.
func (c *dirCheck) scenario() error {
	p, err := c.scenarios.load(c.kept[ScenarioFile], c.path(ScenarioFile), c.v.Statement.Predicate.Prompts)
	if err != nil {
		return fail(StepScenario, ScenarioFile, "the bundled scenario does not load: %w", err)
	}
	c.bundled = p
	return nil
}

// rederive derives the evidence again from the bundled bytes alone; it
// must equal evidence.json.
func (c *dirCheck) rederive() error {
	s, err := c.bundled.s.SweepCell(c.ev.Cell) // a sweep's run is derived by its cell's scenario
	if err != nil {
		return fail(StepRederive, EvidenceFile, "%s names cell %q: %w", EvidenceFile, c.ev.Cell, err)
	}
	matched := c.bundled.matched
	if s != c.bundled.s { // a cell's scenario has a matched digest of its own
		matched = ""
	}
	scopes, ok := c.kept[ScopesFile]
	if !ok { // the manifest does not name it: reading it says why there is none
		if scopes, err = os.ReadFile(c.path(ScopesFile)); err != nil {
			return fail(StepRederive, "", "re-deriving the evidence: %w", err)
		}
	}
	again, err := recollect(s, c.ev.Arm, c.dir, scopes, evidence.Options{MatchedDigest: matched, Status: c.status(), Files: c.kept, Rules: c.bundled.rules})
	if err != nil {
		return fail(StepRederive, "", "re-deriving the evidence: %w", err)
	}
	diff := firstDifference(c.ev, again)
	if diff == "" {
		return nil
	}
	made, now := c.ev.DerivedBy(), evidence.RulesVersion
	switch {
	case made > now:
		return fail(StepRederive, EvidenceFile, "%s was derived by evidence rules %d, newer than this abbench's %d: verify it with the abbench that made it, or a newer one", EvidenceFile, made, now)
	case made == now:
		return fail(StepRederive, EvidenceFile, "%s does not match the evidence re-derived from the bundled logs and records: %s", EvidenceFile, diff)
	}
	// Older rules may word, order or fill evidence otherwise, but nothing
	// a comparison reads may differ: the judgment and the numbers.
	if j := judgmentDifference(c.ev, again); j != "" {
		return fail(StepRederive, EvidenceFile, "%s (derived by evidence rules %d) is judged otherwise by this abbench's rules %d: %s", EvidenceFile, made, now, j)
	}
	c.v.OlderRules = fmt.Sprintf("derived by evidence rules %d; this abbench's rules %d derive the same judgment, differing first at %s", made, now, diff)
	return nil
}

// judgmentDifference is the first difference between two derivations of
// one run's evidence in what a comparison reads: the arm, the matched and
// workload digests, whether it was accepted, the headline and every metric
// of its record. "" when they agree. A metric newer rules read that the
// older ones did not (rules 4's latencies) is no difference: a comparison
// reads the stored evidence, which lacks it, and every metric it holds
// must be derived again equal.
func judgmentDifference(made, again *evidence.Evidence) string {
	type judgment struct {
		Arm           string             `json:"arm"`
		MatchedDigest string             `json:"matched_digest"`
		Headline      string             `json:"headline_metric"`
		Accepted      bool               `json:"accepted"`
		Workload      any                `json:"workload_digest"`
		Metrics       map[string]float64 `json:"throughput.metrics"`
		RecordValid   bool               `json:"throughput.valid"`
	}
	of := func(e *evidence.Evidence) judgment {
		j := judgment{Arm: e.Arm, MatchedDigest: e.MatchedDigest, Headline: e.HeadlineMetric, Accepted: e.Accepted, Workload: e.Workload}
		if e.Throughput != nil {
			j.Metrics, j.RecordValid = e.Throughput.Metrics, e.Throughput.Valid
		}
		return j
	}
	then, now := of(made), of(again)
	if then.Metrics != nil && now.Metrics != nil {
		kept := map[string]float64{}
		for name := range then.Metrics {
			if v, ok := now.Metrics[name]; ok {
				kept[name] = v
			}
		}
		now.Metrics = kept
	}
	return firstDifference(then, now)
}

// Recollect derives the evidence of a bundle from its bundled log bytes and
// records (its logs hold only their scopes), as verify and replay do.
func Recollect(s *scenarios.Scenario, arm, dir string) (*evidence.Evidence, error) {
	data, err := os.ReadFile(filepath.Join(dir, ScopesFile))
	if err != nil {
		return nil, err
	}
	return recollect(s, arm, dir, data, evidence.Options{})
}

// recollect is Recollect with scopes.json's bytes read, and what the
// caller has already read of the run (opts' MatchedDigest, Status and
// Files).
func recollect(s *scenarios.Scenario, arm, dir string, data []byte, opts evidence.Options) (*evidence.Evidence, error) {
	scopes, err := parseScopes(filepath.Join(dir, ScopesFile), data)
	if err != nil {
		return nil, err
	}
	unreadable := map[string]string{}
	for name, rec := range scopes {
		if rec.Unreadable != "" {
			unreadable[name] = rec.Unreadable
		}
	}
	opts.ScopedLogs, opts.Unreadable = true, unreadable
	return evidence.CollectWith(s, arm, dir, opts)
}

// IsBundle reports whether dir holds a bundle.
func IsBundle(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, ManifestFile))
	return err == nil
}

// NoBundle says err, an error of Verify, is that the directory holds no
// manifest: no bundle, rather than a bundle that fails (IsBundle, without
// asking the kernel a second time).
func NoBundle(err error) bool {
	var ve *VerifyError
	return errors.As(err, &ve) && ve.Step == StepRead && ve.File == ManifestFile && errors.Is(err, fs.ErrNotExist)
}

// renamed is e as the user named the bundle: path, where it was unpacked
// into the temporary directory dir.
func (e *VerifyError) renamed(dir, path string) *VerifyError {
	r := *e
	r.Bundle = path
	r.Err = &renamedError{err: e.Err, msg: strings.ReplaceAll(e.Err.Error(), dir, path)}
	return &r
}

// renamedError is err with a temporary directory's name replaced in its text.
type renamedError struct {
	err error
	msg string
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }
