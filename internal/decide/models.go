package decide

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/abbench/abbench/internal/decide/realnoise"
)

func normalNoise(cv float64) func(*rand.Rand, []bool) []float64 {
	return func(r *rand.Rand, treated []bool) []float64 {
		e := make([]float64, len(treated))
		for i := range e {
			e[i] = cv * r.NormFloat64()
		}
		return e
	}
}

// Models are the suite's noise models; each has a run-to-run spread of
// about 1% unless its name says otherwise. The quickstart's 2% is what
// its A/A table in docs/statistics.md shows (pairs' ratios of about 2.8%
// sd at 10 pairs). Carry-over knows the arms from the order the campaign
// drew (treated).
var Models = []Model{
	{"normal, CV 0.5%", normalNoise(0.005)},
	{"normal, CV 1%", normalNoise(0.01)},
	{"normal, CV 3%", normalNoise(0.03)},
	{"normal, CV 5%", normalNoise(0.05)},
	{"the A/A quickstart's noise on a quiet machine, CV 2%", normalNoise(0.02)},
	{"lognormal (shape 0.5, right-skewed), CV 1%", func(r *rand.Rand, treated []bool) []float64 {
		const shape = 0.5
		mean := math.Exp(shape * shape / 2)
		sd := math.Sqrt((math.Exp(shape*shape) - 1) * math.Exp(shape*shape))
		e := make([]float64, len(treated))
		for i := range e {
			e[i] = math.Log1p(0.01 * (math.Exp(shape*r.NormFloat64()) - mean) / sd)
		}
		return e
	}},
	{"Student t, 3 df, scale 1%", func(r *rand.Rand, treated []bool) []float64 {
		e := make([]float64, len(treated))
		for i := range e {
			var chi float64
			for range 3 {
				z := r.NormFloat64()
				chi += z * z
			}
			e[i] = 0.01 / math.Sqrt(3) * r.NormFloat64() / math.Sqrt(chi/3)
		}
		return e
	}},
	{"5% of runs 20% slow, CV 1%", func(r *rand.Rand, treated []bool) []float64 {
		e := normalNoise(0.01)(r, treated)
		for i := range e {
			if r.Float64() < 0.05 {
				e[i] += math.Log(0.8)
			}
		}
		return e
	}},
	{"linear drift 0.2%/run, CV 1%", func(r *rand.Rand, treated []bool) []float64 {
		e := normalNoise(0.01)(r, treated)
		for i := range e {
			e[i] += 0.002 * float64(i)
		}
		return e
	}},
	{"two machine states 3% apart, CV 0.5%", func(r *rand.Rand, treated []bool) []float64 {
		e := normalNoise(0.005)(r, treated)
		for i := range e {
			if r.IntN(2) == 1 {
				e[i] += math.Log(0.97)
			}
		}
		return e
	}},
	{"second run of a pair 1% faster (order effect), CV 1%", func(r *rand.Rand, treated []bool) []float64 {
		e := normalNoise(0.01)(r, treated)
		for i := 1; i < len(e); i += 2 {
			e[i] += math.Log(1.01)
		}
		return e
	}},
	{"carry-over: the run after a treatment run 1% faster, CV 1%", func(r *rand.Rand, treated []bool) []float64 {
		e := normalNoise(0.01)(r, treated)
		for j := 1; j < len(treated); j++ {
			if treated[j-1] { // in the order the campaign drew
				e[j] += math.Log(1.01)
			}
		}
		return e
	}},
	{"AR(1) 0.5 from run to run, CV 1%", func(r *rand.Rand, treated []bool) []float64 {
		const phi = 0.5
		e := make([]float64, len(treated))
		x := 0.01 * r.NormFloat64()
		for i := range e {
			e[i] = x
			x = phi*x + math.Sqrt(1-phi*phi)*0.01*r.NormFloat64()
		}
		return e
	}},
	{"2% allocation effect per pair, CV 0.5%", func(r *rand.Rand, treated []bool) []float64 {
		e := normalNoise(0.005)(r, treated)
		for i := 0; i < len(e); i += 2 {
			a := 0.02 * r.NormFloat64()
			e[i] += a
			if i+1 < len(e) {
				e[i+1] += a
			}
		}
		return e
	}},
	// The real series come after the parametric models, so that those
	// keep their seeds (bench/statval seeds model i from 1000i).
	{"real quickstart runs, a quiet 16-core host, resampled in blocks of 12", realRuns("quickstart-quiet-16-cores.calibration.json")},
	{"real quickstart runs, a shared 2-core machine, resampled in blocks of 12", realRuns("quickstart-shared-2-cores.calibration.json")},
}

// realRuns is a model of real runs: each campaign's noise drawn from the
// series in blocks of consecutive runs, which keep its autocorrelation.
// The series is read on the model's first draw, not when the package
// starts: abbench itself imports decide and never draws.
func realRuns(file string) func(*rand.Rand, []bool) []float64 {
	load := sync.OnceValue(func() realnoise.Series { return realnoise.MustLoad(file) })
	return func(r *rand.Rand, treated []bool) []float64 { return load().Draw(r, len(treated)) }
}
