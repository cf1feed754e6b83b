package compare

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/numfmt"
	"github.com/abbench/abbench/internal/rundir"
)

// Design is how the runs were made, as the statistics read it from the
// runs' signed campaign references.
type Design struct {
	// Paired is true when the runs are blocks of an abba campaign: each
	// treatment is compared with the baseline run of its own block.
	Paired bool   `json:"paired"`
	Order  string `json:"order,omitempty"`
	// Warmup blocks were run and left out.
	Warmup     int                `json:"warmup_blocks,omitempty"`
	Sequential *rundir.Sequential `json:"sequential,omitempty"`
	// Metrics is the number of metrics a sequential design's tests are
	// one family with (its signed stop rule's, or more where more are
	// compared): each treatment of each held to its share of alpha.
	Metrics int `json:"metrics_in_family,omitempty"`
	// Cells is the number of a sequential sweep's cells whose tests are
	// one family (the signed plan's cells): each cell's held to its share
	// of alpha at every look, its stop too.
	Cells int `json:"cells_in_family,omitempty"`
	// SideBySide counts the blocks whose runs ran at the same time (abbench
	// run --concurrent), of the Timed blocks whose runs say when they ran.
	SideBySide int `json:"blocks_side_by_side,omitempty"`
	Timed      int `json:"blocks_timed,omitempty"`
	// Why says why the runs are or are not paired.
	Why string `json:"why"`
}

// design reads the runs' campaign references: paired when every run is of
// one abba campaign (the gate has already refused runs of different
// plans), unpaired otherwise.
func (g *gate) design() Design {
	var ref *rundir.CampaignRef
	for _, run := range g.runs {
		if run.Campaign == nil {
			return Design{Why: fmt.Sprintf("run %s is of no campaign (made by abbench arm or import, not by abbench run): runs are compared unpaired", run.Path)}
		}
		ref = run.Campaign
	}
	if ref == nil {
		return Design{}
	}
	d := Design{Order: ref.Order, Warmup: ref.Warmup, Sequential: ref.Sequential}
	// A sequential campaign whose plan signed a family of metrics holds
	// each test to its share at every look, as its stop did. One whose
	// plan signed none (one metric, or a plan made before the family was
	// signed) stopped on its headline at the whole alpha: several metrics
	// compared after it are one family by Holm's adjustment, as the rule
	// it was run under said, so committed evidence keeps its verdict.
	if seq := ref.Sequential; seq != nil {
		if seq.Rule != nil && seq.Rule.Metrics > 1 {
			d.Metrics = max(g.opts.Metrics, seq.Rule.Metrics)
		}
		c := len(ref.Cells) // signed in the plan digest, as the rule's count
		if seq.Rule != nil {
			c = max(c, seq.Rule.Cells)
		}
		if c > 1 {
			d.Cells = c
		}
	}
	switch {
	case ref.Order != "abba":
		d.Why = fmt.Sprintf("the campaign ran in %s order, not in abba pairs: runs are compared unpaired", ref.Order)
	case ref.Arms < 2:
		d.Why = "the campaign has one arm"
	default:
		d.Paired = true
		d.Why = fmt.Sprintf("abba campaign: each treatment run is compared with the baseline run of its block of %d", ref.Arms)
	}
	return d
}

// counted says whether a run counts in the statistics: warm-up blocks do not.
func counted(run Run) bool {
	c := run.Campaign
	return c == nil || c.Warmup == 0 || c.Block(c.Index) >= c.Warmup
}

// pairs are the baseline and treatment values of each block, in block
// order, and whether the baseline ran first in it (its plan index is the
// lower).
func (g *gate) pairs(base, treat string) (b, t []float64, baseFirst []bool) {
	type pair struct {
		v   [2]*float64
		idx [2]int
	}
	byBlock := map[int]*pair{}
	var blocks []int
	for _, run := range g.runs {
		if !counted(run) || run.Campaign == nil {
			continue
		}
		blk := run.Campaign.Block(run.Campaign.Index)
		p, ok := byBlock[blk]
		if !ok {
			p = &pair{}
			byBlock[blk] = p
			blocks = append(blocks, blk)
		}
		arm := map[string]int{base: 0, treat: 1}
		if i, ok := arm[run.Evidence.Arm]; ok {
			p.v[i], p.idx[i] = metricOf(run.Evidence, g.opts.Metric), run.Campaign.Index
		}
	}
	slices.Sort(blocks)
	for _, blk := range blocks {
		if p := byBlock[blk]; p.v[0] != nil && p.v[1] != nil {
			b, t, baseFirst = append(b, *p.v[0]), append(t, *p.v[1]), append(baseFirst, p.idx[0] < p.idx[1])
		}
	}
	return b, t, baseFirst
}

