package decide

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g (±%g)", what, got, want, tol)
	}
}

// Student's sleep data (the paired differences of R's t.test example):
// t = 4.0621, df = 9, p = 0.002833, 95% interval 0.7001142 to 2.4598858.
var sleep = []float64{1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4}

func TestPairedTKnownAnswer(t *testing.T) {
	d := PairedLogs(sleep, Rule{Method: T, Effect: 1, HigherIsBetter: true})
	if d.Method != PairedT || d.N != 10 {
		t.Fatalf("method %s n %d", d.Method, d.N)
	}
	near(t, "p", *d.P, 0.002833, 5e-6)
	near(t, "lower bound", math.Log1p(d.Interval[0]/100), 0.7001142, 1e-6)
	near(t, "upper bound", math.Log1p(d.Interval[1]/100), 2.4598858, 1e-6)
	near(t, "estimate", math.Log1p(d.Estimate/100), 1.58, 1e-9)
	if d.Verdict != Improved {
		t.Errorf("verdict %s: %s", d.Verdict, d.Why)
	}
}

func TestTQuantile(t *testing.T) {
	near(t, "t(0.975, 2)", TQuantile(0.975, 2), 4.302653, 1e-5)
	near(t, "t(0.975, 9)", TQuantile(0.975, 9), 2.262157, 1e-5)
}

