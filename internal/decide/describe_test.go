package decide

import (
	"math"
	"testing"
)

func TestDescribeKnownAnswer(t *testing.T) {
	med, mean, sd := Describe([]float64{3, 1, 10, 2})
	if med != 2.5 || mean != 4 || sd != math.Sqrt(50.0/3) {
		t.Fatalf("median %v mean %v sd %v, want 2.5, 4, sqrt(50/3)", med, mean, sd)
	}
	if med, mean, sd := Describe([]float64{7}); med != 7 || mean != 7 || sd != 0 {
		t.Fatalf("one value: median %v mean %v sd %v, want 7, 7, 0", med, mean, sd)
	}
}
