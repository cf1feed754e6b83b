package compare

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/abbench/abbench/evidence"
	"github.com/abbench/abbench/evidence/bundle"
)

// LoadRuns reads the runs at paths. A path is a bundle (a directory or a
// .tar.gz), a run directory holding evidence.json, an abbench arm --out
// directory (its LATEST attempt, through its bundle when it has one), or
// an abbench run --out directory (every run in runs/). A path that holds
// none of these is an error naming it. cleanup removes unpacked archives.
func LoadRuns(paths []string) (runs []Run, cleanup func(), err error) {
	var tmps []string
	cleanup = func() {
		for _, d := range tmps {
			os.RemoveAll(d)
		}
	}
	for _, p := range paths {
		if strings.HasSuffix(p, ".tar.gz") || strings.HasSuffix(p, ".tgz") {
			tmp, err := os.MkdirTemp("", "abbench-compare-")
			if err != nil {
				return nil, cleanup, err
			}
			tmps = append(tmps, tmp)
			dir := filepath.Join(tmp, "bundle")
			if err := bundle.Unpack(p, dir); err != nil {
				return nil, cleanup, err
			}
			r, err := loadRun(p, dir)
			if err != nil {
				return nil, cleanup, err
			}
			runs = append(runs, r)
			continue
		}
		rs, err := loadPath(p)
		if err != nil {
			return nil, cleanup, err
		}
		runs = append(runs, rs...)
	}
	return runs, cleanup, nil
}

// IsBundle reports whether the run was read from a bundle.
func (r Run) IsBundle() bool {
	_, err := os.Stat(filepath.Join(r.Dir, bundle.ManifestFile))
	return err == nil
}

func loadPath(p string) ([]Run, error) {
	if _, err := os.Stat(filepath.Join(p, "evidence.json")); err == nil {
		r, err := loadRun(p, p)
		return []Run{r}, err
	}
	if token, err := os.ReadFile(filepath.Join(p, "LATEST")); err == nil {
		dir := filepath.Join(p, strings.TrimSpace(string(token)))
		if _, err := os.Stat(filepath.Join(dir, "bundle", "evidence.json")); err == nil {
			dir = filepath.Join(dir, "bundle")
		}
		if _, err := os.Stat(filepath.Join(dir, "evidence.json")); err != nil {
			return nil, fmt.Errorf("%s: its latest attempt %s has no evidence.json (did the run finish?)", p, filepath.Base(dir))
		}
		r, err := loadRun(p, dir)
		return []Run{r}, err
	}
	if _, err := os.Stat(filepath.Join(p, "plan.json")); err == nil {
		entries, err := os.ReadDir(filepath.Join(p, "runs"))
		if err != nil {
			return nil, err
		}
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		sort.Slice(names, func(i, j int) bool { return runIndex(names[i]) < runIndex(names[j]) })
		var runs []Run
		for _, n := range names {
			rs, err := loadPath(filepath.Join(p, "runs", n))
			if err != nil {
				return nil, err
			}
			runs = append(runs, rs...)
		}
		return runs, nil
	}
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist", p)
	}
	return nil, fmt.Errorf("%s holds no evidence.json, LATEST or plan.json: give an arm run's directory, a bundle, or an abbench run output", p)
}

func runIndex(name string) int {
	var n int
	fmt.Sscanf(name, "%d-", &n)
	return n
}

func loadRun(path, dir string) (Run, error) {
	data, err := os.ReadFile(filepath.Join(dir, "evidence.json"))
	if err != nil {
		return Run{}, err
	}
	var e evidence.Evidence
	if err := json.Unmarshal(data, &e); err != nil {
		return Run{}, fmt.Errorf("%s: %w", filepath.Join(dir, "evidence.json"), err)
	}
	if e.Schema != evidence.Schema {
		return Run{}, fmt.Errorf("%s: schema %q is not %s", filepath.Join(dir, "evidence.json"), e.Schema, evidence.Schema)
	}
	return Run{Path: path, Dir: dir, Evidence: &e}, nil
}