// The depression data of R's wilcox.test example (Hollander and Wolfe):
// V = 40, exact two-sided p = 20/512.
func TestSignedRankKnownAnswer(t *testing.T) {
	x := []float64{1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30}
	y := []float64{0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	near(t, "p", signedRankP(d), 20.0/512, 1e-12)
	// Every pair the same way: 2/2^n, so 5 pairs never reach 0.05.
	near(t, "p of 5 positive", signedRankP([]float64{1, 2, 3, 4, 5}), 2.0/32, 1e-12)
	near(t, "p of 6 positive", signedRankP([]float64{1, 2, 3, 4, 5, 6}), 2.0/64, 1e-12)
	if _, _, ok := signedRankInterval([]float64{1, 2, 3, 4, 5}, 0.05); ok {
		t.Error("5 pairs gave a 95% signed-rank interval")
	}
	lo, hi, ok := signedRankInterval([]float64{3, 1, 6, 2, 5, 4}, 0.05)
	if !ok || lo != 1 || hi != 6 {
		t.Errorf("6 pairs: interval [%v, %v] %v, want the extreme Walsh averages [1, 6]", lo, hi, ok)
	}
	near(t, "Hodges-Lehmann", hodgesLehmann([]float64{1, 2, 3, 100}), 2.75, 1e-12) // median of 1 1.5 2 2 2.5 3 50.5 51 51.5 100
}

func TestAutoTakesTheTrimmedTOnlyForOutliers(t *testing.T) {
	clean := []float64{0.05, 0.051, 0.049, 0.052, 0.048, 0.05}
	if m := PairedLogs(clean, Rule{}).Method; m != PairedT {
		t.Errorf("clean pairs: %s", m)
	}
	// A slow baseline run: its pair's ratio is 25% off the others'. The
	// mean follows it; the trimmed mean stays with the others.
	slow := append([]float64{0.25}, clean...)
	if d := PairedLogs(slow, Rule{Method: T, Effect: 1, HigherIsBetter: true}); d.Estimate < 7 {
		t.Errorf("the paired t's estimate %+.2f%% was not pulled by the outlier: the case shows nothing", d.Estimate)
	}
	d := PairedLogs(slow, Rule{Effect: 1, HigherIsBetter: true})
	if d.Method != TrimmedT || d.Verdict != Improved || d.Estimate > 5.6 {
		t.Errorf("a pair with a slow run: %s %s %+.2f%% (%s)", d.Method, d.Verdict, d.Estimate, d.Why)
	}
	if m := PairedLogs(slow[:5], Rule{}).Method; m != PairedT {
		t.Errorf("5 pairs: %s, but the trimmed t has one degree of freedom there", m)
	}
}

func TestVerdicts(t *testing.T) {
	r := Rule{Effect: 3, HigherIsBetter: true}
	cases := []struct {
		name string
		d    []float64
		want string
	}{
		{"one pair", []float64{0.1}, Descriptive},
		{"large and clear", []float64{0.10, 0.11, 0.09, 0.10}, Improved},
		{"large and clear, lower is better", []float64{0.10, 0.11, 0.09, 0.10}, Regressed},
		{"tiny and tight", []float64{0.001, -0.001, 0.002, 0.0, -0.002, 0.001}, NoChange},
		{"significant but below the effect", []float64{0.010, 0.011, 0.009, 0.010, 0.012}, NoChange},
		{"noisy", []float64{0.1, -0.08, 0.05, -0.02}, Inconclusive},
	}
	for _, c := range cases {
		rr := r
		if c.name == "large and clear, lower is better" {
			rr.HigherIsBetter = false
		}
		if d := PairedLogs(c.d, rr); d.Verdict != c.want {
			t.Errorf("%s: %s, want %s (%s)", c.name, d.Verdict, c.want, d.Why)
		}
	}
	// Significant, above zero, below the effect and not inside it.
	d := PairedLogs([]float64{0.02, 0.035, 0.025, 0.03, 0.028}, r)
	if d.Verdict != Inconclusive || *d.P > 0.05 {
		t.Errorf("significant below the effect: %s p=%v (%s)", d.Verdict, *d.P, d.Why)
	}
}

func TestWelchEqualsStudentForEqualArms(t *testing.T) {
	a := []float64{100, 102, 98, 101}
	b := []float64{104, 106, 103, 105}
	d, err := Unpaired(a, b, Rule{Effect: 1, HigherIsBetter: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Method != WelchT || d.Verdict != Improved {
		t.Fatalf("%s %s", d.Method, d.Why)
	}
	if _, err := Unpaired([]float64{1, 0}, b, Rule{}); err != ErrNotPositive {
		t.Errorf("a zero value: %v", err)
	}
	one, _ := Unpaired([]float64{100}, b, Rule{})
	if one.Verdict != Descriptive {
		t.Errorf("one baseline run: %s", one.Verdict)
	}
}

func TestHolm(t *testing.T) {
	r := Rule{Effect: 1, HigherIsBetter: true}
	a := PairedLogs([]float64{0.05, 0.06, 0.055, 0.052}, r) // clear
	b := PairedLogs([]float64{0.02, 0.05, 0.01, 0.045}, r)  // p near 0.03
	if b.Verdict != Improved {
		t.Fatalf("b alone: %s (%s)", b.Verdict, b.Why)
	}
	out := Holm([]Decision{a, b}, r)
	if *out[1].P != math.Max(*b.P, 2**a.P) && *out[1].P != *b.P {
		t.Errorf("b adjusted p %v", *out[1].P)
	}
	if *out[0].P != math.Min(1, 2**a.P) {
		t.Errorf("the smallest p is doubled: %v, want %v", *out[0].P, 2**a.P)
	}
	if out[1].Verdict == Improved && *out[1].P > 0.05 {
		t.Error("verdict kept after adjustment")
	}
}

// The constant per-look level (the design of plans signed before the
// spending boundary) keeps the chance of any false verdict over all looks
// at alpha, checked through CrossoverLogs itself with other random numbers
// than the level was made with: 100,000 paths put the rate within 0.0021
// (three standard errors) of 0.05.
func TestLookAlphaHoldsOverall(t *testing.T) {
	monteCarlo(t, "a Monte Carlo of thousands of campaigns")
	seq := PocockDesign(3, 10, 0.05)
	if seq.LookAlpha >= 0.05 || seq.LookAlpha <= 0.05/8 {
		t.Fatalf("look alpha %v outside (alpha/looks, alpha)", seq.LookAlpha)
	}
	if LookAlpha(4, 4, 0.05) != 0.05 {
		t.Error("one look is tested at alpha itself")
	}
	rng := rand.New(rand.NewPCG(99, 7))
	const paths = 100000
	var naive, held int
	d := make([]float64, 10)
	for range paths {
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		smallest := 1.0 // the smallest p over the looks
		for n := 3; n <= 10; n++ {
			smallest = math.Min(smallest, *CrossoverLogs(d[:n], ABBA(n), Rule{Method: T, Effect: 1e-9}).P)
		}
		if smallest <= 0.05 {
			naive++
		}
		if smallest <= seq.LookAlpha {
			held++
		}
	}
	rate := float64(held) / paths
	t.Logf("%d paths: %.4f at the per-look level %.5f, %.4f at 0.05 every look", paths, rate, seq.LookAlpha, float64(naive)/paths)
	if se := math.Sqrt(0.05 * 0.95 / paths); math.Abs(rate-0.05) > 3*se {
		t.Errorf("overall false rate at the per-look level %.4f: %.4f, want 0.05 ± %.4f", seq.LookAlpha, rate, 3*se)
	}
	// 0.157 (0.173 before the crossover's variance held the pairs of
	// blocks' covariance, which widens independent pairs' intervals too)
	if n := float64(naive) / paths; n < 0.14 || n > 0.18 {
		t.Errorf("looking at 0.05 each time gave %.3f, want about 0.16", n)
	}
	if _, err := NewSequential(2, 10, 0.05); err == nil {
		t.Error("two pairs accepted as a first look")
	}
}

func TestPairsForPowerHoldsBySimulation(t *testing.T) {
	sd, effect := 0.014, 3.0
	n := PairsFor(sd, effect, 0.05, 0.8)
	if n < 2 || n > 20 {
		t.Fatalf("pairs %d", n)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	power := func(n int) float64 {
		hits := 0
		for range 4000 {
			d := make([]float64, n)
			for i := range d {
				d[i] = math.Log1p(effect/100) + sd*rng.NormFloat64()
			}
			if *PairedLogs(d, Rule{Method: T, Effect: 1e-9}).P <= 0.05 {
				hits++
			}
		}
		return float64(hits) / 4000
	}
	if p := power(n); p < 0.78 {
		t.Errorf("%d pairs: simulated power %.3f, want >= 0.8", n, p)
	}
	if n > 2 {
		if p := power(n - 1); p >= 0.8 {
			t.Errorf("%d pairs already had power %.3f", n-1, p)
		}
	}
}

func TestAANoiseSeparatesPairsFromRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var v []float64
	for range 400 {
		shared := 0.02 * rng.NormFloat64()
		for range 2 {
			v = append(v, 1000*math.Exp(shared+0.005*rng.NormFloat64()))
		}
	}
	n, err := AANoise(v)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "within", n.WithinSD, 0.005, 0.0006)
	near(t, "between", n.BetweenSD, 0.02, 0.002)
	near(t, "paired", n.PairedSD, 0.005*math.Sqrt2, 0.0008)
	if _, err := AANoise([]float64{1, 2, 3}); err == nil {
		t.Error("3 runs made a calibration")
	}
}

func TestDrift(t *testing.T) {
	var pos, res, flat []float64
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 12 {
		pos = append(pos, float64(i))
		res = append(res, 0.003*float64(i)+0.001*rng.NormFloat64())
		flat = append(flat, 0.001*rng.NormFloat64())
	}
	d, ok := DriftOf(pos, res)
	if !ok || d.P > 0.01 || math.Abs(d.PctPerRun-0.3) > 0.05 {
		t.Errorf("drift %+v", d)
	}
	if d, _ := DriftOf(pos, flat); d.P < 0.01 {
		t.Errorf("no drift found one: %+v", d)
	}
}

// The fast subset of the validation suite: every goal in every cell at
// the designs CI can afford to simulate.
func TestValidationGoals(t *testing.T) {
	monteCarlo(t, "a Monte Carlo of thousands of campaigns")
	rule := Rule{Effect: 1, HigherIsBetter: true}
	seq, _ := NewSequential(MinLookPairs, DefaultMaxPairs, 0.05)
	designs := []Design{Fixed(2), Fixed(3), Fixed(6), SequentialDesign("sequential", seq)}
	for i, m := range Models {
		// bench/statistics.sh's seeds (bench/statval: 1000i): every design
		// decides the same campaigns, so the fixed and sequential cells
		// here are the published table's at --campaigns 1000, not another
		// draw whose one cell in a hundred beyond Monte Carlo error would
		// contradict it. Each model on a core of its own.
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			validationGoals(t, m, designs, rule, uint64(1000*i))
		})
	}
}

