package campaign

import (
	"fmt"
	"path/filepath"

	"github.com/abbench/abbench/internal/compare"
	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/rundir"
)

// CensoredError says a campaign's evidence cannot be used (exit 3).
type CensoredError struct{ Msg string }

func (e *CensoredError) Error() string { return e.Msg }

// Calibrate derives the A/A noise of metric (empty: the runs' headline
// metric) from a calibration campaign's runs, in plan order and so in
// pairs, plans a comparison at the smallest effect of opts (0: the
// default compare decides by), and writes calibration.json into its
// directory. Every run must be accepted.
func Calibrate(r *Result, arm string, opts compare.Options, runs []compare.Run) (*compare.Calibration, string, error) {
	metric := opts.Metric
	if metric == "" && len(runs) > 0 && runs[0].Evidence != nil {
		metric = runs[0].Evidence.Headline()
	}
	var values []float64
	effect := opts.Effect
	for _, run := range runs {
		if run.Evidence == nil || !run.Evidence.Accepted {
			return nil, "", &CensoredError{fmt.Sprintf("calibration run %s: evidence not accepted: a calibration needs every run accepted", run.Path)}
		}
		if t := run.Evidence.Throughput; t != nil {
			if v, ok := t.Metrics[metric]; ok {
				values = append(values, v)
			}
		}
	}
	if effect == 0 {
		effect = decide.DefaultRule.Effect
	}
	c, err := compare.Calibrate(arm, metric, values, effect, opts.Alpha)
	if err != nil {
		return nil, "", err
	}
	path := filepath.Join(r.Out, rundir.CalibrationFile)
	return c, path, rundir.WriteJSON(path, c)
}
