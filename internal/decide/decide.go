package decide

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/abbench/abbench/internal/numfmt"
)

// levelDigits are the significant digits a test's level is said with
// (0.05, 0.0111).
const levelDigits = 3

// The verdicts.
const (
	Improved     = "improved"
	Regressed    = "regressed"
	NoChange     = "no-change"
	Inconclusive = "inconclusive"
	// Descriptive is the verdict of one run per arm (or one pair): a
	// change is shown, but nothing can say whether it is noise.
	Descriptive = "descriptive"
)

// The methods.
const (
	// PairedT is the paired t-test and t-interval on the log ratios of
	// the pairs (a run of each arm, one after the other).
	PairedT = "paired-t"
	// SignedRank is the robust paired alternative: the Hodges-Lehmann
	// estimate of the log ratio, the exact sign-flip (Wilcoxon signed-rank)
	// p and its distribution-free interval.
	SignedRank = "signed-rank"
	// WelchT is Welch's t-test and interval on the log values of unpaired
	// runs (arms of different sizes, or runs not made in pairs).
	WelchT = "welch-t"
	// None is the method of a descriptive comparison.
	None = "none"
)

// The methods a Rule may ask for.
const (
	// Auto takes the paired t, unless there are at least RobustFrom pairs
	// and one of them is an outlier (OutlierZ): then the trimmed t.
	Auto = "auto"
	// T always takes the paired t.
	T = "t"
	// Robust always takes the signed-rank.
	Robust = "robust"
)

// Methods lists what Rule.Method takes.
var Methods = []string{Auto, T, Robust}

// RobustFrom is the fewest pairs Auto takes the trimmed t for: below 6
// pairs, two trimmed, its degrees of freedom (n-4) are too few to decide
// at a sequential look's level.
// RobustUpTo is the most: beyond, the mean of the log ratios is near
// normal whatever their tails, and the Walsh averages the Hodges-Lehmann
// estimate needs grow with the square of the pairs.
const (
	RobustFrom = 6
	RobustUpTo = 200
)

// OutlierZ is the modified z-score (distance from the median in units of
// 1.4826 median absolute deviations) beyond which Auto calls a pair an
// outlier. Iglewicz and Hoaglin's 3.5 calls one in 11 to 15% of normal
// campaigns of 6 to 14 pairs, mostly where the other pairs lie close
// together by chance: there the trimmed t, which trusts their spread,
// rejected normal A/A pairs at 0.05 in 12 to 14% (its |t| 1.3 to 1.7
// times the t quantile). Beyond 6, 0.9 to 4% of normal campaigns are
// flagged, and a run 20% slow at 1 or 2% run-to-run noise still is (its
// pair about 15 or 8 modified z-scores out).
const OutlierZ = 6.0

// Rule is how a comparison decides.
type Rule struct {
	// Alpha is the level the test is held to (DefaultRule's when not in
	// (0, 1)); the interval's confidence is 1-Alpha.
	Alpha float64
	// Effect is the smallest effect of interest in percent (DefaultRule's
	// when not above 0): the least change worth claiming, and the margin
	// no-change holds any change within. It is not the noise one
	// allocation shows against another: a noise threshold of 3% does not
	// make a real +2% change too small to claim.
	Effect float64
	// HigherIsBetter says which way the metric improves.
	HigherIsBetter bool
	// Method is one of Methods ("" is DefaultRule's).
	Method string
}

// DefaultRule is what a comparison decides by where it is told nothing
// else: the level 0.05, the smallest effect of interest 1%, the Auto
// method. It is the one place these defaults are spelled (a test holds
// every other package to it); which way the metric improves is the
// metric's, and has no default. 1% lets a real +2% at 1% run-to-run
// noise be called improved in about 98 default campaigns of 100
// (docs/statistics.md); at 3% it was one in ten.
var DefaultRule = Rule{Alpha: 0.05, Effect: 1, Method: Auto}

// Decision is one treatment against the baseline.
type Decision struct {
	Method string `json:"method"`
	// N is the number of pairs (paired) or the smaller arm's runs.
	N int `json:"n"`
	// Estimate is the change of the treatment over the baseline in percent.
	Estimate float64 `json:"estimate_pct"`
	// Interval is the 1-Alpha interval of the change in percent; nil when
	// none can be given (one run per arm, too few pairs for SignedRank).
	Interval *[2]float64 `json:"interval"`
	// P is the test's p (adjusted for several treatments when Holm says so).
	P *float64 `json:"p"`
	// Alpha is the level of the test and its interval; at a spending
	// design's stop, the interval's (Sequential.Decide).
	Alpha float64 `json:"alpha"`
	// Effect is the smallest effect of interest it was held to, in percent.
	Effect  float64 `json:"effect_pct"`
	Verdict string  `json:"verdict"`
	// Why says in words what decided, for reports.
	Why string `json:"why"`
	// Meaning says what the verdict lets a reader conclude (Meaning).
	Meaning string `json:"meaning"`
	// Period is the period effect of pairs run in both orders (nil
	// otherwise: see CrossoverLogs).
	Period *Period `json:"period,omitempty"`
	// Futile says a sequential design's look ended the campaign
	// undecided (Sequential.Futile).
	Futile bool `json:"futile,omitempty"`
	// StopBias is the early-stop bias of a sequential design's decided
	// change (Sequential.StopBias; nil otherwise).
	StopBias *Bias `json:"stop_bias,omitempty"`
	// Stagewise says P and Interval are a spending design's stagewise p
	// and interval at its stop (Sequential.Decide), at level Alpha; the
	// stopping look's own p and level are in Why.
	Stagewise bool `json:"stagewise,omitempty"`
	// Repeated says P and Interval are a spending design's look's own, at
	// the look's level Alpha, where the pairs end before the test's own
	// stop (Sequential.Decide): the boundary's repeated confidence
	// interval, which holds whatever made the campaign stop.
	Repeated bool `json:"repeated,omitempty"`
	// Skipped says a spending design's look was not taken: its test
	// cannot reach its level (Sequential.Looks).
	Skipped bool `json:"skipped,omitempty"`

	lo, hi, est float64 // log scale
	// df are the degrees of freedom of a t test's P and interval (setT;
	// 0 for any other test): the stagewise interval maps its bounds
	// through them (Sequential.Decide).
	df float64
}