// validationGoals checks one noise model's rows against every goal.
func validationGoals(t *testing.T, m Model, designs []Design, rule Rule, seed uint64) {
	t.Helper()
	for _, row := range Validate(m, designs, rule, 1000, seed) {
		for _, miss := range row.Misses() {
			// Known and said in docs/statistics.md: two pairs (one
			// degree of freedom) under the shared machine's real runs,
			// whose lag-1 autocorrelation is 0.68, say a change in
			// 7.7% of A/A campaigns; the default design looks first
			// at 3 pairs, at 0.000024.
			if strings.Contains(m.Name, "shared 2-core") && row.Design == "2 pairs" && strings.HasPrefix(miss, "A/A") {
				continue
			}
			t.Errorf("%s, %s: %s", row.Model, row.Design, miss)
		}
		// Known and said in docs/statistics.md: below 6 pairs an
		// order has fewer than CrossoverFrom pairs, the crossover does
		// not apply, and a period effect widens the interval.
		// The stagewise interval at a sequential stop is held to 97%
		// too: with its bounds carried back through est/z it covered
		// up to 98.2% (seven models above 97%, 1,000 campaigns).
		// Known and said there too: under outliers a fixed design's
		// trimmed t, its error held to the ordinary pairs' (ordinarySE),
		// covers up to 97.7% (10 pairs, 4,000 campaigns).
		knownWide := strings.Contains(m.Name, "order effect") || strings.Contains(m.Name, "20% slow")
		if wide := row.Wide(); len(wide) > 0 && (!knownWide || row.Design == "sequential") {
			t.Errorf("%s, %s: %s", row.Model, row.Design, strings.Join(wide, "; "))
		}
		// The price of the strict first looks at low noise: a clear
		// change takes 6 or 7 pairs (13.2 runs at 4,000 campaigns), still
		// a third fewer than benchstat's 10+10.
		if m.Name == "normal, CV 1%" && row.Design == "sequential" && row.MeanRuns[4] > 14 {
			t.Errorf("sequential at +5%%, CV 1%%: %.1f runs on average, want <= 14", row.MeanRuns[4])
		}
	}
}

