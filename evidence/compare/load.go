package compare

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/evidence/bundle"
	"github.com/abbench/abbench/rundir"
)

// LoadRuns reads the runs at paths, each resolved by rundir.Resolve (a
// bundle directory or archive, an attempt directory, an abbench arm --out
// directory, an abbench run --out directory); an attempt with a bundle is
// read through its bundle. A path that holds none of these is an error
// naming it. cleanup removes unpacked archives and is never nil.
func LoadRuns(paths []string) (runs []Run, cleanup func(), err error) {
	var cleanups []func()
	cleanup = func() {
		for _, c := range cleanups {
			c()
		}
	}
	for _, p := range paths {
		found, c, err := rundir.Resolve(p, bundle.Unpack)
		cleanups = append(cleanups, c)
		if err != nil {
			return nil, cleanup, err
		}
		for _, f := range found {
			r, err := loadRun(f)
			if err != nil {
				return nil, cleanup, err
			}
			runs = append(runs, r)
		}
	}
	return runs, cleanup, nil
}

// IsBundle reports whether the run was read from a bundle.
func (r Run) IsBundle() bool { return bundle.IsBundle(r.Dir) }

func loadRun(f rundir.Found) (Run, error) {
	dir := f.EvidenceDir()
	path := filepath.Join(dir, rundir.EvidenceFile)
	if _, err := os.Stat(path); err != nil {
		return Run{}, fmt.Errorf("%s: its attempt %s has no %s (did the run finish?)", f.Source, filepath.Base(f.Dir), rundir.EvidenceFile)
	}
	var e evidence.Evidence
	if err := rundir.ReadJSON(path, &e); err != nil {
		return Run{}, err
	}
	if e.Schema != evidence.Schema {
		return Run{}, fmt.Errorf("%s: schema %q is not %s", path, e.Schema, evidence.Schema)
	}
	return Run{Path: f.Source, Dir: dir, Evidence: &e}, nil
}
