package compare

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/svgplot"
	"github.com/abbench/abbench/internal/svgplot/rendertest"
)

// svgOf renders r's plot.
func svgOf(t *testing.T, r *Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := NewReport(r).SVG(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The comparison plot is one a reviewer can paste: the verdict with the
// interval in its title, the value axis labelled with the metric's unit
// at nice-number ticks, a second axis in percent, a legend naming the
// interval bar, and it renders to a PNG that is drawn on, with the
// interval in green (an improvement) and the runs' medians in their
// colours.
func TestSVGIsAPlotToPaste(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {24301.2, 24288.1, 24310.5}, "async": {38412.7, 38390.2, 38430.9}}), Options{Effect: 1})
	if r.Verdict != Improved {
		t.Fatalf("verdict %s: %v", r.Verdict, r.Reasons)
	}
	svg := svgOf(t, r)
	s := string(svg)
	for _, want := range []string{
		"improved: async vs blocking +58.", "95% interval [+", // the verdict and its interval
		"output_throughput (tokens/s)", "change vs baseline median (%)", // both axes, with units
		"change vs baseline, 95% interval (right axis)", "baseline median", "a run (treatment)", // the legend
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the plot lacks %q", want)
		}
	}
	ticks := regexp.MustCompile(`text-anchor="end">([0-9,.-]+)</text>`).FindAllStringSubmatch(s, -1)
	if len(ticks) < 4 {
		t.Fatalf("%d tick labels", len(ticks))
	}
	var vals []float64
	for _, m := range ticks {
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			t.Fatalf("tick %q: %v", m[1], err)
		}
		vals = append(vals, v)
	}
	step := vals[1] - vals[0]
	for i := 2; i < len(vals); i++ {
		if vals[i]-vals[i-1] != step {
			t.Errorf("ticks %v are not evenly apart", vals)
		}
	}
	if mant := step / pow10floor(step); mant != 1 && mant != 2 && mant != 5 {
		t.Errorf("tick step %v is not a nice number: %v", step, vals)
	}
	img := rendertest.PNG(t, "compare-improved", svg)
	rendertest.Check(t, img, int(svgWidth), int(svgHeight), 0.02, svgplot.Blue, svgplot.Grey, svgplot.Green)
}

func pow10floor(v float64) float64 {
	p := 1.0
	for p*10 <= v {
		p *= 10
	}
	for p > v {
		p /= 10
	}
	return p
}

// A censored comparison's plot says so in red with every reason's code,
// shows the raw values, and draws no interval.
func TestSVGOfACensoredComparison(t *testing.T) {
	runs := runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099}})
	runs[0].Evidence.Accepted = false
	runs[0].Evidence.Reasons = nil
	r := Compare(runs, Options{Effect: 1})
	if r.Verdict != Censored {
		t.Fatalf("verdict %s", r.Verdict)
	}
	svg := svgOf(t, r)
	if s := string(svg); !strings.Contains(s, "censored: ") || !strings.Contains(s, "raw values, not comparable: "+string(r.Reasons[0].Code)) || strings.Contains(s, "right axis") {
		t.Errorf("censored plot:\n%s", s)
	}
	rendertest.Check(t, rendertest.PNG(t, "compare-censored", svg), int(svgWidth), int(svgHeight), 0.01, svgplot.Red, svgplot.Blue, svgplot.Grey)
}

// The change bar is coloured by what it means: green for an improvement,
// red for a regression, grey for a change neither way; the legend's bar
// is the colour drawn.
func TestSVGColoursTheChangeByItsVerdict(t *testing.T) {
	for _, c := range []struct {
		async []float64
		want  string
	}{
		{[]float64{38412.7, 38390.2, 38430.9}, Improved},
		{[]float64{12150.6, 12144.1, 12155.3}, Regressed},
		{[]float64{24000.1, 24700.2, 24290.5}, Inconclusive},
	} {
		r := Compare(runsOf(map[string][]float64{"blocking": {24301.2, 24288.1, 24310.5}, "async": c.async}), Options{Effect: 1})
		if r.Verdict != c.want || len(r.Deltas) != 1 || r.Deltas[0].Interval == nil {
			t.Fatalf("verdict %s, want %s: %v", r.Verdict, c.want, r.Reasons)
		}
		s := string(svgOf(t, r))
		color := map[string]string{Improved: svgplot.Green, Regressed: svgplot.Red, Inconclusive: svgplot.Grey}[c.want]
		bar := `stroke="` + color + `" stroke-width="3"`
		if strings.Count(s, bar) != 4 || // the bar, its two caps, the legend's mark
			!strings.Contains(s, `l -6 -6 z" fill="`+color+`"`) {
			t.Errorf("%s: the change bar and its estimate are not %s:\n%s", c.want, color, s)
		}
		for _, other := range []string{svgplot.Green, svgplot.Red, svgplot.Grey} {
			if other != color && strings.Contains(s, `stroke="`+other+`" stroke-width="3"`) {
				t.Errorf("%s: a bar drawn in %s", c.want, other)
			}
		}
	}
}

// The value axis of a quantity that is never negative (a time per
// operation near zero) starts at zero at the lowest, not below it.
func TestSVGValueAxisOfTimesStaysAtOrAboveZero(t *testing.T) {
	r := Compare(runsOf(map[string][]float64{"blocking": {0.9, 1.4, 2.3, 0.8, 3.1}, "async": {0.2, 0.5, 1.9, 0.3, 2.8}}), Options{Effect: 1})
	s := string(svgOf(t, r))
	ticks := regexp.MustCompile(`text-anchor="end">([0-9,.-]+)</text>`).FindAllStringSubmatch(s, -1)
	if len(ticks) < 2 {
		t.Fatalf("%d tick labels", len(ticks))
	}
	for _, m := range ticks {
		if strings.HasPrefix(m[1], "-") {
			t.Errorf("a tick at %s: the values are all positive", m[1])
		}
	}
}

// Every metric a record format gives that has a unit says it on the
// plot's axis: hyperfine's and pytest-benchmark's times in seconds, go
// test -bench's per operation.
func TestMetricLabelsSayTheUnitOfEveryFormatsMetric(t *testing.T) {
	for metric, want := range map[string]string{
		"mean_time": "mean_time (s)", "user_time": "user_time (s)", "median_time": "median_time (s)",
		"time_per_op": "time_per_op (ns/op)", "bytes_per_op": "bytes_per_op (B/op)", "allocs_per_op": "allocs_per_op (allocs/op)",
		"mb_per_second": "mb_per_second (MB/s)", "ops_per_second": "ops_per_second (ops/s)",
		"output_throughput": "output_throughput (tokens/s)", "p99_ttft_ms": "p99_ttft_ms (ms)",
	} {
		if got := MetricLabel(metric); got != want {
			t.Errorf("%s: %q, want %q", metric, got, want)
		}
	}
}
