package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckCampaign reports every way a finished campaign's tree departs from
// the contract in the package comment: plan.json and every run it lists,
// each run's LATEST attempt with its status, evidence, bundle and token
// namespace, no launch files left behind, and no name at a level abbench
// owns that the contract does not define. Nil means the tree conforms.
func CheckCampaign(dir string) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	p, err := ReadPlan(dir)
	if err != nil {
		return err
	}
	known(dir, bad, PlanFile, RunLock, CalibrationFile, RunsDir, HooksDir)
	for _, pr := range p.Runs {
		checkPlannedRun(dir, p, pr, bad)
	}
	return errors.Join(errs...)
}

// checkPlannedRun reports, through bad, every way one run of the plan p of
// the campaign dir departs from the contract.
func checkPlannedRun(dir string, p *Plan, pr PlannedRun, bad func(string, ...any)) {
	want := RunDir(dir, pr.Index, pr.Arm)
	if pr.Dir != want {
		bad("plan run %d: dir %s, want %s", pr.Index, pr.Dir, want)
	}
	if pr.Result == nil && p.Decided != "" {
		// Never needed: a sequential design decided before it.
		if _, err := os.Stat(pr.Dir); err == nil {
			bad("run %d: has a directory, but the plan says the campaign stopped before it (%s)", pr.Index, p.Decided)
		}
		return
	}
	attempt, err := LatestAttempt(pr.Dir)
	if err != nil {
		bad("run %d: %v", pr.Index, err)
		return
	}
	if tok := filepath.Base(attempt); pr.Token != "" && pr.Token != tok {
		bad("run %d: plan.json names token %s, LATEST %s", pr.Index, pr.Token, tok)
	}
	known(pr.Dir, bad, Latest, ControllerLog, JobScript, JobIDFile, "slurm-*.out", "*-*")
	checkAttempt(attempt, pr, bad)
}

// checkAttempt reports, through bad, what the finished attempt of the
// planned run pr lacks or left behind.
func checkAttempt(attempt string, pr PlannedRun, bad func(string, ...any)) {
	for _, f := range []string{StatusFile, EvidenceFile, filepath.Join(BundleDir, EvidenceFile), filepath.Join(CoordDir, OffsetsFile)} {
		if _, err := os.Stat(filepath.Join(attempt, f)); err != nil {
			bad("run %d: attempt %s has no %s", pr.Index, filepath.Base(attempt), f)
		}
	}
	for _, d := range []string{RanksDir, EnvDir} {
		if regs, _ := filepath.Glob(filepath.Join(Coord(attempt), d, "*.json")); len(regs) == 0 {
			bad("run %d: coord/%s holds no rank file", pr.Index, d)
		}
	}
	if _, err := os.Stat(LaunchDirOf(Coord(attempt))); !errors.Is(err, os.ErrNotExist) {
		bad("run %d: launch files left in %s after teardown", pr.Index, LaunchDirOf(Coord(attempt)))
	}
	if st, err := ReadStatus(attempt); err != nil {
		bad("run %d: %v", pr.Index, err)
	} else if st.Dir != attempt || st.Arm != pr.Arm {
		bad("run %d: status.json says dir %s arm %s", pr.Index, st.Dir, st.Arm)
	}
}

// known reports entries of dir that match none of the patterns.
func known(dir string, bad func(string, ...any), patterns ...string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		bad("%s: %v", dir, err)
	}
	for _, e := range entries {
		ok := false
		for _, p := range patterns {
			if m, _ := filepath.Match(p, e.Name()); m {
				ok = true
			}
		}
		if !ok && !strings.HasPrefix(e.Name(), ".") {
			bad("%s: %s is no name of the run directory contract", dir, e.Name())
		}
	}
}
