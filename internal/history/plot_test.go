package history

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/abbench/abbench/internal/svgplot"
	"github.com/abbench/abbench/internal/svgplot/rendertest"
)

// nightly is 30 nightly runs, each of a commit, whose level drops 3% from
// the 21st.
func nightly() []Entry {
	var out []Entry
	for i := range 30 {
		v := 1000 * (1 + 0.004*math.Sin(float64(i)*2.3))
		if i >= 20 {
			v *= 0.97
		}
		out = append(out, Entry{Kind: KindRun, Key: fmt.Sprint(i), Scenario: "nightly", Arm: "main", Metric: "output_throughput", HigherBetter: true,
			Value: &v, Source: commit(i), Time: time.Date(2026, 10, 1+i, 2, 0, 0, 0, time.UTC)})
	}
	return out
}

// commit is a commit id for run i.
func commit(i int) string {
	sum := sha256.Sum256([]byte(fmt.Sprint("commit ", i)))
	return hex.EncodeToString(sum[:20])
}

// The history plot is one a reviewer can paste: an x axis by commit and
// date, a value axis labelled with the metric's unit, the change point
// marked with its run and change, a legend; it renders to a PNG that is
// drawn on, with the runs, the levels and the regression in their colours.
func TestSVGIsAPlotToPaste(t *testing.T) {
	series := BuildSeries(nightly(), Filter{}, Detector{})
	if len(series) != 1 || len(series[0].Changes) != 1 {
		t.Fatalf("series %+v", series)
	}
	var b bytes.Buffer
	if err := SVG(&b, series); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{
		"output_throughput (tokens/s)", "runs by start time (commit, date)",
		">" + commit(0)[:8] + "<", ">2026-10-01<", ">" + commit(28)[:8] + "<", // commits and dates label the axis
		"run 21: -2.9", "change point: regressed", "level: the mean between change points",
		"1,000<", // a nice tick, thousands separated
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the plot lacks %q", want)
		}
	}
	if n := strings.Count(s, "<circle"); n != 30 {
		t.Errorf("%d circles, want one per run", n)
	}
	img := rendertest.PNG(t, "history-nightly", b.Bytes())
	rendertest.Check(t, img, int(plotWidth), int(plotPanel+plotLegend), 0.02, svgplot.Blue, svgplot.Orange, svgplot.Red)
}

// Runs without a commit are labelled by date; a series of one run and an
// empty store still draw.
func TestSVGWithoutCommits(t *testing.T) {
	entries := nightly()[:5]
	for i := range entries {
		entries[i].Source = ""
	}
	solo := nightly()[0]
	solo.Scenario = "solo"
	series := BuildSeries(append(entries, solo), Filter{}, Detector{})
	var b bytes.Buffer
	if err := SVG(&b, series); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Count(s, "runs by start time (date)") != 1 || strings.Count(s, "runs by start time (commit, date)") != 1 {
		t.Errorf("axis titles:\n%s", s)
	}
	rendertest.Check(t, rendertest.PNG(t, "history-two", b.Bytes()), int(plotWidth), int(2*plotPanel+plotLegend), 0.01, svgplot.Blue)
	b.Reset()
	if err := SVG(&b, nil); err != nil || !strings.Contains(b.String(), "no runs in the store match") {
		t.Errorf("empty: %v %s", err, b.String())
	}
}

// A history of one day labels its runs by time of day, the day once in
// the axis's title, not the same date under every tick.
func TestSVGOfOneDayLabelsTheTimeOfDay(t *testing.T) {
	entries := nightly()[:6]
	for i := range entries {
		entries[i].Source = ""
		entries[i].Time = time.Date(2026, 10, 1, 9+i, 30, 0, 0, time.UTC)
	}
	var b bytes.Buffer
	if err := SVG(&b, BuildSeries(entries, Filter{}, Detector{})); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{">09:30<", ">14:30<", "runs by start time (time of day, UTC, 2026-10-01)"} {
		if !strings.Contains(s, want) {
			t.Errorf("the plot lacks %q", want)
		}
	}
	if n := strings.Count(s, ">2026-10-01<"); n > 0 {
		t.Errorf("%d ticks say the date, the same on each", n)
	}
}
