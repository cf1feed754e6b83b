package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Found is one attempt a user's path led to.
type Found struct {
	// Source is the path as the user gave it; for a campaign, the run's directory.
	Source string
	// Dir is the attempt directory, or the bundle directory when the path
	// was a bundle (a directory or an unpacked archive).
	Dir string
	// Bundle is the attempt's bundle directory when it has one, else "";
	// for a bundle it is Dir.
	Bundle string
	// Planned is the run of a campaign's plan this attempt belongs to, nil
	// outside a campaign.
	Planned *PlannedRun
	// Problem, when set, says why this entry of a campaign holds no attempt
	// to read (a planned run whose directory is gone, a run the plan does
	// not list); Dir is then the run directory or "".
	Problem string
}

// EvidenceDir is where the attempt's evidence is best read: its bundle when
// it has one (the bytes a signature covers), else the attempt directory.
func (f Found) EvidenceDir() string {
	if f.Bundle != "" {
		return f.Bundle
	}
	return f.Dir
}

// Unpacker unpacks a bundle archive into dir, which must not exist.
type Unpacker func(archive, dir string) error

// IsArchive reports whether path names a bundle archive by its suffix.
func IsArchive(path string) bool {
	return strings.HasSuffix(path, ".tar.gz") || strings.HasSuffix(path, ".tgz")
}

// Resolve turns anything a user may pass into the attempts it holds:
//
//   - a bundle archive (.tar.gz, .tgz): unpacked with unpack into a
//     temporary directory that cleanup removes;
//   - an attempt directory or a bundle directory (holding status.json or
//     evidence.json): itself;
//   - an abbench arm --out directory (holding LATEST): its newest attempt;
//   - an abbench run --out directory (holding plan.json): the newest
//     attempt of every run under runs/, in run order.
//
// A path that holds none of these is an error naming it and what was
// expected. cleanup is never nil.
func Resolve(path string, unpack Unpacker) (found []Found, cleanup func(), err error) {
	cleanup = func() {}
	if IsArchive(path) {
		if unpack == nil {
			return nil, cleanup, fmt.Errorf("%s: archives cannot be read here", path)
		}
		tmp, err := os.MkdirTemp("", "abbench-bundle-")
		if err != nil {
			return nil, cleanup, err
		}
		// A temporary directory of the system's: one left behind is the
		// system's to clean.
		cleanup = func() { _ = os.RemoveAll(tmp) }
		dir := filepath.Join(tmp, BundleDir)
		if err := unpack(path, dir); err != nil {
			return nil, cleanup, err
		}
		return []Found{{Source: path, Dir: dir, Bundle: dir}}, cleanup, nil
	}
	found, err = resolveDir(path)
	return found, cleanup, err
}

func resolveDir(p string) ([]Found, error) {
	l, err := list(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist", p)
	}
	if err != nil && !errors.Is(err, syscall.ENOTDIR) {
		return nil, fmt.Errorf("%s cannot be listed: %w", p, err)
	}
	switch {
	case l.has(StatusFile) || l.has(EvidenceFile):
		return []Found{attempt(p, p)}, nil
	case l.has(Latest):
		dir, err := LatestAttempt(p)
		if err != nil {
			return nil, err
		}
		return []Found{attempt(p, dir)}, nil
	case l.has(PlanFile):
		return resolveCampaign(p)
	}
	return nil, fmt.Errorf("%s holds no %s, %s, %s or %s: give an arm run's directory, an attempt, a bundle, or an abbench run output", p, StatusFile, EvidenceFile, Latest, PlanFile)
}

// resolveCampaign lists the newest attempt of every run the plan lists, in
// plan order: a campaign is whole or censored, so a planned run that left
// no attempt, and a run directory the plan does not list, come back with a
// Problem instead of being skipped.
func resolveCampaign(p string) ([]Found, error) {
	plan, err := ReadPlan(p)
	if err != nil {
		return nil, err
	}
	var found []Found
	listed := map[string]bool{}
	for i := range plan.Runs {
		pr := &plan.Runs[i]
		if strings.ContainsAny(pr.Arm, `/\`) {
			// plan.json is not signed: an arm "x/../../elsewhere" would lead
			// the comparison to run directories outside the campaign.
			found = append(found, Found{Source: filepath.Join(p, PlanFile), Planned: pr,
				Problem: fmt.Sprintf("run %d of the plan names arm %q, which is no arm name: a campaign's runs lie in its %s directory", pr.Index, pr.Arm, RunsDir)})
			continue
		}
		dir := RunDir(p, pr.Index, pr.Arm)
		listed[filepath.Base(dir)] = true
		attemptDir, err := LatestAttempt(dir)
		if err != nil {
			found = append(found, Found{Source: dir, Planned: pr, Problem: fmt.Sprintf("run %d (arm %s) of the plan: %s", pr.Index, pr.Arm, noAttempt(dir, pr, err))})
			continue
		}
		f := attempt(dir, attemptDir)
		f.Planned = pr
		found = append(found, f)
	}
	entries, err := os.ReadDir(filepath.Join(p, RunsDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		// Unread, a run directory the plan does not list would pass unseen.
		return nil, fmt.Errorf("reading the campaign's run directories: %w", err)
	}
	for _, e := range entries {
		if !listed[e.Name()] {
			dir := filepath.Join(p, RunsDir, e.Name())
			found = append(found, Found{Source: dir, Problem: fmt.Sprintf("%s is not a run of the campaign's %s", dir, PlanFile)})
		}
	}
	return found, nil
}

// noAttempt says why the planned run pr in dir has no attempt to read,
// LatestAttempt having failed with err: a LATEST that is there but
// unreadable, or names no token, is said as such, not taken for a
// missing one.
func noAttempt(dir string, pr *PlannedRun, err error) string {
	if !errors.Is(err, os.ErrNotExist) {
		return fmt.Sprintf("its newest attempt cannot be found: %v", err)
	}
	if _, serr := os.Stat(dir); errors.Is(serr, os.ErrNotExist) {
		if pr.Result == nil {
			return "it never ran (the campaign stopped or was stopped before it)"
		}
		return "its directory is gone"
	}
	return "it left no attempt (" + Latest + " is missing)"
}

// attempt is the Found of an attempt directory dir reached from source.
func attempt(source, dir string) Found {
	f := Found{Source: source, Dir: dir}
	if b := filepath.Join(dir, BundleDir); exists(filepath.Join(b, EvidenceFile)) {
		f.Bundle = b
	}
	return f
}
