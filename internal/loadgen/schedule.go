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
	s := newSchedule(rate, burstiness, seed, 0, 0)
	out := make([]time.Duration, n)
	for k := range out {
		out[k] = s.next()
	}
	return out
}

// schedule draws the arrival times one at a time, as many as a run needs
// (a duration run does not know how many). Under a rate ramp the process
// is the same gamma process in operational time (its mean rate 1),
// mapped through the inverse of the ramp's cumulative rate, so the ramp
// changes when requests come and never which seed gives which gaps.
type schedule struct {
	rate, burstiness float64
	rampFrom         float64 // requests per second at 0, with rampOver
	rampOver         float64 // seconds; 0: no ramp
	rng              *rand.Rand
	k                int
	t                float64 // seconds, without a ramp
	work             float64 // operational time, with a ramp
}

func newSchedule(rate, burstiness float64, seed uint64, rampFrom float64, rampOver time.Duration) *schedule {
	s := &schedule{rate: rate, burstiness: burstiness, rampFrom: rampFrom, rampOver: rampOver.Seconds()}
	if rate > 0 {
		s.rng = rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	}
	return s
}

// next is the next request's send time.
func (s *schedule) next() time.Duration {
	if s.rate <= 0 {
		return 0
	}
	k := s.k
	s.k++
	if k == 0 {
		return 0
	}
	g := gamma(s.rng, s.burstiness)
	if s.rampOver <= 0 {
		s.t += g / (s.rate * s.burstiness)
		return time.Duration(s.t * float64(time.Second))
	}
	s.work += g / s.burstiness
	return time.Duration(s.rampTime(s.work) * float64(time.Second))
}

// rampTime is when the cumulative rate reaches w: the rate rises
// linearly from rampFrom to rate over rampOver seconds, then holds.
func (s *schedule) rampTime(w float64) float64 {
	r0, r1, T := s.rampFrom, s.rate, s.rampOver
	if done := (r0 + r1) * T / 2; w >= done {
		return T + (w-done)/r1
	}
	// Solve a·t² + r0·t = w with a = (r1-r0)/(2T), the root in [0, T].
	a := (r1 - r0) / (2 * T)
	if math.Abs(a) < 1e-12 {
		return w / r0
	}
	return (-r0 + math.Sqrt(r0*r0+4*a*w)) / (2 * a)
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
