package main

import (
	"math"
	"testing"
)

// The record's latency statistics, as vLLM's client computes them with
// numpy: population standard deviation, percentiles linear between ranks.
func TestDescribeKnownAnswer(t *testing.T) {
	mean, median, std, p99 := describe([]float64{10, 1, 4, 2, 3})
	if mean != 4 || median != 3 || std != math.Sqrt(10) || math.Abs(p99-9.76) > 1e-12 {
		t.Fatalf("mean %v median %v std %v p99 %v, want 4, 3, sqrt(10), 9.76", mean, median, std, p99)
	}
	if _, median, _, p99 := describe([]float64{4, 1, 3, 2}); median != 2.5 || math.Abs(p99-3.97) > 1e-12 {
		t.Fatalf("even count: median %v p99 %v, want 2.5, 3.97", median, p99)
	}
	if mean, median, std, p99 := describe([]float64{5}); mean != 5 || median != 5 || std != 0 || p99 != 5 {
		t.Fatalf("one value: %v %v %v %v, want 5, 5, 0, 5", mean, median, std, p99)
	}
}
