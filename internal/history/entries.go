package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/machine"
)

// ErrCensored is returned for a comparison the gate censored: the store
// holds accepted evidence only.
var ErrCensored = errors.New("the comparison is censored; nothing was added")

// FromComparison makes the entries of an accepted comparison: one per run
// (its value of the comparison's metric, machine and source) and one per
// treatment (its delta against the baseline). signed says the runs'
// signatures were checked against allowed signers.
func FromComparison(r *compare.Result, runs []compare.Run, signed bool, added time.Time) ([]Entry, error) {
	if r.Verdict == compare.Censored {
		var why []string
		for _, rs := range r.Reasons {
			why = append(why, rs.String())
		}
		return nil, fmt.Errorf("%w: %s", ErrCensored, strings.Join(why, "; "))
	}
	byPath := map[string]compare.Run{}
	for _, run := range runs {
		byPath[run.Path] = run
	}
	base := Entry{Added: added.UTC(), Scenario: r.Scenario, MatchedDigest: r.MatchedDigest, Metric: r.Metric, HigherBetter: r.HigherIsBetter, Signed: signed}
	var out []Entry
	builds := map[string]string{}
	for _, b := range r.Builds {
		builds[b.Arm] = "sha256:" + b.SHA256[:12]
		if b.Source != "" {
			builds[b.Arm] += " from " + b.Source
		}
	}
	tokens := map[string][]string{}
	latest := map[string]time.Time{}
	facts := map[string][2]string{} // arm: machine, source of its last run
	for _, s := range r.Runs {
		if s.Value == nil || !s.Accepted {
			return nil, fmt.Errorf("run %s has no accepted value of %s: %w", s.Path, r.Metric, ErrCensored)
		}
		e := base
		e.Kind, e.Key, e.Arm, e.Time, e.Value = KindRun, s.Token, s.Arm, s.Started.UTC(), s.Value
		e.Machine, e.Source = runFacts(byPath[s.Path].Provenance())
		e.Build = builds[s.Arm]
		if c := byPath[s.Path].Campaign; c != nil {
			e.PlanDigest, e.RunIndex = c.PlanDigest, c.Index
		}
		out = append(out, e)
		tokens[s.Arm] = append(tokens[s.Arm], s.Token)
		if s.Started.After(latest[s.Arm]) {
			latest[s.Arm] = s.Started
		}
		facts[s.Arm] = [2]string{e.Machine, e.Source}
	}
	for _, d := range r.Deltas {
		if d.Pct == nil {
			continue
		}
		e := base
		e.Kind, e.Arm, e.Baseline = KindComparison, d.Arm, r.Baseline
		e.DeltaPct, e.Interval, e.P, e.Verdict, e.N, e.Method = d.Pct, d.Interval, d.P, d.Verdict, d.N, d.Method
		e.Time = latest[d.Arm]
		if latest[r.Baseline].After(e.Time) {
			e.Time = latest[r.Baseline]
		}
		e.Time = e.Time.UTC()
		e.Machine, e.Source, e.Build = facts[d.Arm][0], facts[d.Arm][1], builds[d.Arm]
		both := append(slices.Sorted(slices.Values(tokens[r.Baseline])), slices.Sorted(slices.Values(tokens[d.Arm]))...)
		sum := sha256.Sum256([]byte(r.Baseline + "\x00" + d.Arm + "\x00" + strings.Join(both, "\x00")))
		e.Key = hex.EncodeToString(sum[:16])
		out = append(out, e)
	}
	return out, nil
}

// runFacts are a run's hardware class and source commit, from its
// provenance (empty when it recorded none).
func runFacts(prov *bundle.Provenance) (class, source string) {
	if prov == nil {
		return "", ""
	}
	if len(prov.Machines) > 0 {
		class = machine.Class(prov.Machines)
	}
	if prov.Source != nil {
		source = prov.Source.Head
		if prov.Source.Dirty {
			source += "+dirty"
		}
	}
	return class, source
}
