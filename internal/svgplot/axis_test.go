package svgplot

import (
	"math"
	"slices"
	"testing"
)

// Ticks are 1, 2 or 5 times a power of ten apart, cover the span, and read
// as such (no 21,867 or 26,729 as the old plot printed).
func TestNiceAxis(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		step   float64
		ticks  []string
	}{
		{21867, 41315, 5000, []string{"20,000", "25,000", "30,000", "35,000", "40,000", "45,000"}},
		{295.2, 312.4, 5, []string{"295", "300", "305", "310", "315"}},
		{0.0012, 0.0047, 0.001, []string{"0.001", "0.002", "0.003", "0.004", "0.005"}},
		{-3.2, 4.1, 2, []string{"-4", "-2", "0", "2", "4", "6"}},
		{7, 7, 0.5, []string{"6.0", "6.5", "7.0", "7.5", "8.0"}},
	} {
		a := NiceAxis(c.lo, c.hi, 6)
		if math.Abs(a.Step-c.step) > c.step*1e-9 {
			t.Errorf("%v..%v: step %v, want %v", c.lo, c.hi, a.Step, c.step)
		}
		if a.Lo > c.lo || a.Hi < c.hi || a.Ticks[0] != a.Lo || a.Ticks[len(a.Ticks)-1] != a.Hi {
			t.Errorf("%v..%v: axis %v..%v ticks %v does not hold the span", c.lo, c.hi, a.Lo, a.Hi, a.Ticks)
		}
		var labels []string
		for _, v := range a.Ticks {
			if r := math.Abs(v/a.Step - math.Round(v/a.Step)); r > 1e-6 {
				t.Errorf("%v..%v: tick %v is not a multiple of %v", c.lo, c.hi, v, a.Step)
			}
			labels = append(labels, a.Label(v))
		}
		if c.ticks != nil && !slices.Equal(labels, c.ticks) {
			t.Errorf("%v..%v: labels %q, want %q", c.lo, c.hi, labels, c.ticks)
		}
	}
	if got := NiceAxis(0.0012, 0.0047, 6).Label(-0.0000000001); got != "0.000" {
		t.Errorf("label %q", got)
	}
}
