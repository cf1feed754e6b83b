package gputelemetry

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// A phase far longer than the cap holds at full rate is kept whole, ever
// more sparsely and within the cap: its summary spans the whole phase, and
// a GPU power-capped for its last third is held back for about a third
// of it, as the full samples say.
func TestDownsampledSamplesSpanThePhase(t *testing.T) {
	const loops, gpus, maxLines = 2_000, 2, 1000
	start := time.Date(2026, 12, 2, 1, 0, 0, 0, time.Local)
	k := newKeeper(maxLines)
	var kept []byte
	lines := 0
	for i := range loops {
		ts := start.Add(time.Duration(i) * 200 * time.Millisecond).Format(timeLayout)
		for g := range gpus {
			reasons := "0x0000000000000000"
			if g == 0 && i >= 2*loops/3 {
				reasons = "0x0000000000000004"
			}
			line := fmt.Appendf(nil, "%s, %d, GPU-%d, 1980, 3201, 500, 700, 50, 99, %s\n", ts, g, g, reasons)
			if !k.full(lines) && k.keep(line, lines) {
				kept = append(kept, line...)
				lines++
			}
		}
	}
	if lines > maxLines || lines < maxLines*9/10 {
		t.Fatalf("%d lines kept of a cap of %d", lines, maxLines)
	}
	samples, malformed := Parse(kept)
	Spread(samples, k.strides)
	summary := Summarize(samples, 200*time.Millisecond)
	phase := float64(loops) * 0.2 * 1000
	for _, g := range summary {
		if math.Abs(float64(g.SpanMS)-phase)/phase > 0.1 || malformed != 0 {
			t.Errorf("GPU %d: %d samples span %d ms of the %.0f ms phase", g.Index, g.Samples, g.SpanMS, phase)
		}
	}
	if frac := float64(summary[0].ThrottledMS["sw_power_cap"]) / float64(summary[0].SpanMS); math.Abs(frac-1.0/3) > 0.05 {
		t.Errorf("GPU 0 capped for %.2f of the phase, want a third", frac)
	}
	if th := Throttled(summary, 0.2); len(th) != 1 || th[0].Index != 0 {
		t.Errorf("throttled %+v", th)
	}
}
