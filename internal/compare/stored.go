package compare

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/textout"
)

// Stored is the comparison of each arm of these runs with the same arm of a
// stored baseline: an earlier campaign of the same matched scenario (main's
// campaign, say, against a pull request's). Its runs ran in other
// allocations at another time, so the test is unpaired (Welch's t on the
// logs); it answers "did this arm change since the baseline?", beside the
// A/B verdict of these runs, which it does not change.
type Stored struct {
	Path string `json:"path"`
	// Started is when the stored baseline's first run started; AgeDays how
	// long before this comparison.
	Started time.Time `json:"started"`
	AgeDays float64   `json:"age_days"`
	// Machine is the hardware class the stored runs ran on ("" when they
	// recorded none).
	Machine string  `json:"machine"`
	Runs    int     `json:"runs"`
	Deltas  []Delta `json:"deltas"`
}

// CheckStored refuses a stored baseline that cannot stand for the arms: a
// run censored while loading (a bundle whose files or evidence do not
// verify), a run that is no bundle, a run whose evidence was not accepted,
// or a run of another matched scenario than these runs. It returns a
// refusal for each; none means the baseline may be used.
func CheckStored(current, stored []Run) []*Refusal {
	var refused []*Refusal
	matched := ""
	for _, run := range current {
		if run.Evidence != nil {
			matched = run.Evidence.MatchedDigest
			break
		}
	}
	if len(stored) == 0 {
		return []*Refusal{{Err: ErrStoredEmpty}}
	}
	refuse := func(code reason.Code, run Run, format string, args ...any) {
		refused = append(refused, &Refusal{Code: code, Run: run.Path, Err: fmt.Errorf(format, args...)})
	}
	tokens, plans := map[string]string{}, map[string]string{}
	for _, run := range current {
		if run.Evidence != nil && run.Evidence.Token != "" {
			tokens[run.Evidence.Token] = run.Path
		}
		if run.Campaign != nil && run.Campaign.PlanDigest != "" {
			plans[run.Campaign.PlanDigest] = run.Path
		}
	}
	for _, run := range stored {
		// A baseline that is these runs, or their campaign, says nothing
		// changed whatever changed: a gate on it always passes.
		switch {
		case run.Evidence != nil && tokens[run.Evidence.Token] != "":
			refuse(reason.DuplicateRun, run, "run %s is run %s of these runs (token %s): a stored baseline must be an earlier campaign, not the runs it is compared with",
				run.Path, tokens[run.Evidence.Token], run.Evidence.Token)
			continue
		case run.Campaign != nil && plans[run.Campaign.PlanDigest] != "":
			refuse(reason.DuplicateRun, run, "run %s is of the campaign of these runs (plan %s, as run %s): a stored baseline must be an earlier campaign, not the one it is compared with",
				run.Path, short(run.Campaign.PlanDigest), plans[run.Campaign.PlanDigest])
			continue
		}

		for _, rs := range run.Censor {
			refused = append(refused, &Refusal{Code: rs.Code, Run: run.Path, Err: errors.New(rs.Detail)})
		}
		if run.Evidence == nil {
			continue
		}
		if run.Evidence.MatchedDigest != matched {
			refuse(reason.ConfigMismatch, run, "run %s was made with matched digest %s, these runs with %s: a stored baseline must be the same matched scenario",
				run.Path, short(run.Evidence.MatchedDigest), short(matched))
		}
		if !run.IsBundle() {
			refuse(reason.BundleInvalid, run, "run %s is not a bundle, so nothing shows its evidence is what its run wrote", run.Path)
		}
		if !run.Evidence.Accepted {
			refuse(reason.ThroughputInvalid, run, "run %s: its evidence was not accepted", run.Path)
		}
	}
	return refused
}

