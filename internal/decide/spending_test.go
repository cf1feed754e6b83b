package decide

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/numfmt"
)

// The spending boundary holds alpha over all its looks, and by each look
// has spent what O'Brien-Fleming's function says, checked through
// CrossoverLogs itself with other random numbers than the levels were
// made with: 100,000 paths put the overall rate within 0.0021 (three
// standard errors) of 0.05. The futility stop, which only ends campaigns
// undecided, leaves it no higher.
func TestOBFLevelsHoldOverall(t *testing.T) {
	monteCarlo(t, "a Monte Carlo of thousands of campaigns")
	seq, err := NewSequential(MinLookPairs, DefaultMaxPairs, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	for n := seq.MinPairs + 1; n <= seq.MaxPairs; n++ {
		if seq.LevelAt(n) <= seq.LevelAt(n-1) || seq.LevelAt(n) >= 0.05 {
			t.Fatalf("levels %v: not rising from look to look below alpha", seq.LookAlphas)
		}
	}
	rng := rand.New(rand.NewPCG(99, 8))
	const paths = 100000
	crossedBy := make([]int, seq.MaxPairs+1) // the paths that said changed by each look, no futility
	var withFutility int
	d := make([]float64, seq.MaxPairs)
	r := Rule{Method: T, Effect: 1e-9} // no no-change: every path runs to its crossing
	for range paths {
		for i := range d {
			d[i] = rng.NormFloat64()
		}
		first := 0
		for n := seq.MinPairs; n <= seq.MaxPairs && first == 0; n++ {
			if *CrossoverLogs(d[:n], ABBA(n), seq.Rule(r, n)).P <= seq.LevelAt(n) {
				first = n
			}
		}
		for n := first; first > 0 && n <= seq.MaxPairs; n++ {
			crossedBy[n]++
		}
		if dec, _ := seq.Decide(d, ABBA(len(d)), Rule{Method: T, Effect: 1e-9}); dec.Verdict == Improved || dec.Verdict == Regressed {
			withFutility++
		}
	}
	se := math.Sqrt(0.05 * 0.95 / paths)
	for _, n := range []int{8, 11, seq.MaxPairs} {
		want := obfSpent(0.05, float64(n)/float64(seq.MaxPairs))
		if got := float64(crossedBy[n]) / paths; math.Abs(got-want) > 3*se {
			t.Errorf("spent by pair %d: %.4f, want %.4f ± %.4f", n, got, want, 3*se)
		}
	}
	t.Logf("%d paths: %.4f overall, %.4f with the futility stop; levels %.3g", paths, float64(crossedBy[seq.MaxPairs])/paths, float64(withFutility)/paths, seq.LookAlphas)
	if withFutility > crossedBy[seq.MaxPairs] {
		t.Errorf("the futility stop raised the false-verdict rate: %d > %d", withFutility, crossedBy[seq.MaxPairs])
	}
}

// A look whose estimate is near zero at high noise is futile: the pairs
// left are unlikely to cross the last boundary, and no-change is out of
// reach. The same pairs at a tenth of the noise are not: they say
// no-change. Nor is a look before FutilityFrom, nor a design without a
// futility stop (the Pocock plans made before it).
func TestFutileEndsOnlyHopelessLooks(t *testing.T) {
	seq, err := NewSequential(MinLookPairs, DefaultMaxPairs, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	r := Rule{Effect: 1, HigherIsBetter: true}
	noisy := []float64{0.05, -0.06, -0.04, 0.07, 0.01, -0.03, 0.02, -0.02}
	quiet := make([]float64, len(noisy))
	for i, x := range noisy {
		quiet[i] = x / 10
	}
	dec, n := seq.Decide(noisy, ABBA(len(noisy)), r)
	if !dec.Futile || dec.Verdict != Inconclusive || n != FutilityFrom || !dec.Ends() {
		t.Fatalf("noisy pairs around zero: %s at %d pairs (futile %v): %s", dec.Verdict, n, dec.Futile, dec.Why)
	}
	if dec, n := seq.Decide(quiet, ABBA(len(quiet)), r); dec.Futile || dec.Verdict != NoChange {
		t.Errorf("quiet pairs around zero, no-change in reach: futile %v at %d pairs: %s", dec.Futile, n, dec.Why)
	}
	if seq.Futile(noisy[:FutilityFrom-1], ABBA(FutilityFrom-1), CrossoverLogs(noisy[:FutilityFrom-1], ABBA(FutilityFrom-1), seq.Rule(r, FutilityFrom-1)), r) {
		t.Error("futile before FutilityFrom pairs")
	}
	if dec, n := PocockDesign(MinLookPairs, 10, 0.05).Decide(noisy, ABBA(len(noisy)), r); dec.Futile || n != len(noisy) {
		t.Errorf("a Pocock design stopped for futility at %d pairs", n)
	}
}

// A look whose share to spend is less than one simulated campaign (the
// first of 3 to 40 pairs spends about 5e-13) tests at a tiny level, never
// at 0: a Rule's Alpha of 0 means the default 0.05.
func TestOBFLevelsBelowTheSimulationStayTiny(t *testing.T) {
	seq, err := NewSequential(MinLookPairs, 40, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	first := seq.LevelAt(MinLookPairs)
	if !(first > 0 && first < 1e-6) {
		t.Fatalf("first look of 3 to 40 pairs at %g, want in (0, 1e-6)", first)
	}
	d := []float64{0.05, 0.051, 0.049}
	if dec := CrossoverLogs(d, ABBA(3), seq.Rule(Rule{}, MinLookPairs)); dec.Alpha != first || dec.Verdict == Improved || dec.Verdict == Regressed {
		t.Errorf("the first look tested at %g (%s), want %g", dec.Alpha, dec.Verdict, first)
	}
}

// The design line a reviewer reads says its levels as decimals: the
// first O'Brien-Fleming look's 0.000024 is no 2.4e-05.
func TestDescribeSaysLevelsWithoutAnExponent(t *testing.T) {
	s, err := NewSequential(3, 14, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	d := s.Describe()
	if strings.Contains(d, "e-") || !strings.Contains(d, "looks at levels 0.000024 to 0.0344 (overall 0.05)") {
		t.Errorf("design %q", d)
	}
}

// A design of one look tests at alpha itself where its test is exact
// (the paired t, below 2*CrossoverFrom pairs), and says it has one look:
// it said "looks at levels 0.05 to 0.0501 (overall 0.05)", a level above
// the design's, and for a third of 0.05 "0.017 to 0.0167".
func TestOneLookTestsAtAlpha(t *testing.T) {
	for _, alpha := range []float64{0.05, 0.05 / 3} {
		s, err := NewSequential(3, 3, alpha)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.LevelAt(3); got != alpha {
			t.Errorf("alpha %g: the one look tests at %g", alpha, got)
		}
		if d, want := s.Describe(), fmt.Sprintf("sequential 3 pairs, one look at level %s (overall %s)", numfmt.Significant(alpha, 3), numfmt.Significant(alpha, 3)); !strings.HasPrefix(d, want) {
			t.Errorf("design %q, want it to start %q", d, want)
		}
	}
}

// The design line names the futility stop only where it can stop a
// campaign: from FutilityFrom pairs, before the last look. A campaign of
// at most 4 or 6 pairs said "stopping undecided from pair 6" of a stop
// that never applies.
func TestDescribeNamesTheFutilityStopOnlyWhereItApplies(t *testing.T) {
	for maxPairs, want := range map[int]bool{4: false, FutilityFrom: false, FutilityFrom + 1: true, DefaultMaxPairs: true} {
		s, err := NewSequential(MinLookPairs, maxPairs, 0.05)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(s.Describe(), "stopping undecided"); got != want {
			t.Errorf("at most %d pairs: %q", maxPairs, s.Describe())
		}
	}
}
