package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"

	"github.com/abbench/abbench/internal/decide"
)

// Calibration is the run-to-run noise of one arm, measured by A/A runs in
// pairs, each run in its own allocation, and the number of pairs a
// comparison needs to find the smallest effect of interest. It plans a
// campaign (abbench run --calibration sets --max-pairs); it never moves
// the decision's threshold.
type Calibration struct {
	Schema string    `json:"schema"`
	Arm    string    `json:"arm"`
	Metric string    `json:"metric"`
	N      int       `json:"n"` // runs
	Values []float64 `json:"values"`
	decide.Noise
	// Effect is the smallest effect of interest (percent) and Alpha the
	// level the plan is for.
	Effect float64 `json:"effect_pct"`
	Alpha  float64 `json:"alpha"`
	// PairsNeeded is the number of pairs at which the paired t-test has
	// power 0.8 at Effect (at most 1000).
	PairsNeeded int `json:"pairs_needed"`
	// VerdictRate is the simulated share of campaigns of PairsNeeded pairs
	// that say improved when the true change is Effect and twice Effect:
	// the verdict also needs the estimate to reach Effect, so at Effect
	// itself it is near one half.
	VerdictRate map[string]float64 `json:"verdict_rate"`
}

// CalibrationSchema names the calibration file format.
const CalibrationSchema = "abbench-calibration-v2"

// Calibrate estimates the noise of values (A/A runs in plan order, taken
// in consecutive pairs) and plans a comparison at effect percent.
func Calibrate(arm, metric string, values []float64, effect, alpha float64) (*Calibration, error) {
	noise, err := decide.AANoise(values)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", metric, err)
	}
	if alpha <= 0 {
		alpha = decide.DefaultRule.Alpha
	}
	c := &Calibration{Schema: CalibrationSchema, Arm: arm, Metric: metric, N: len(values), Values: values, Noise: noise,
		Effect: effect, Alpha: alpha, VerdictRate: map[string]float64{}}
	c.PairsNeeded = decide.PairsFor(noise.PairedSD, effect, alpha, 0.8)
	for _, k := range []float64{1, 2} {
		c.VerdictRate[fmt.Sprintf("%gx", k)] = verdictRate(c.PairsNeeded, noise.PairedSD, k*effect, decide.Rule{Alpha: alpha, Effect: effect, HigherIsBetter: true, Method: decide.T})
	}
	return c, nil
}

// verdictRate simulates campaigns of n normal pairs (fixed seed).
func verdictRate(n int, sd, effect float64, rule decide.Rule) float64 {
	rng := rand.New(rand.NewPCG(0xca1, uint64(n)))
	const trials = 2000
	hits := 0
	d := make([]float64, min(n, 1000))
	for range trials {
		for i := range d {
			d[i] = math.Log1p(effect/100) + sd*rng.NormFloat64()
		}
		if decide.PairedLogs(d, rule).Verdict == Improved {
			hits++
		}
	}
	return float64(hits) / trials
}

// ReadCalibration reads a calibration file.
func ReadCalibration(path string) (*Calibration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Calibration
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if c.Schema != CalibrationSchema || c.PairsNeeded == 0 {
		return nil, fmt.Errorf("%s is not an abbench calibration file of schema %s (schema %q): calibrate again", path, CalibrationSchema, c.Schema)
	}
	return &c, nil
}
