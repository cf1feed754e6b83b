package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/montanaflynn/stats"
)

// Calibration is the run-to-run noise of one arm, measured by A/A runs in
// separate allocations, and the minimum detectable effect it allows.
type Calibration struct {
	Schema string    `json:"schema"`
	Arm    string    `json:"arm"`
	Metric string    `json:"metric"`
	N      int       `json:"n"`
	Values []float64 `json:"values"`
	Mean   float64   `json:"mean"`
	CV     float64   `json:"cv"`
	// MDEPct maps runs per arm (1 to 10) to the minimum detectable effect
	// in percent at alpha 0.05 (two-sided) and power 0.8.
	MDEPct map[string]float64 `json:"mde_pct"`
}

// CalibrationSchema names the calibration file format.
const CalibrationSchema = "abbench-calibration-v1"

// z values of the normal distribution: 1-alpha/2 for alpha 0.05, and power 0.8.
const zAlpha, zPower = 1.959963984540054, 0.8416212335729143

// Calibrate estimates the noise of values (one per A/A run).
func Calibrate(arm, metric string, values []float64) (*Calibration, error) {
	if len(values) < 3 {
		return nil, fmt.Errorf("calibration needs at least 3 runs, got %d", len(values))
	}
	mean, _ := stats.Mean(values)
	sd, _ := stats.StandardDeviationSample(values)
	if mean == 0 {
		return nil, fmt.Errorf("the mean of %s is 0", metric)
	}
	c := &Calibration{Schema: CalibrationSchema, Arm: arm, Metric: metric, N: len(values), Values: values, Mean: mean, CV: sd / mean, MDEPct: map[string]float64{}}
	for n := 1; n <= 10; n++ {
		// Two samples of n runs, each with standard deviation CV: the
		// difference of means has standard deviation CV*sqrt(2/n).
		c.MDEPct[strconv.Itoa(n)] = 100 * (zAlpha + zPower) * c.CV * math.Sqrt(2/float64(n))
	}
	return c, nil
}

// MDE is the minimum detectable effect, in percent, for n runs per arm.
func (c *Calibration) MDE(n int) (float64, bool) {
	v, ok := c.MDEPct[strconv.Itoa(min(max(n, 1), 10))]
	return v, ok
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
	if c.Schema != CalibrationSchema || len(c.MDEPct) == 0 {
		return nil, fmt.Errorf("%s is not an abbench calibration file (schema %q)", path, c.Schema)
	}
	return &c, nil
}
