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
)

// LoadRuns reads the runs at paths. A path is a run directory holding
// evidence.json (an attempt, or a bundle), an abbench arm --out directory
// (its LATEST attempt), or an abbench run --out directory (every run in
// runs/). A path that holds none of these is an error naming it.
func LoadRuns(paths []string) ([]Run, error) {
	var runs []Run
	for _, p := range paths {
		rs, err := loadPath(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	return runs, nil
}

func loadPath(p string) ([]Run, error) {
	if _, err := os.Stat(filepath.Join(p, "evidence.json")); err == nil {
		r, err := loadRun(p, p)
		return []Run{r}, err
	}
	if token, err := os.ReadFile(filepath.Join(p, "LATEST")); err == nil {
		dir := filepath.Join(p, strings.TrimSpace(string(token)))
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
