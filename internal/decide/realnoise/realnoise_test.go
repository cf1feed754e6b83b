package realnoise

import (
	"math/rand/v2"
	"testing"
)

// lag1 is the lag-1 autocorrelation of x about its mean.
func lag1(x []float64) float64 {
	var m float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	var num, den float64
	for i, v := range x {
		den += (v - m) * (v - m)
		if i > 0 {
			num += (v - m) * (x[i-1] - m)
		}
	}
	return num / den
}

// The drawn noise keeps the real runs' serial dependence: campaigns'
// worth of draws (28 runs each, the default design's most) show the
// series' lag-1 autocorrelation, which runs drawn one at a time would
// not (about -1/28 within each campaign).
func TestDrawKeepsTheSeriesAutocorrelation(t *testing.T) {
	s := MustLoad("quickstart-quiet-16-cores.calibration.json")
	want := lag1(s.Logs)
	if want < 0.1 {
		t.Fatalf("the series' lag-1 autocorrelation is %.3f: the test needs a correlated series", want)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var sum float64
	const campaigns = 4000
	for range campaigns {
		sum += lag1(s.Draw(r, 28))
	}
	got := sum / campaigns
	// Within a campaign the mean is its own, which biases a short
	// series' autocorrelation down by about (1+4ρ)/n; the joins between
	// blocks lower it a little more.
	if got < want-0.12 || got > want+0.02 {
		t.Errorf("drawn campaigns' lag-1 autocorrelation %.3f, the series' %.3f", got, want)
	}
	if got < 0.05 {
		t.Errorf("drawn campaigns' lag-1 autocorrelation %.3f: the draw lost the series' dependence", got)
	}
}

// Every drawn value is a run of the series, and every block is BlockRuns
// consecutive runs of it.
func TestDrawTakesConsecutiveRuns(t *testing.T) {
	s := MustLoad("quickstart-quiet-16-cores.calibration.json")
	where := map[float64]int{}
	for i, v := range s.Logs {
		where[v] = i
	}
	e := s.Draw(rand.New(rand.NewPCG(3, 4)), 3*BlockRuns+5)
	if len(e) != 3*BlockRuns+5 {
		t.Fatalf("drew %d runs, want %d", len(e), 3*BlockRuns+5)
	}
	for i, v := range e {
		at, ok := where[v]
		if !ok {
			t.Fatalf("run %d's noise %v is no run of the series", i, v)
		}
		if i%BlockRuns != 0 && at != where[e[i-1]]+1 {
			t.Errorf("run %d is the series' run %d, after its run %d: a block is not consecutive", i, at, where[e[i-1]])
		}
	}
}

func TestLoadRefusesWhatIsNotACalibration(t *testing.T) {
	if _, err := Load("no-such.calibration.json"); err == nil {
		t.Error("a missing file loaded")
	}
}
