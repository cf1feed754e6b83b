package loadgen

import (
	"math"
	"math/rand/v2"
	"time"
)

// Arrivals is the send time of each of n requests, from the run's start:
// all at 0 for a closed loop (rate 0: the concurrency paces them), else a
// gamma process of mean rate requests per second and shape burstiness (1:
// Poisson), the first at 0, as vLLM's benchmark draws it. It depends on
// its arguments alone: the same seed gives the same schedule in every arm.
func Arrivals(n int, rate, burstiness float64, seed uint64) []time.Duration {
	out := make([]time.Duration, n)
	if rate <= 0 {
		return out
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	var t float64 // seconds
	for k := 1; k < n; k++ {
		t += gamma(rng, burstiness) / (rate * burstiness)
		out[k] = time.Duration(t * float64(time.Second))
	}
	return out
}

// gamma draws from Gamma(shape, 1) (Marsaglia and Tsang; for a shape
// below 1, boosted by U^(1/shape)). Shape 1 is the exponential.
func gamma(rng *rand.Rand, shape float64) float64 {
	if shape == 1 {
		return rng.ExpFloat64()
	}
	if shape < 1 {
		u := 1 - rng.Float64() // in (0, 1]
		return gamma(rng, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := 1 - rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}
