package history

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The rank scorer finds the split the quadratic one does, with the same
// statistic, in the observed order and after each shuffle: on continuous
// values, on values with ties (rounded), and far from zero (where the
// prefix sums would cancel).
func TestRankSplitterMatchesQuadratic(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2))
		n := 6 + rng.IntN(90)
		xs := series(seed, n, 0.02, 0.05*rng.NormFloat64(), rng.IntN(n))
		switch seed % 3 {
		case 1:
			for i := range xs {
				xs[i] = math.Round(xs[i] / 10)
			}
		case 2:
			for i := range xs {
				xs[i] += 1e9
			}
		}
		minSize := 2 + int(seed%3)
		fast, slow := newRankSplitter(xs, minSize), newQuadraticSplitter(xs, minSize)
		fastRng, slowRng := rand.New(rand.NewPCG(seed, 3)), rand.New(rand.NewPCG(seed, 3))
		for shuffle := range 5 {
			ft, fq := fast.best()
			st, sq := slow.best()
			if ft != st || math.Abs(fq-sq) > 1e-9*math.Max(1, math.Abs(sq)) {
				t.Fatalf("seed %d, n %d, shuffle %d: rank scorer %d, %g; quadratic %d, %g", seed, n, shuffle, ft, fq, st, sq)
			}
			fast.shuffle(fastRng)
			slow.shuffle(slowRng)
		}
	}
}

// BuildSeries searches the series on every core; each series' change points
// are those Find gives it alone.
func TestBuildSeriesSearchesEachSeriesAsAlone(t *testing.T) {
	var entries []Entry
	var want [][]ChangePoint
	for s := range 12 {
		xs := series(uint64(s), 60, 0.01, 0.05*float64(s%3), 20+s)
		want = append(want, Detector{Seed: 7}.Find(xs))
		for i, x := range xs {
			e := runEntry(fmt.Sprintf("s%02d-%d", s, i), x)
			e.Arm, e.Time = fmt.Sprintf("arm-%02d", s), time.Unix(int64(i), 0)
			entries = append(entries, e)
		}
	}
	got := BuildSeries(entries, Filter{}, Detector{Seed: 7})
	if len(got) != len(want) {
		t.Fatalf("%d series, want %d", len(got), len(want))
	}
	for i, s := range got {
		if w := want[i]; len(s.Changes) != len(w) || (len(w) > 0 && !slices.Equal(s.Changes, w)) {
			t.Errorf("series %s: changes %+v, alone %+v", s.Arm, s.Changes, w)
		}
	}
}

// A permutation test that stops once its p must exceed MaxP decides as the
// whole test does, and a split it keeps has the whole test's p.
func TestPermutationStopsEarlyWithTheSameDecision(t *testing.T) {
	d := Detector{}.defaults()
	var stopped int
	for seed := uint64(1); seed <= 100; seed++ {
		step := []float64{0, 0.01, 0.03}[seed%3]
		xs := series(seed, 40, 0.01, step, 25)
		tau, score := newRankSplitter(xs, d.MinSize).best()
		if tau < 0 {
			t.Fatal("no split of 40 points")
		}
		whole := d.permutationP(newRankSplitter(xs, d.MinSize), score, rand.New(rand.NewPCG(seed, 4)), false)
		early := d.permutationP(newRankSplitter(xs, d.MinSize), score, rand.New(rand.NewPCG(seed, 4)), true)
		if (whole > d.MaxP) != (early > d.MaxP) || (whole <= d.MaxP && early != whole) {
			t.Fatalf("seed %d: p %g early, %g whole", seed, early, whole)
		}
		if early != whole {
			stopped++
		}
	}
	if stopped == 0 {
		t.Fatal("no test stopped early")
	}
}

// BenchmarkFind1000 searches a series of 1,000 runs (a few years of
// nightly runs) with a 3% step and one without; bench/history.sh times
// the whole history show.
func BenchmarkFind1000(b *testing.B) {
	stepped, flat := series(1, 1000, 0.01, 0.03, 700), series(2, 1000, 0.01, 0, 0)
	for b.Loop() {
		Detector{Seed: 1}.Find(stepped)
		Detector{Seed: 1}.Find(flat)
	}
}