// stored compares each arm with the stored baseline's same arm, once the
// gate let these runs through. A stored baseline that ran on other
// hardware censors the comparison (machine-mismatch).
func (g *gate) stored(rule decide.Rule, effect float64, effectOf string) {
	runs := g.opts.Stored
	st := &Stored{Path: g.opts.StoredPath, Runs: len(runs), Deltas: []Delta{}}
	if rs, other := st.describe(runs, hardwareOf(g.runs)); other {
		g.add(rs)
		return
	}
	decisions, arms, counts := g.storedDecisions(runs, rule)
	for i, dec := range decisions {
		pct := dec.Estimate
		d := Delta{Arm: arms[i], Pct: &pct, Interval: dec.Interval, P: dec.P, Alpha: dec.Alpha, Method: dec.Method, N: dec.N,
			Effect: effect, EffectOf: effectOf, Verdict: dec.Verdict, Why: dec.Why, Meaning: dec.Meaning, Display: "~", NowThen: &counts[i]}
		if dec.Verdict == Improved || dec.Verdict == Regressed {
			d.Display = fmt.Sprintf("%+.2f%%", pct)
		}
		st.Deltas = append(st.Deltas, d)
	}
	g.r.Stored = st
}

// describe sets when the stored runs started and the hardware they ran
// on; other is true, with its reason, when one of them ran on other
// hardware than a current run.
func (st *Stored) describe(runs []Run, current []hardware) (rs reason.Reason, other bool) {
	for _, run := range runs {
		// A stored run is a bundle that verified (CheckStored), its
		// status.json among the files its manifest holds: it reads.
		if started, _, _, _ := timing(run); !started.IsZero() && (st.Started.IsZero() || started.Before(st.Started)) {
			st.Started = started
		}
		if len(run.Machines) == 0 {
			continue
		}
		// Every stored run, not its first only: a baseline whose later
		// runs moved to other hardware measures the hardware as much.
		class := machine.Class(run.Machines)
		if st.Machine == "" {
			st.Machine = class
		}
		for _, cur := range current {
			if cur.class != class || cur.hosts != len(run.Machines) {
				return reason.New(reason.MachineMismatch, "the stored baseline %s: its run %s ran on %d host(s) [%s], run %s on %d [%s]: a baseline on other hardware measures the hardware",
					st.Path, run.Path, len(run.Machines), class, cur.path, cur.hosts, cur.class), true
			}
		}
	}
	if !st.Started.IsZero() {
		st.AgeDays = time.Since(st.Started).Hours() / 24
	}
	return reason.Reason{}, false
}

// storedDecisions tests each arm against the stored runs of the same arm
// (Holm-corrected when several): an arm the baseline has no run of, or
// whose values give no ratio, is a warning instead.
func (g *gate) storedDecisions(runs []Run, rule decide.Rule) (decisions []decide.Decision, arms []string, nowThen [][2]int) {
	for _, arm := range g.arms {
		var then []float64
		for _, run := range runs {
			if v := metricOf(run.Evidence, g.opts.Metric); run.Evidence.Arm == arm && v != nil && counted(run) {
				then = append(then, *v)
			}
		}
		if len(then) == 0 {
			g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("the stored baseline has no run of arm %s", arm))
			continue
		}
		now := g.armSample(arm).Values
		dec, err := decide.Unpaired(then, now, rule)
		if err != nil {
			g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("%s vs the stored baseline: %v", arm, err))
			continue
		}
		decisions = append(decisions, dec)
		arms = append(arms, arm)
		nowThen = append(nowThen, [2]int{len(now), len(then)})
	}
	if len(decisions) > 1 {
		decisions = decide.Holm(decisions, rule)
	}
	return decisions, arms, nowThen
}

// hardware is a hardware class and host count, and the first run on it.
type hardware struct {
	class string
	hosts int
	path  string
}