// ErrNotPositive is returned for a value that is zero or negative: a log
// ratio needs positive values (evidence refuses such records anyway).
var ErrNotPositive = errors.New("values must be positive to compare their ratio")

// PairedLogs decides from the pairs' log ratios ln(treatment/baseline).
func PairedLogs(d []float64, r Rule) Decision {
	r = r.defaults()
	n := len(d)
	dec := Decision{N: n, Alpha: r.Alpha, Effect: r.Effect}
	if n < 2 {
		dec.Method = None
		if n == 1 {
			dec.est = d[0]
		}
		return dec.finish(r, false)
	}
	if r.Method == Auto && n >= RobustFrom && n <= RobustUpTo && hasOutlier(d) {
		dec.Method = TrimmedT
		m, se, df := trimmed(d)
		dec.est = m
		dec.setT(m, se, df, r.Alpha)
		return dec.finish(r, true)
	}
	if r.Method == Robust {
		dec.Method = SignedRank
		dec.est = hodgesLehmann(d)
		p := signedRankP(d)
		dec.P = &p
		if lo, hi, ok := signedRankInterval(d, r.Alpha); ok {
			dec.lo, dec.hi = lo, hi
			return dec.finish(r, true)
		}
		return dec.finish(r, false)
	}
	dec.Method = PairedT
	m, sd := meanSD(d)
	dec.est = m
	se := sd / math.Sqrt(float64(n))
	dec.setT(m, se, float64(n-1), r.Alpha)
	return dec.finish(r, true)
}

// Unpaired decides from two independent samples by Welch's t on the logs.
func Unpaired(base, treat []float64, r Rule) (Decision, error) {
	r = r.defaults()
	lb, err := logs(base)
	if err != nil {
		return Decision{}, err
	}
	lt, err := logs(treat)
	if err != nil {
		return Decision{}, err
	}
	dec := Decision{N: min(len(base), len(treat)), Alpha: r.Alpha, Effect: r.Effect}
	if len(base) == 0 || len(treat) == 0 {
		dec.Method = None
		return dec.finish(r, false), nil
	}
	mb, sb := meanSD(lb)
	mt, st := meanSD(lt)
	dec.est = mt - mb
	if len(base) < 2 || len(treat) < 2 {
		dec.Method = None
		return dec.finish(r, false), nil
	}
	dec.Method = WelchT
	vb, vt := sb*sb/float64(len(lb)), st*st/float64(len(lt))
	se := math.Sqrt(vb + vt)
	df := (vb + vt) * (vb + vt) / (vb*vb/float64(len(lb)-1) + vt*vt/float64(len(lt)-1))
	if se == 0 {
		df = float64(len(lb) + len(lt) - 2)
	}
	dec.setT(dec.est, se, df, r.Alpha)
	return dec.finish(r, true), nil
}

// setT sets p and the interval of a t statistic est/se with df degrees of
// freedom. A zero standard error (identical ratios) decides by the
// estimate alone: p is 0 when it is not zero.
func (dec *Decision) setT(est, se, df, alpha float64) {
	p := tP(est, se, df)
	dec.P = &p
	dec.df = df
	q := TQuantile(1-alpha/2, df)
	dec.lo, dec.hi = est-q*se, est+q*se
}

