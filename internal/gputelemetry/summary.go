package gputelemetry

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"
)

// reasonNames are the clock event reasons by bit, under the names of
// nvidia-smi's clocks_event_reasons.* fields (NVML's
// nvmlClocksEventReason* values).
var reasonNames = map[uint64]string{
	0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap", 0x8: "hw_slowdown",
	0x10: "sync_boost", 0x20: "sw_thermal_slowdown", 0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown",
	0x100: "display_clock_setting",
}

// Slowdowns are the reasons that lower a working GPU's clocks below what
// it was set to run at: power and thermal limits and their hardware
// brakes. The others say the GPU idles or runs at clocks someone set
// (held equal as a machine fact), not that it was throttled.
var Slowdowns = []string{"sw_power_cap", "hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown"}

// ReasonName is bit's name, or its hexadecimal value for a bit this
// abbench does not know (a newer driver's).
func ReasonName(bit uint64) string {
	if n, ok := reasonNames[bit]; ok {
		return n
	}
	return fmt.Sprintf("0x%x", bit)
}

// GPU is what the samples of one GPU say.
type GPU struct {
	Index   int    `json:"index"`
	UUID    string `json:"uuid,omitempty"`
	Samples int    `json:"samples"`
	// SpanMS is the time the samples cover: each sample stands for the
	// time to the GPU's next one (at most five intervals, of its stride:
	// a longer gap was not watched), the last for one.
	SpanMS             int64   `json:"span_ms"`
	MeanSMClockMHz     float64 `json:"mean_sm_clock_mhz"`
	MinSMClockMHz      float64 `json:"min_sm_clock_mhz"`
	MeanMemClockMHz    float64 `json:"mean_mem_clock_mhz"`
	MeanPowerW         float64 `json:"mean_power_w"`
	PowerLimitW        float64 `json:"power_limit_w"`
	MaxTemperatureC    float64 `json:"max_temperature_c"`
	MeanUtilizationPct float64 `json:"mean_utilization_pct"`
	// ThrottledMS is the time each active clock event reason held, by
	// its name (every reason, idle included: Slowdowns says which count).
	ThrottledMS map[string]int64 `json:"throttled_ms,omitempty"`
}

// Summarize is each GPU's summary of samples taken every interval, by
// index. A value no sample of a GPU had is 0.
func Summarize(samples []Sample, interval time.Duration) []GPU {
	by := map[int][]Sample{}
	for _, s := range samples {
		by[s.Index] = append(by[s.Index], s)
	}
	var gpus []GPU
	for idx, ss := range by {
		gpus = append(gpus, summarizeOne(idx, ss, interval))
	}
	slices.SortFunc(gpus, func(a, b GPU) int { return cmp.Compare(a.Index, b.Index) })
	return gpus
}

func summarizeOne(idx int, ss []Sample, interval time.Duration) GPU {
	g := GPU{Index: idx, UUID: ss[0].UUID, Samples: len(ss), MinSMClockMHz: math.NaN()}
	var sm, mem, power, util mean
	for i, s := range ss {
		span := spanOf(ss, i, interval)
		g.SpanMS += span.Milliseconds()
		sm.add(s.SMClockMHz)
		mem.add(s.MemClockMHz)
		power.add(s.PowerW)
		util.add(s.UtilizationPct)
		if !math.IsNaN(s.SMClockMHz) && !(s.SMClockMHz >= g.MinSMClockMHz) {
			g.MinSMClockMHz = s.SMClockMHz
		}
		if !math.IsNaN(s.PowerLimitW) {
			g.PowerLimitW = s.PowerLimitW
		}
		if !math.IsNaN(s.TemperatureC) {
			g.MaxTemperatureC = max(g.MaxTemperatureC, s.TemperatureC)
		}
		for r := s.Reasons; s.HasReasons && r != 0; r &= r - 1 {
			if g.ThrottledMS == nil {
				g.ThrottledMS = map[string]int64{}
			}
			g.ThrottledMS[ReasonName(1<<bits.TrailingZeros64(r))] += span.Milliseconds()
		}
	}
	if math.IsNaN(g.MinSMClockMHz) {
		g.MinSMClockMHz = 0
	}
	g.MeanSMClockMHz, g.MeanMemClockMHz, g.MeanPowerW, g.MeanUtilizationPct = sm.value(), mem.value(), power.value(), util.value()
	return g
}

// spanOf is the time sample i of one GPU stands for: to its next sample,
// at most five times what one sample stands for (a longer gap was not
// watched), or, for the last, what one sample stands for.
func spanOf(ss []Sample, i int, interval time.Duration) time.Duration {
	one := ss[i].stands(interval)
	if i+1 == len(ss) || !ss[i].HasTime || !ss[i+1].HasTime {
		return one
	}
	gap := ss[i+1].Time.Sub(ss[i].Time)
	if gap < 0 {
		return one // a clock stepped back: the interval asked for
	}
	return min(gap, 5*one)
}

// mean is a running mean that leaves out values nvidia-smi did not have.
type mean struct {
	sum float64
	n   int
}

func (m *mean) add(v float64) {
	if !math.IsNaN(v) {
		m.sum += v
		m.n++
	}
}

func (m *mean) value() float64 {
	if m.n == 0 {
		return 0
	}
	return m.sum / float64(m.n)
}

// Throttle is one GPU held back by one slowdown reason for longer than
// allowed.
type Throttle struct {
	Index    int
	UUID     string
	Reason   string
	Duration time.Duration
	Span     time.Duration
}

// Fraction is the share of the GPU's sampled time the reason held.
func (t Throttle) Fraction() float64 {
	if t.Span <= 0 {
		return 0
	}
	return float64(t.Duration) / float64(t.Span)
}

// Throttled lists each GPU and slowdown reason that held for more than
// maxFraction (0.2: a fifth) of the GPU's sampled time, by GPU then
// reason.
func Throttled(gpus []GPU, maxFraction float64) []Throttle {
	var out []Throttle
	for _, g := range gpus {
		for _, r := range Slowdowns {
			ms := g.ThrottledMS[r]
			if g.SpanMS > 0 && float64(ms) > maxFraction*float64(g.SpanMS) {
				out = append(out, Throttle{Index: g.Index, UUID: g.UUID, Reason: r,
					Duration: time.Duration(ms) * time.Millisecond, Span: time.Duration(g.SpanMS) * time.Millisecond})
			}
		}
	}
	return out
}

// MeanSMClock is the mean SM clock of gpus weighted by their samples,
// and whether any sample had one.
func MeanSMClock(gpus []GPU) (float64, bool) {
	var sum float64
	n := 0
	for _, g := range gpus {
		if g.MeanSMClockMHz > 0 {
			sum += g.MeanSMClockMHz * float64(g.Samples)
			n += g.Samples
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}
