// Package svgplot draws the parts every abbench plot shares, in one style:
// a white page, value axes with nice-number ticks and grid lines, axis
// labels and a legend, so that a plot can be pasted into a review as it
// is. The comparison plot and the history plot lay their data out
// themselves.
package svgplot

import (
	"math"

	"github.com/abbench/abbench/internal/numfmt"
)

// Axis is a value axis: its span, widened to whole ticks, and the ticks, a
// step of 1, 2 or 5 times a power of ten apart (Heckbert, "Nice numbers
// for graph labels", Graphics Gems, 1990).
type Axis struct {
	Lo, Hi, Step float64
	Ticks        []float64
	// Decimals is how many digits after the point the step needs.
	Decimals int
}

// NiceAxis is an axis holding lo..hi with about n ticks.
func NiceAxis(lo, hi float64, n int) Axis {
	if math.IsNaN(lo) || math.IsNaN(hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		pad := math.Max(math.Abs(lo)*0.05, 1)
		lo, hi = lo-pad, hi+pad
	}
	n = max(n, 2)
	step := niceNumber(niceNumber(hi-lo, false)/float64(n-1), true)
	exp := int(math.Floor(math.Log10(step) + 1e-9))
	a := Axis{Lo: math.Floor(lo/step+1e-9) * step, Hi: math.Ceil(hi/step-1e-9) * step, Step: step, Decimals: max(0, -exp)}
	for i := 0; ; i++ {
		v := a.Lo + float64(i)*step
		if v > a.Hi+step/2 {
			break
		}
		a.Ticks = append(a.Ticks, roundTo(v, a.Decimals))
	}
	return a
}

// Label is a tick's label: as many decimals as the step needs,
// thousands separated.
func (a Axis) Label(v float64) string {
	if math.Abs(v) < a.Step/1e6 {
		v = 0 // never "-0"
	}
	return numfmt.Fixed(v, a.Decimals)
}

// niceNumber is a 1, 2, 5 or 10 times a power of ten near x: the nearest
// when round, else the smallest at least x.
func niceNumber(x float64, round bool) float64 {
	if x <= 0 {
		return 1
	}
	exp := math.Floor(math.Log10(x))
	f := x / math.Pow(10, exp)
	var nf float64
	switch {
	case round && f < 1.5, !round && f <= 1:
		nf = 1
	case round && f < 3, !round && f <= 2:
		nf = 2
	case round && f < 7, !round && f <= 5:
		nf = 5
	default:
		nf = 10
	}
	return nf * math.Pow(10, exp)
}

// roundTo drops the float error a sum of steps leaves (0.30000000000000004).
func roundTo(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}