func (g *gate) statistics() {
	r := g.r
	arms := map[string]Arm{}
	for _, name := range g.arms {
		a := g.armSample(name)
		arms[name] = a
		r.Arms = append(r.Arms, a)
	}
	r.Design = g.design()
	r.Design.SideBySide, r.Design.Timed = g.sideBySide()
	if r.Design.SideBySide == 0 {
		r.Design.Timed = 0 // said only of a campaign whose runs ran side by side
	}
	effect, effectOf := g.effect()
	rule := decide.Rule{Alpha: g.opts.Alpha, Effect: effect, HigherIsBetter: r.HigherIsBetter, Method: g.opts.Method}
	if rule.Alpha == 0 {
		rule.Alpha = decide.DefaultRule.Alpha
	}
	var decisions []decide.Decision
	var treatments []string
	for _, name := range g.arms {
		if name == r.Baseline {
			continue
		}
		dec, looks, err := g.decide(arms[r.Baseline], arms[name], rule)
		if err != nil {
			// No ratio (a value of 0): the delta says so and decides nothing.
			why := err.Error()
			if errors.Is(err, decide.ErrNotPositive) {
				why = g.notPositive(r.Baseline, name)
			}
			r.Deltas = append(r.Deltas, Delta{Arm: name, Effect: effect, EffectOf: effectOf, Paired: r.Design.Paired,
				Verdict: Inconclusive, Display: "~", Method: decide.None, Why: why})
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s vs %s: %s", name, r.Baseline, why))
			continue
		}
		r.Deltas = append(r.Deltas, Delta{Arm: name, Effect: effect, EffectOf: effectOf, Paired: r.Design.Paired, Looks: looks})
		decisions = append(decisions, dec)
		treatments = append(treatments, name)
	}
	if len(decisions) > 1 && r.Design.Sequential == nil {
		// A sequential design holds its treatments to their shares of
		// alpha at every look instead (decide.Sequential.Family).
		decisions = decide.Holm(decisions, rule)
	}
	g.stoppedByDesign = len(decisions) == len(r.Deltas) && len(decisions) > 0
	for i, dec := range decisions {
		d := deltaOf(r.Deltas, treatments[i])
		pct := dec.Estimate
		d.Pct, d.Interval, d.P, d.Alpha, d.Method, d.N, d.Verdict, d.Why = &pct, dec.Interval, dec.P, dec.Alpha, dec.Method, dec.N, dec.Verdict, dec.Why
		d.Meaning = dec.Meaning
		d.Period, d.StopBias, d.Stagewise, d.Repeated = dec.Period, dec.StopBias, dec.Stagewise, dec.Repeated
		d.Display = display(dec.Verdict, pct)
		if !dec.Ends() || r.Design.Sequential != nil && dec.N < r.Design.Sequential.MinPairs {
			// Fewer pairs than the design's first look decide nothing of
			// the design: a campaign cut short before it looked did not
			// stop by its rule.
			g.stoppedByDesign = false
		}
		g.caveats(treatments[i], arms[r.Baseline], arms[treatments[i]], d)
	}
	r.Verdict = overall(r.Deltas)
	g.drift()
	if g.opts.Stored != nil {
		g.stored(rule, effect, effectOf)
	}
}

// LookNotTaken is the verdict a comparison's looks say of a look its test
// could not reject at (decide.Sequential.Looks): it decided nothing and
// spent no alpha.
const LookNotTaken = "not taken"

// sequentialOf is the design a campaign's signed reference records.
func sequentialOf(seq *rundir.Sequential) *decide.Sequential {
	return &decide.Sequential{MinPairs: seq.MinPairs, MaxPairs: seq.MaxPairs, Alpha: seq.Alpha, LookAlpha: seq.LookAlpha,
		Boundary: seq.Boundary, LookAlphas: seq.LookAlphas, Futility: seq.Futility, SkipUnreachable: seq.SkipUnreachable}
}