// finish sets the verdict and the percentages.
func (dec Decision) finish(r Rule, hasInterval bool) Decision {
	dec.Estimate = pct(dec.est)
	if hasInterval {
		dec.Interval = &[2]float64{pct(dec.lo), pct(dec.hi)}
	}
	L := math.Log1p(r.Effect / 100)
	better := dec.est > 0 == r.HigherIsBetter
	switch {
	case dec.Method == None:
		dec.Verdict = Descriptive
		dec.Why = "one run per arm: descriptive only, no test can tell this change from noise"
	case dec.P != nil && *dec.P <= r.Alpha && math.Abs(dec.est) >= L:
		dec.Verdict = map[bool]string{true: Improved, false: Regressed}[better]
		dec.Why = fmt.Sprintf("%s <= %s and |%+.2f%%| >= the smallest effect %.2f%%", numfmt.PEquals(*dec.P), numfmt.Significant(r.Alpha, levelDigits), dec.Estimate, r.Effect)
	case hasInterval && dec.lo > -L && dec.hi < L:
		dec.Verdict = NoChange
		dec.Why = fmt.Sprintf("the %s interval lies within ±%.2f%%, the smallest effect", IntervalLevel(r.Alpha), r.Effect)
	default:
		dec.Verdict = Inconclusive
		switch {
		case dec.P != nil && *dec.P <= r.Alpha:
			dec.Why = fmt.Sprintf("significant, but %+.2f%% is below the smallest effect %.2f%% and the interval reaches beyond it", dec.Estimate, r.Effect)
		case !hasInterval:
			dec.Why = "too few pairs for this method's interval"
		default:
			dec.Why = fmt.Sprintf("not significant at %s, and the %s interval reaches beyond ±%.2f%%", numfmt.Significant(r.Alpha, levelDigits), IntervalLevel(r.Alpha), r.Effect)
		}
	}
	dec.Meaning = Meaning(dec.Verdict, r.Effect, r.Alpha)
	return dec
}

// IntervalLevel is the confidence of an interval at level alpha, as
// reports label it ("95%", "98.9%"): a verdict's reasons name the
// interval by it rather than print its bounds a second time.
func IntervalLevel(alpha float64) string {
	level := strconv.FormatFloat(100*(1-alpha), 'g', 3, 64)
	if level == "100" { // alpha below 0.0005
		level = strconv.FormatFloat(100*(1-alpha), 'g', 5, 64)
	}
	return level + "%"
}

// Decided says whether the verdict ends a sequential campaign: a change
// either way, or no change.
func (dec Decision) Decided() bool {
	return dec.Verdict == Improved || dec.Verdict == Regressed || dec.Verdict == NoChange
}

// Ends says whether a sequential look ends the campaign: decided, or
// futile.
func (dec Decision) Ends() bool { return dec.Decided() || dec.Futile }

func (r Rule) defaults() Rule {
	if r.Alpha <= 0 || r.Alpha >= 1 {
		r.Alpha = DefaultRule.Alpha
	}
	if r.Effect <= 0 {
		r.Effect = DefaultRule.Effect
	}
	if r.Method == "" {
		r.Method = DefaultRule.Method
	}
	return r
}

// Holm adjusts the p of several treatments against one baseline (Holm's
// step-down method, HolmAdjust) and decides each again at the family's
// level, so that more treatments do not mean more false verdicts.
func Holm(ds []Decision, r Rule) []Decision {
	r = r.defaults()
	tested := 0
	for _, d := range ds {
		if d.P != nil {
			tested++
		}
	}
	if tested < 2 {
		return ds
	}
	ps := make([]*float64, len(ds))
	for i := range ds {
		ps[i] = ds[i].P
	}
	adj := HolmAdjust(ps, tested)
	out := append([]Decision(nil), ds...)
	for i, d := range ds {
		if adj[i] == nil {
			continue
		}
		d.P = adj[i]
		out[i] = d.finish(r, d.Interval != nil)
		out[i].Why += fmt.Sprintf(" (p Holm-adjusted for %d treatments)", tested)
	}
	return out
}

// hasOutlier says whether a log ratio lies beyond OutlierZ modified
// z-scores of the others (a pair with a run 20% slow, say).
func hasOutlier(d []float64) bool { return beyond(d, OutlierZ) }

// beyond says whether a log ratio lies beyond z modified z-scores of the
// others.
func beyond(d []float64, z float64) bool {
	med, scale := robustScale(d)
	for _, x := range d {
		if dev := math.Abs(x - med); scale == 0 && dev > 0 || scale > 0 && dev/scale > z {
			return true
		}
	}
	return false
}

// robustScale is d's median and its median absolute deviation scaled to
// a normal standard deviation (1.4826 times it): a modified z-score, after
// Iglewicz and Hoaglin, is a value's distance from the median over it.
func robustScale(d []float64) (med, scale float64) {
	med = median(d)
	dev := make([]float64, len(d))
	for i, x := range d {
		dev[i] = math.Abs(x - med)
	}
	return med, 1.4826 * median(dev)
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func pct(x float64) float64 { return math.Expm1(x) * 100 }

func logs(v []float64) ([]float64, error) {
	out := make([]float64, len(v))
	for i, x := range v {
		if !(x > 0) {
			return nil, ErrNotPositive
		}
		out[i] = math.Log(x)
	}
	return out, nil
}

func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

var quantiles sync.Map // [2]float64{p, df} -> float64

// TQuantile is the p quantile of Student's t with df degrees of freedom
// (cached: the validation suite asks for the same few millions of times).
func TQuantile(p, df float64) float64 {
	key := [2]float64{p, df}
	if q, ok := quantiles.Load(key); ok {
		return q.(float64)
	}
	q := distuv.StudentsT{Sigma: 1, Nu: df}.Quantile(p)
	quantiles.Store(key, q)
	return q
}
