package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Telemetry says what abbench samples on the controller's node while a
// run measures, and how the evidence holds it (docs/evidence.md, GPU
// telemetry). Its zero value is every default: the key may be left out.
type Telemetry struct {
	// GPU: "auto" (default) samples the GPUs when nvidia-smi is on the
	// controller's PATH; "on" requires it (a run without samples is
	// censored telemetry-missing); "off" samples nothing.
	GPU string `yaml:"gpu" json:"gpu"`
	// Interval is the time between samples (default 200ms).
	Interval Duration `yaml:"interval" json:"interval"`
	// ThrottledMax is the share of its sampled time ("20%", the default)
	// a GPU may spend held back by one slowdown reason (power cap,
	// thermal, hardware slowdown) before the run is censored gpu-throttled.
	ThrottledMax string `yaml:"throttled_max" json:"throttled_max"`
	// SMClocks is what compare does when the arms' mean SM clocks differ
	// by more than the smallest effect of interest: "warn" (default) or
	// "censor" (clock-mismatch).
	SMClocks string `yaml:"sm_clocks" json:"sm_clocks"`
}

// The values of Telemetry.GPU and Telemetry.SMClocks.
const (
	TelemetryAuto = "auto"
	TelemetryOn   = "on"
	TelemetryOff  = "off"
	ClocksWarn    = "warn"
	ClocksCensor  = "censor"
)

// DefaultThrottledMax is ThrottledMax's default, a fraction: a GPU held
// back for a fifth of the measured phase runs measurably slower, while a
// brief cap at a load step does not.
const DefaultThrottledMax = 0.2

// GPUMode is GPU, "auto" when unset.
func (t Telemetry) GPUMode() string {
	if t.GPU == "" {
		return TelemetryAuto
	}
	return t.GPU
}

// DefaultInterval is Interval's default.
const DefaultInterval = 200 * time.Millisecond

// SampleInterval is Interval, DefaultInterval when unset.
func (t Telemetry) SampleInterval() time.Duration {
	if t.Interval <= 0 {
		return DefaultInterval
	}
	return time.Duration(t.Interval)
}

// ThrottledFraction is ThrottledMax as a fraction (0.2 for "20%"),
// DefaultThrottledMax when unset.
func (t Telemetry) ThrottledFraction() (float64, error) {
	if t.ThrottledMax == "" {
		return DefaultThrottledMax, nil
	}
	num, ok := strings.CutSuffix(strings.TrimSpace(t.ThrottledMax), "%")
	pct, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if !ok || err != nil || pct < 0 || pct >= 100 || math.IsNaN(pct) {
		return 0, fmt.Errorf("throttled_max %q: a percentage at least 0 and below 100 of the measured phase, such as 20%%", t.ThrottledMax)
	}
	return pct / 100, nil
}

// ClockPolicy is SMClocks, "warn" when unset.
func (t Telemetry) ClockPolicy() string {
	if t.SMClocks == "" {
		return ClocksWarn
	}
	return t.SMClocks
}

// leaveDefaultsOut clears each value that is its default: a scenario made
// before telemetry: had none, and writing the defaults out would change
// its matched digest (its committed runs would no longer verify). So a
// default written and one left out encode alike.
func (t *Telemetry) leaveDefaultsOut() {
	if t.GPU == TelemetryAuto {
		t.GPU = ""
	}
	if time.Duration(t.Interval) == DefaultInterval {
		t.Interval = 0
	}
	if f, err := t.ThrottledFraction(); err == nil && f == DefaultThrottledMax {
		t.ThrottledMax = ""
	}
	if t.SMClocks == ClocksWarn {
		t.SMClocks = ""
	}
}

// telemetry checks the telemetry: key and the roles' metrics: what is
// sampled and scraped around the measured phase.
func (v *validator) telemetry() {
	v.roleMetrics()
	t := v.s.Telemetry
	if m := t.GPUMode(); m != TelemetryAuto && m != TelemetryOn && m != TelemetryOff {
		v.at(p("telemetry", "gpu"), "telemetry.gpu %q: auto (sample when nvidia-smi is on PATH), on (required) or off", t.GPU)
	}
	if t.Interval < 0 || t.Interval > 0 && time.Duration(t.Interval) < 10*time.Millisecond {
		v.at(p("telemetry", "interval"), "telemetry.interval %s: at least 10ms (nvidia-smi's -lms cannot sample faster), such as 200ms", t.Interval)
	}
	if _, err := t.ThrottledFraction(); err != nil {
		v.at(p("telemetry", "throttled_max"), "%v", err)
	}
	if c := t.ClockPolicy(); c != ClocksWarn && c != ClocksCensor {
		v.at(p("telemetry", "sm_clocks"), "telemetry.sm_clocks %q: warn or censor (when the arms' mean SM clocks differ by more than the smallest effect)", t.SMClocks)
	}
}
