package campaign

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/abbench/abbench/evidence/compare"
	"github.com/abbench/abbench/internal/texttable"
	"github.com/abbench/abbench/rundir"
)

// CensoredError says a campaign's evidence cannot be used (exit 3).
type CensoredError struct{ Msg string }

func (e *CensoredError) Error() string { return e.Msg }

// Calibrate derives the A/A noise of metric (empty: the runs' headline
// metric) from a calibration campaign's runs and writes calibration.json
// into its directory. Every run must be accepted.
func Calibrate(r *Result, arm, metric string, runs []compare.Run) (*compare.Calibration, string, error) {
	if metric == "" && len(runs) > 0 {
		metric = runs[0].Evidence.Headline()
	}
	var values []float64
	for _, run := range runs {
		if !run.Evidence.Accepted {
			return nil, "", &CensoredError{fmt.Sprintf("calibration run %s: evidence not accepted: a calibration needs every run accepted", run.Path)}
		}
		if t := run.Evidence.Throughput; t != nil {
			if v, ok := t.Metrics[metric]; ok {
				values = append(values, v)
			}
		}
	}
	c, err := compare.Calibrate(arm, metric, values)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(r.Out, rundir.CalibrationFile)
	return c, path, rundir.WriteJSON(path, c)
}

// WriteCalibration prints a calibration and its minimum detectable effects.
func WriteCalibration(w io.Writer, c *compare.Calibration, path string) error {
	fmt.Fprintf(w, "calibration of arm %s on %s: %d A/A runs, mean %.1f, coefficient of variation %.2f%%\n\n", c.Arm, c.Metric, c.N, c.Mean, 100*c.CV)
	var rows [][]string
	for n := 1; n <= 10; n++ {
		mde, _ := c.MDE(n)
		rows = append(rows, []string{fmt.Sprint(n), fmt.Sprintf("%.2f%%", mde)})
	}
	if err := texttable.Write(w, []string{"runs per arm", "minimum detectable effect (alpha 0.05, power 0.8)"}, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nwritten to %s; use it with abbench compare --calibration %s\n", path, path)
	return err
}