// hardwareOf lists the distinct hardware the runs that recorded theirs ran
// on, in run order.
func hardwareOf(runs []Run) []hardware {
	var out []hardware
	for _, run := range runs {
		if len(run.Machines) == 0 {
			continue
		}
		h := hardware{class: machine.Class(run.Machines), hosts: len(run.Machines), path: run.Path}
		if !slices.ContainsFunc(out, func(o hardware) bool { return o.class == h.class && o.hosts == h.hosts }) {
			out = append(out, h)
		}
	}
	return out
}

// StoredRegressed says whether an arm regressed against the stored baseline.
func (r *Result) StoredRegressed() bool {
	return r.Stored != nil && slices.ContainsFunc(r.Stored.Deltas, func(d Delta) bool { return d.Verdict == Regressed })
}

// writeStored prints the comparison with the stored baseline for a person.
func (r Report) writeStored(out *textout.Writer) {
	st := r.Stored
	if st == nil || r.Verdict == Censored {
		return
	}
	out.Printf("\nagainst the stored baseline %s: %d run(s)%s%s\n", st.Path, st.Runs, st.when(), st.on())
	for _, d := range st.Deltas {
		line := fmt.Sprintf("  %s now vs then: %s", d.Arm, d.Display)
		if d.Display == "~" && d.Pct != nil {
			line = fmt.Sprintf("  %s now vs then: ~ (%+.2f%%)", d.Arm, *d.Pct)
		}
		if d.Interval != nil {
			line += fmt.Sprintf(" [%+.2f%%, %+.2f%%]", d.Interval[0], d.Interval[1])
		}
		if d.decidingP() != "" {
			line += " (" + numfmt.PEquals(*d.P) + ")"
		}
		out.Printf("%s %s; %s\n", line, d.Verdict, d.How())
	}
}

func (st *Stored) when() string {
	if st.Started.IsZero() {
		return ""
	}
	return fmt.Sprintf(", made %s (%.1f days ago)", st.Started.UTC().Format(time.RFC3339), st.AgeDays)
}

func (st *Stored) on() string {
	if st.Machine == "" {
		return ", on a machine it did not record"
	}
	return ", on " + strings.TrimSpace(st.Machine)
}

// IsArm says whether name is an arm of the runs' scenario.
func IsArm(runs []Run, name string) bool {
	for _, run := range runs {
		if run.Evidence != nil && (run.Evidence.Arm == name || slices.Contains(run.Evidence.Arms, name)) {
			return true
		}
	}
	return false
}

// LoadStored reads the stored baseline at path as LoadRuns reads runs
// (verify with allowed signers checks every signature too) and holds it to
// CheckStored against current: a baseline it refuses (or an archive that
// does not verify) is a *StoredRefused; a path that holds no runs is
// another error.
func LoadStored(path string, current []Run, verify bundle.VerifyOptions) ([]Run, func(), error) {
	stored, cleanup, err := LoadRuns([]string{path}, verify)
	var ve *bundle.VerifyError
	if errors.As(err, &ve) {
		return nil, cleanup, &StoredRefused{Path: path, Refusals: []*Refusal{{Run: path, Err: err}}}
	} else if err != nil {
		return nil, cleanup, err
	}
	stored = withoutRunsNotNeeded(stored)
	refused := CheckStored(current, stored)
	if verify.AllowedSigners != nil {
		refused = append(refused, verifyRuns(stored, verify)...)
	}
	if len(refused) > 0 {
		return nil, cleanup, &StoredRefused{Path: path, Refusals: refused}
	}
	return stored, cleanup, nil
}

// withoutRunsNotNeeded drops a stored campaign's planned runs that never
// ran because a look its signed rule decided stopped it (the campaign is
// whole without them); any other missing run stays, for CheckStored to
// refuse.
func withoutRunsNotNeeded(stored []Run) []Run {
	if !slices.ContainsFunc(stored, func(r Run) bool { return r.NotRun > 0 }) {
		return stored
	}
	if Compare(stored, Options{}).Stopped == nil {
		return stored
	}
	return slices.DeleteFunc(stored, func(r Run) bool { return r.NotRun > 0 })
}