// Beyond 50 pairs the signed-rank test uses the normal approximation: it
// agrees with the exact test where both apply, and thousands of pairs take
// no time.
func TestSignedRankLargeN(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	d := make([]float64, 50)
	for i := range d {
		d[i] = 0.1 + rng.NormFloat64()
	}
	exact := signedRankP(d)
	var rank2 []int
	w := 0
	order := make([]float64, len(d))
	copy(order, d)
	// the normal approximation on the same 50 pairs (no ties)
	for i := range d {
		r := 1
		for j := range d {
			if math.Abs(d[j]) < math.Abs(d[i]) {
				r++
			}
		}
		rank2 = append(rank2, 2*r)
		if d[i] > 0 {
			w += 2 * r
		}
	}
	near(t, "normal against exact p", normalSignedRankP(rank2, w), exact, 0.01)
	if testing.Short() {
		t.Skip("5000 pairs: the robust interval sorts 12.5 million Walsh averages, seconds; go test without -short runs it")
	}
	big := make([]float64, 5000)
	for i := range big {
		big[i] = 0.01 + 0.01*rng.NormFloat64()
	}
	dec := PairedLogs(big, Rule{Method: Robust, Effect: 0.5, HigherIsBetter: true})
	if dec.Verdict != Improved || dec.Interval == nil || math.Abs(dec.Estimate-1.0) > 0.1 {
		t.Fatalf("5000 pairs: %s %+.3f%% %v", dec.Verdict, dec.Estimate, dec.Interval)
	}
}

// TestNewSequentialNamesTheBound: a bound out of range is a *DesignError
// naming the field, as the design's JSON does, never a command's flag.
func TestNewSequentialNamesTheBound(t *testing.T) {
	cases := []struct {
		min, max int
		field    string
		msg      string
	}{
		{2, 10, "min_pairs", "min_pairs 2: a sequential design looks from 3 pairs on"},
		{5, 4, "max_pairs", "max_pairs 4: below min_pairs 5"},
		{3, MaxLookPairs + 1, "max_pairs", "max_pairs 201: a sequential design runs at most 200 pairs"},
	}
	for _, c := range cases {
		_, err := NewSequential(c.min, c.max, 0)
		var de *DesignError
		if !errors.As(err, &de) || de.Field != c.field || err.Error() != c.msg {
			t.Errorf("NewSequential(%d, %d): %v, want a DesignError on %s: %q", c.min, c.max, err, c.field, c.msg)
		}
	}
	// The design of the most pairs computes 200 looks' boundaries (seconds
	// of CPU): the full suite builds it.
	if testing.Short() {
		return
	}
	if _, err := NewSequential(MaxLookPairs, MaxLookPairs, 0); err != nil {
		t.Errorf("a design of the most pairs: %v", err)
	}
}

