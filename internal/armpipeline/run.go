package armpipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/crypto/ssh"

	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/evidence"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// Options configure one arm run's pipeline.
type Options struct {
	Out      string     // the arm's output directory; the attempt goes to Out/TOKEN
	Ranks    string     // arms.RanksLocal or arms.RanksSrun
	Signer   ssh.Signer // signs the bundle; nil writes it unsigned
	Archive  bool       // also pack the bundle as bundle.tar.gz
	Tool     string     // "abbench VERSION", recorded in provenance
	Progress func(arms.Event)
	// Campaign, when the run is one of a campaign, is its reference to
	// the campaign's plan (PlannedArm reads it), recorded in the signed
	// provenance.
	Campaign *rundir.CampaignRef
}

// Run is the arm pipeline: run arm of s in this allocation, collect its
// evidence into evidence.json, and write its bundle. The status and
// evidence are returned whenever the run itself took place, also with an
// error from writing the bundle.
func Run(ctx context.Context, s *scenarios.Scenario, arm string, opts Options) (*rundir.Status, *evidence.Evidence, error) {
	res, err := arms.Run(ctx, s, arm, arms.Options{Out: opts.Out, Ranks: opts.Ranks, Progress: opts.Progress})
	if err != nil {
		return nil, nil, err
	}
	st := res.Status
	ev, err := evidence.Collect(s, arm, st.Dir)
	if err != nil {
		return st, nil, err
	}
	if err := WriteEvidence(st.Dir, ev); err != nil {
		return st, ev, err
	}
	if err := writeBundle(s, res, ev, opts); err != nil {
		// A run counts only with its complete bundle: say so in the
		// evidence too, so nothing that reads it takes the run as accepted.
		ev.Accepted = false
		ev.Reasons = append(ev.Reasons, reason.Reason{Code: reason.BundleInvalid, Arm: arm, Detail: fmt.Sprintf("the bundle could not be written: %v", err)})
		if werr := WriteEvidence(st.Dir, ev); werr != nil {
			err = errors.Join(err, werr)
		}
		return st, ev, fmt.Errorf("writing the bundle: %w", err)
	}
	return st, ev, nil
}

// PlannedArm reads the plan of the campaign a run belongs to and returns
// the run's reference to it (Options.Campaign) and the arm the plan gives
// it.
func PlannedArm(planFile string, index int) (*rundir.CampaignRef, string, error) {
	var p rundir.Plan
	if err := rundir.ReadJSON(planFile, &p); err != nil {
		return nil, "", err
	}
	for _, r := range p.Runs {
		if r.Index == index {
			ref := p.Ref(index)
			return &ref, r.Arm, nil
		}
	}
	return nil, "", fmt.Errorf("%s lists no run %d (its runs are 1 to %d)", planFile, index, len(p.Runs))
}

// WriteEvidence writes an attempt's evidence.json atomically.
func WriteEvidence(attempt string, ev *evidence.Evidence) error {
	return rundir.WriteJSON(filepath.Join(attempt, rundir.EvidenceFile), ev)
}

// writeBundle writes the run's bundle beside its evidence.
func writeBundle(s *scenarios.Scenario, res *arms.Result, ev *evidence.Evidence, opts Options) error {
	st := res.Status
	data, err := os.ReadFile(s.File)
	if err != nil {
		return err
	}
	dest := filepath.Join(st.Dir, rundir.BundleDir)
	if err := bundle.Write(bundle.Input{RunDir: st.Dir, Scenario: s, ScenarioBytes: data, Evidence: ev, Status: st, Machine: &res.Machine, Tool: opts.Tool, Signer: opts.Signer, Campaign: opts.Campaign}, dest); err != nil {
		return err
	}
	if opts.Archive {
		return bundle.Pack(dest, filepath.Join(st.Dir, rundir.BundleArchive))
	}
	return nil
}
