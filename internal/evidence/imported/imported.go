// Package imported makes arm runs of results people already have: each
// file a benchmark tool wrote (GuideLLM, AIPerf, vLLM bench, hyperfine,
// any format records reads) becomes a run directory whose evidence.json
// compare judges as it judges abbench's own runs, censoring exactly as for
// them: a record its format reads as failed or invalid (GuideLLM's errored
// or cancelled requests, vLLM's failed ones) is evidence not accepted.
//
// An imported run is unsigned and says so: no bundle (compare warns that
// nothing shows its evidence is what a run wrote), its scenario named
// "imported FORMAT", its token "imported-...". Nothing of how the file was
// made is known: no arm environment proven on any rank, no workload
// digest. The runs of one import share a matched digest made of the
// format, the arms and the result chosen, so runs of two imports are
// never compared as one.
package imported

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/atomicfile"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/field"
	"github.com/abbench/abbench/internal/records"
	"github.com/abbench/abbench/internal/rundir"
)

// MaxFileBytes caps one imported file: every format's record is far
// smaller (a GuideLLM file of 30 requests with every request's text is
// 270 KiB); a file past it is refused, not read into memory.
const MaxFileBytes = 256 << 20

// Arm is one arm's files, in the order given.
type Arm struct {
	Name  string
	Files []string
}

// Options say what to import and where.
type Options struct {
	Format string // a records format (records.Formats)
	// Result names the result to read in files that hold several (a
	// hyperfine export of two commands): see records.Spec.Result.
	Result string
	Arms   []Arm // the first is the baseline
	Out    string
	// Paired pairs the I-th file of every arm as one block (every arm
	// then has as many files): compare tests the paired differences, not
	// the arms' samples (Welch).
	Paired bool
}

// Run is one imported run: its directory and what its evidence says.
type Run struct {
	Dir, Arm, File string
	Accepted       bool
	Evidence       *evidence.Evidence
}

// FileError is an imported file that cannot be read at all (missing, a
// directory, past MaxFileBytes): nothing is written.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Import reads every file, then writes one run directory per file under
// Out (ARM-I, I from 1 in the order given), each holding a copy of the
// file and its evidence.json. Options that cannot be used are a
// *field.Error, a file that cannot be read a *FileError; either way
// nothing is written. Out must not exist, or be empty: nothing there is
// replaced.
func Import(o Options) ([]Run, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	data := make([][][]byte, len(o.Arms))
	for i, a := range o.Arms {
		for _, f := range a.Files {
			b, err := readCapped(f)
			if err != nil {
				return nil, &FileError{Path: f, Err: err}
			}
			data[i] = append(data[i], b)
		}
	}
	if err := emptyOut(o.Out); err != nil {
		return nil, err
	}
	matched := o.matchedDigest()
	var plan *rundir.CampaignRef
	if o.Paired {
		plan = o.campaign(matched)
	}
	var runs []Run
	for i, a := range o.Arms {
		for j, f := range a.Files {
			run, err := o.write(a.Name, j+1, f, data[i][j], matched)
			if err == nil && plan != nil {
				err = writeProvenance(run.Dir, run.Evidence.Token, plan, i, j)
			}
			if err != nil {
				return runs, err
			}
			runs = append(runs, run)
		}
	}
	return runs, nil
}

// check refuses options no import can use.
func (o Options) check() error {
	if !slices.Contains(records.Formats(), o.Format) {
		return &field.Error{Field: "Format", Value: o.Format, Problem: "is no record format (" + strings.Join(records.Formats(), ", ") + ")"}
	}
	if len(o.Arms) < 2 {
		return &field.Error{Field: "Arms", Problem: "two arms at least are compared: give each arm's name and its files"}
	}
	seen := map[string]bool{}
	for _, a := range o.Arms {
		switch {
		case !validName(a.Name):
			return &field.Error{Field: "Arms", Value: a.Name, Problem: "an arm's name is letters, digits, '.', '_' and '-'"}
		case seen[a.Name]:
			return &field.Error{Field: "Arms", Value: a.Name, Problem: "is given twice: give each arm once, with all its files"}
		case len(a.Files) == 0:
			return &field.Error{Field: "Arms", Value: a.Name, Problem: "has no file"}
		}
		seen[a.Name] = true
	}
	if o.Out == "" {
		return &field.Error{Field: "Out", Problem: "is needed: the directory the runs are written to"}
	}
	if o.Paired {
		return o.checkPaired()
	}
	return nil
}

// validName is a name a run directory can carry (ARM-I).
func validName(s string) bool {
	return s != "" && s != "." && s != ".." && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == ""
}

// readCapped reads a regular file of at most MaxFileBytes.
func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("is not a regular file (%s)", fi.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err == nil && len(data) > MaxFileBytes {
		err = fmt.Errorf("is over %d MiB: no record of a benchmark tool is that large", MaxFileBytes>>20)
	}
	return data, err
}

// emptyOut makes out, or accepts it empty: an import never mixes with
// what a directory already holds.
func emptyOut(out string) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(out, 0o755)
	case err != nil:
		return err
	case len(entries) > 0:
		return &field.Error{Field: "Out", Value: out, Problem: "is not empty: import into a new directory (nothing there is replaced)"}
	}
	return nil
}

// matchedDigest is what the runs of this import share, and no other
// import's: the format, the result chosen and the arms.
func (o Options) matchedDigest() string {
	h := sha256.New()
	_, _ = fmt.Fprintf(h, "abbench-import-v1\nformat %s\nresult %s\npaired %t\n", o.Format, o.Result, o.Paired) // a hash's Write never fails
	for _, a := range o.Arms {
		_, _ = fmt.Fprintf(h, "arm %s\n", a.Name)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// write makes ARM-I under Out: the file's copy, then its evidence.json
// (last: a run directory without it is no run).
func (o Options) write(arm string, i int, path string, data []byte, matched string) (Run, error) {
	dir := filepath.Join(o.Out, fmt.Sprintf("%s-%d", arm, i))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return Run{}, err
	}
	name := filepath.Base(path)
	if name == rundir.EvidenceFile {
		name = "record-" + name // the record never takes the evidence's place
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		return Run{}, err
	}
	e := o.evidence(arm, i, name, data, matched)
	js, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return Run{}, err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, rundir.EvidenceFile), append(js, '\n'), 0o644); err != nil {
		return Run{}, err
	}
	return Run{Dir: dir, Arm: arm, File: path, Accepted: e.Accepted, Evidence: e}, nil
}