// With every default (the sequential design of 3 to DefaultMaxPairs
// pairs, the default rule), a real +2% at 1% run-to-run noise is called
// improved in at least 80% of campaigns; a smallest effect of 3% found it
// in about one of ten.
func TestDefaultsFindTwoPercentAtOnePercentNoise(t *testing.T) {
	monteCarlo(t, "400 sequential campaigns")
	seq, err := NewSequential(MinLookPairs, DefaultMaxPairs, DefaultRule.Alpha)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 1))
	const campaigns = 400
	found := 0
	for range campaigns {
		d := make([]float64, seq.MaxPairs)
		for i := range d {
			d[i] = math.Log1p(0.02) + 0.01*(rng.NormFloat64()-rng.NormFloat64())
		}
		if dec, _ := seq.Decide(d, ABBA(len(d)), Rule{HigherIsBetter: true}); dec.Verdict == Improved {
			found++
		}
	}
	if rate := float64(found) / campaigns; rate < 0.8 {
		t.Errorf("+2%% at 1%% noise: improved in %.1f%% of default campaigns, want >= 80%%", 100*rate)
	}
}

func TestMeaningOfEveryVerdict(t *testing.T) {
	for _, v := range []string{Improved, Regressed, NoChange, Inconclusive, Descriptive} {
		if m := Meaning(v, 2, 0.05); !strings.HasPrefix(m, v+" means ") {
			t.Errorf("%s: %q", v, m)
		}
	}
	if m := Meaning(NoChange, 2, 0.05); !strings.Contains(m, "±2.00%") {
		t.Errorf("no-change does not name its margin: %q", m)
	}
	seq, _ := NewSequential(MinLookPairs, 10, 0.05)
	dec, _ := seq.Decide([]float64{0.1, 0.11, 0.1, 0.105}, ABBA(4), Rule{HigherIsBetter: true})
	if dec.Verdict != Improved || !strings.Contains(dec.Meaning, "at most 5% of the time") {
		t.Errorf("a sequential verdict's meaning names the per-look level, not the overall one: %q", dec.Meaning)
	}
}

// TTestPower is the noncentral t's two tails, checked against numerical
// integration over the chi-square of the standard deviation: P(|T| > q)
// for T = (Z + ncp) / sqrt(V/df), and R's power.t.test(n = 10, delta = 1,
// sd = 1, type = "one.sample"): 0.8030962.
func TestTTestPowerIsTheNoncentralT(t *testing.T) {
	near(t, "power.t.test n=10", TTestPower(10, 1, 1, 0.05), 0.8030962, 1e-6)
	for _, c := range []struct {
		n         int
		sd, shift float64
	}{{3, 0.01, 0.02}, {3, 0.014, 0.01}, {5, 0.02, 0.01}, {8, 0.014, 0.02}} {
		df := float64(c.n - 1)
		q := TQuantile(0.975, df)
		ncp := c.shift * math.Sqrt(float64(c.n)) / c.sd
		chi := distuv.ChiSquared{K: df}
		const steps = 200000
		top := 60 + 20*df
		var power float64
		for i := range steps { // the midpoint rule over V
			v := (float64(i) + 0.5) * top / steps
			s := q * math.Sqrt(v/df)
			power += chi.Prob(v) * (1 - distuv.UnitNormal.CDF(s-ncp) + distuv.UnitNormal.CDF(-s-ncp)) * top / steps
		}
		near(t, fmt.Sprintf("power at %d pairs, sd %g, shift %g", c.n, c.sd, c.shift), TTestPower(c.n, c.sd, c.shift, 0.05), power, 2e-4)
	}
}