func deltaOf(ds []Delta, arm string) *Delta {
	for i := range ds {
		if ds[i].Arm == arm {
			return &ds[i]
		}
	}
	return nil
}

// overall is the comparison's verdict from its treatments': regressed if
// any regressed; improved or no-change when all agree; descriptive when
// any is; inconclusive otherwise.
// display is a delta as the reports show it: its change where a test
// decided it (or one run per arm shows it), "~" where none did.
func display(verdict string, pct float64) string {
	switch verdict {
	case Improved, Regressed:
		return fmt.Sprintf("%+.2f%%", pct)
	case Descriptive:
		return fmt.Sprintf("%+.2f%% (1 run per arm)", pct)
	}
	return "~"
}

func overall(ds []Delta) string {
	count := map[string]int{}
	for _, d := range ds {
		count[d.Verdict]++
	}
	switch {
	case len(ds) == 0:
		return Inconclusive
	case count[Regressed] > 0:
		return Regressed
	case count[Improved] == len(ds):
		return Improved
	case count[NoChange] == len(ds):
		return NoChange
	case count[Descriptive] > 0:
		return Descriptive
	}
	return Inconclusive
}

// notPositive says which runs of the treatment and the baseline hold the
// metric at 0 or below, where no ratio exists: "values must be positive"
// alone left the user to find them among every run's record.
func (g *gate) notPositive(base, treat string) string {
	var arms []string
	for _, arm := range []string{treat, base} {
		var at []string
		n := 0
		for _, run := range g.runs {
			if !counted(run) || run.Evidence.Arm != arm {
				continue
			}
			n++
			if v := metricOf(run.Evidence, g.opts.Metric); v != nil && !(*v > 0) {
				at = append(at, fmt.Sprintf("%s %s", run.Path, numfmt.Significant(*v, 3)))
			}
		}
		s := fmt.Sprintf("%d of %d %s runs", len(at), n, arm)
		if len(at) > 0 {
			s += " (" + strings.Join(at, ", ") + ")"
		}
		arms = append(arms, s)
	}
	return fmt.Sprintf("%s and %s have %s at 0 or below: a change is a ratio of positive values, so none is decided; those runs' records say why they measured nothing",
		arms[0], arms[1], g.opts.Metric)
}

// decide compares one treatment with the baseline: within pairs when the
// design pairs them (at each look of a sequential design), else unpaired.
func (g *gate) decide(base, treat Arm, rule decide.Rule) (decide.Decision, []rundir.Look, error) {
	design := g.r.Design
	if !design.Paired {
		dec, err := decide.Unpaired(base.Values, treat.Values, rule)
		return dec, nil, err
	}
	b, t, baseFirst := g.pairs(base.Name, treat.Name)
	d := make([]float64, len(b))
	for i := range b {
		if !(b[i] > 0) || !(t[i] > 0) {
			return decide.Decision{}, nil, decide.ErrNotPositive
		}
		d[i] = math.Log(t[i] / b[i])
	}
	seq := design.Sequential
	if seq == nil {
		g.pairChecks(treat.Name, base.Name, d, baseFirst)
		return decide.CrossoverLogs(d, baseFirst, rule), nil, nil
	}
	s := sequentialOf(seq).FamilyOf(len(g.arms)-1, design.Metrics, design.Cells) // the treatments (metrics, cells) share the design's alpha
	rule.Alpha = s.Alpha
	var looks []rundir.Look
	for _, dec := range s.Looks(d, baseFirst, rule) {
		est := dec.Estimate
		// A look not taken is said so, at the level its test could not reach.
		look := rundir.Look{Pairs: dec.N, Verdict: dec.Verdict, Delta: &est, Alpha: dec.Alpha}
		if dec.Skipped {
			look.Verdict = LookNotTaken
		}
		if dec.Decided() {
			look.P = dec.P
		}
		looks = append(looks, look)
	}
	dec, n := s.Decide(d, baseFirst, rule)
	dec.StopBias = s.StopBias(d, baseFirst, dec, rule)
	g.pairChecks(treat.Name, base.Name, d[:n], baseFirst[:n])
	if n < len(d) {
		g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("%s vs %s: the sequential design decided at pair %d; the %d pair(s) after it are left out", treat.Name, base.Name, n, len(d)-n))
	}
	return dec, looks, nil
}

