package numfmt

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestValue(t *testing.T) {
	for v, want := range map[float64]string{
		37997.4: "37,997", 39680: "39,680", 33440.2: "33,440", 1234567.8: "1,234,568",
		299.52: "299.52", 967.4: "967.4", 1000: "1,000", 2.5: "2.5", 0: "0",
		0.012345678: "0.012346", 1.2345e-7: "0.00000012345", -1234.56: "-1,234.6",
		99999.7: "100,000", -0.000001: "-0.000001", math.NaN(): "NaN", math.Inf(-1): "-Inf",
	} {
		if got := Value(v); got != want {
			t.Errorf("Value(%v) = %q, want %q", v, got, want)
		}
	}
}

// No value a person reads is in e-notation, whatever its size.
func TestNoExponent(t *testing.T) {
	for _, v := range []float64{3.968e+04, 3.344e4, 2.84e-09, 1e-300, 1e300, -7.5e-12} {
		for _, s := range []string{Value(v), P(math.Abs(v)), Plain(v), Fixed(v, 2)} {
			if strings.ContainsAny(s, "eE") {
				t.Errorf("%v printed as %q", v, s)
			}
		}
	}
}

func TestP(t *testing.T) {
	for p, want := range map[float64]string{0.003: "p=0.003", 0.0123456: "p=0.0123", 2.84e-09: "p<0.0001", 0.0001: "p=0.0001", 0.5: "p=0.5", 1: "p=1"} {
		if got := PEquals(p); got != want {
			t.Errorf("PEquals(%v) = %q, want %q", p, got, want)
		}
	}
	if got := P(2.84e-09); got != "<0.0001" {
		t.Errorf("P = %q", got)
	}
}

func TestFixed(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{{38000, 0, "38,000"}, {37997.5, 1, "37,997.5"}, {-0.25, 2, "-0.25"}, {1e6, -1, "1,000,000"}} {
		if got := Fixed(c.v, c.d); got != c.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}

// Plain reads back as the same float: a CSV cell loses nothing.
func TestPlainRoundTrips(t *testing.T) {
	for _, v := range []float64{38412.7123456789, 2.844e-09, 0.1, 1e21} {
		back, err := strconv.ParseFloat(Plain(v), 64)
		if err != nil || back != v {
			t.Errorf("Plain(%v) = %q reads back as %v (%v)", v, Plain(v), back, err)
		}
	}
}
