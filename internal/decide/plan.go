package decide

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Noise is what an A/A campaign in pairs says about a metric's run-to-run
// noise, on the log scale (a fraction: 0.01 is about 1%).
type Noise struct {
	Pairs int `json:"pairs"`
	// PairedSD is the standard deviation of the pairs' log ratios: what a
	// paired comparison's test works against.
	PairedSD float64 `json:"paired_sd"`
	// WithinSD is the noise of one run around its pair (PairedSD/sqrt 2).
	WithinSD float64 `json:"within_pair_sd"`
	// BetweenSD is the noise shared by the two runs of a pair and differing
	// between pairs (allocation, machine state, drift): pairing removes it,
	// an unpaired comparison suffers it.
	BetweenSD float64 `json:"between_pair_sd"`
}

// AANoise estimates the noise of values, A/A runs of one arm in plan
// order, taken in consecutive pairs (a trailing odd run is left out).
func AANoise(values []float64) (Noise, error) {
	l, err := logs(values)
	if err != nil {
		return Noise{}, err
	}
	n := len(l) / 2
	if n < 2 {
		return Noise{}, fmt.Errorf("a calibration needs at least 2 pairs (4 runs), got %d run(s)", len(values))
	}
	d, means := make([]float64, n), make([]float64, n)
	for i := range n {
		d[i] = l[2*i+1] - l[2*i]
		means[i] = (l[2*i+1] + l[2*i]) / 2
	}
	_, sdD := meanSD(d)
	_, sdM := meanSD(means)
	within := sdD / math.Sqrt2
	// A pair's mean varies by the between-pair noise plus half the
	// within-pair variance.
	between := math.Sqrt(math.Max(0, sdM*sdM-within*within/2))
	return Noise{Pairs: n, PairedSD: sdD, WithinSD: within, BetweenSD: between}, nil
}

// PairsFor is the smallest number of pairs at which the paired t-test at
// alpha (two-sided) finds a change of effect percent with the given power,
// when the pairs' log ratios have standard deviation pairedSD; at most
// 1000.
func PairsFor(pairedSD, effect, alpha, power float64) int {
	L := math.Log1p(effect / 100)
	for n := 2; n < 1000; n++ {
		if TTestPower(n, pairedSD, L, alpha) >= power {
			return n
		}
	}
	return 1000
}

// TTestPower is the power of the two-sided paired t-test with n pairs at
// alpha against a true mean log ratio of shift: both tails of the
// noncentral t. (The shifted-t approximation it replaced was up to 0.23
// low at 3 pairs, so a calibration asked for more pairs than needed.)
func TTestPower(n int, sd, shift, alpha float64) float64 {
	if sd <= 0 {
		return 1
	}
	df := float64(n - 1)
	q := TQuantile(1-alpha/2, df)
	t := distuv.NoncentralT{Nu: df, Mu: math.Abs(shift) * math.Sqrt(float64(n)) / sd}
	return 1 - t.CDF(q) + t.CDF(-q)
}

// Drift fits the runs' residuals (each run's log value minus its arm's
// mean) against their position in the plan and tests the slope. A slope
// means the system drifted during the campaign: in blocked order that
// alone fakes a change; in pairs it widens the interval.
type Drift struct {
	PctPerRun float64 `json:"pct_per_run"`
	P         float64 `json:"p"`
}

// DriftOf is the drift of residuals at positions; ok is false below 4 runs.
func DriftOf(positions, residuals []float64) (Drift, bool) {
	n := len(positions)
	if n < 4 || len(residuals) != n {
		return Drift{}, false
	}
	mx, _ := meanSD(positions)
	my, _ := meanSD(residuals)
	var sxx, sxy float64
	for i := range positions {
		sxx += (positions[i] - mx) * (positions[i] - mx)
		sxy += (positions[i] - mx) * (residuals[i] - my)
	}
	if sxx == 0 {
		return Drift{}, false
	}
	slope := sxy / sxx
	var sse float64
	for i := range positions {
		e := residuals[i] - my - slope*(positions[i]-mx)
		sse += e * e
	}
	df := float64(n - 2)
	return Drift{PctPerRun: pct(slope), P: tP(slope, math.Sqrt(sse/df/sxx), df)}, true
}

// tP is the two-sided p of est/se on df degrees of freedom: 0 for a
// non-zero estimate with no error, 1 for zero.
func tP(est, se, df float64) float64 {
	switch {
	case se > 0:
		return 2 * (1 - distuv.StudentsT{Sigma: 1, Nu: df}.CDF(math.Abs(est/se)))
	case est != 0:
		return 0
	}
	return 1
}