// effect is the smallest effect of interest and where it came from. The
// scenario's noise_threshold is not it: how much one allocation differs
// from another says nothing of the least change worth claiming, and
// taking it for that hid every real change below it.
func (g *gate) effect() (float64, string) {
	if g.opts.Effect > 0 {
		return g.opts.Effect, "--smallest-effect"
	}
	return decide.DefaultRule.Effect, "default"
}

// caveats says, as warnings, what the reader of a verdict must know: unequal
// arm sizes, too few runs for a calibrated noise, a method switched for
// outliers.
func (g *gate) caveats(name string, base, treat Arm, d *Delta) {
	w := func(format string, a ...any) {
		g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("%s vs %s: ", name, base.Name)+fmt.Sprintf(format, a...))
	}
	if !d.Paired && base.N != treat.N && min(base.N, treat.N) > 1 {
		w("unequal arm sizes %d+%d: compared unpaired with Welch's t (its degrees of freedom follow the smaller, noisier arm)", base.N, treat.N)
	}
	if pe := d.Period; pe != nil && pe.P <= cmp.Or(g.opts.Alpha, decide.DefaultRule.Alpha) {
		w("period effect: the second run of a pair was %+.2f%% over the first whichever arm it was (%s interval [%+.2f%%, %+.2f%%], %s); the crossover analysis keeps it out of the delta and its interval, but find its cause (warm-up, heat, state a server keeps between runs)",
			pe.Estimate, decide.IntervalLevel(d.Alpha), pe.Interval[0], pe.Interval[1], numfmt.PEquals(pe.P))
	}
	if b := d.StopBias; b != nil {
		w("the estimate at a decided stop is biased away from zero: at this campaign's noise (pair sd %.2f%%), campaigns of its design that stop %s overstate a true change of %+.2f%% (the estimate) by %.2f points on average, and one of %+.2f%% (the smallest effect) by %.2f",
			b.PairSD, d.Verdict, *d.Pct, points(b.AtEstimate), math.Copysign(d.Effect, *d.Pct), points(b.AtEffect))
	}
	if d.Method == decide.TrimmedT {
		w("a pair's ratio is an outlier (beyond %.1f robust z-scores): decided by the trimmed t (a fifth of the pairs at each end, or as many as are outliers, left out of the estimate, winsorized in its variance)", decide.OutlierZ)
	}
	if c := g.opts.Calibration; c != nil && c.PairsNeeded > d.N {
		w("the calibration (%d A/A pairs of arm %s) needs %d pairs for power 0.8 at %.2f%%; this comparison has %d", c.Pairs, c.Arm, c.PairsNeeded, c.Effect, d.N)
	}
}

// drift warns when the residuals of the counted runs trend with their
// position in the plan: the system changed during the campaign.
func (g *gate) drift() {
	means := map[string]float64{}
	counts := map[string]int{}
	var pos, vals []float64
	var armsOf []string
	for _, run := range g.runs {
		v := metricOf(run.Evidence, g.opts.Metric)
		if run.Campaign == nil || !counted(run) || v == nil || *v <= 0 {
			continue
		}
		pos = append(pos, float64(run.Campaign.Index))
		vals = append(vals, math.Log(*v))
		armsOf = append(armsOf, run.Evidence.Arm)
		means[run.Evidence.Arm] += math.Log(*v)
		counts[run.Evidence.Arm]++
	}
	for i := range vals {
		vals[i] -= means[armsOf[i]] / float64(counts[armsOf[i]])
	}
	if d, ok := decide.DriftOf(pos, vals); ok && d.P < driftP {
		g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("run-order drift: the metric moved %+.2f%% per run through the campaign (%s); pairs in abba order keep it out of the delta, but it widens the interval", d.PctPerRun, numfmt.PEquals(d.P)))
	}
}

// points rounds percentage points to the hundredths a report prints, so a
// bias of -0.001 reads 0.00, not -0.00.
func points(x float64) float64 { return math.Round(100*x)/100 + 0 }
