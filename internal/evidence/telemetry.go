package evidence

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/gputelemetry"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/scenarios"
)

// GPUTelemetry is what the GPU samples of the measured phase say, on the
// controller's node (package gputelemetry).
type GPUTelemetry struct {
	// Host is the node sampled: the controller's.
	Host       string `json:"host,omitempty"`
	IntervalMS int64  `json:"interval_ms"`
	// Samples are the lines read as samples; Malformed the lines that
	// were none; Downsampled the lines the sampler left out to keep a
	// long phase within its cap (the samples kept stand for them);
	// Dropped the lines it did not keep otherwise (past its sparsest
	// stride: the samples then end before the phase did).
	Samples     int `json:"samples"`
	Malformed   int `json:"malformed,omitempty"`
	Downsampled int `json:"downsampled,omitempty"`
	Dropped     int `json:"dropped,omitempty"`
	// Error is how the sampler failed, as it recorded it.
	Error string             `json:"error,omitempty"`
	GPUs  []gputelemetry.GPU `json:"gpus"`
	// MeanSMClockMHz is the mean SM clock of every sample, 0 when none
	// had one.
	MeanSMClockMHz float64 `json:"mean_sm_clock_mhz"`
	// SMClocks is the scenario's telemetry.sm_clocks, for compare: warn
	// or censor when the arms' mean SM clocks differ.
	SMClocks string `json:"sm_clocks"`
}

// telemetry reads the GPU samples the controller took while the run
// measured: a GPU held back by a slowdown reason for more than the
// scenario's share of its sampled time censors the run gpu-throttled;
// under telemetry.gpu: on, a run without samples is telemetry-missing.
func (c *collector) telemetry() {
	t := c.s.Telemetry
	if t.GPUMode() == scenarios.TelemetryOff {
		return
	}
	required := t.GPUMode() == scenarios.TelemetryOn
	missing := func(format string, args ...any) {
		if required {
			c.e.reason(reason.New(reason.TelemetryMissing, "telemetry.gpu is on, but "+format, args...))
		}
	}
	rec, samples, malformed, err := c.readTelemetry()
	if errors.Is(err, fs.ErrNotExist) {
		missing("the run has no GPU samples (%s): nvidia-smi was not on the controller's PATH, or the run ended before its measured phase", gputelemetry.RecordFile)
		return
	}
	if err != nil {
		c.e.reason(reason.New(reason.TelemetryMissing, "%v", err))
		return
	}
	gpus := gputelemetry.Summarize(samples, rec.Interval())
	mean, _ := gputelemetry.MeanSMClock(gpus)
	c.e.GPUTelemetry = &GPUTelemetry{Host: rec.Host, IntervalMS: rec.IntervalMS, Samples: len(samples), Malformed: malformed, Downsampled: rec.Downsampled, Dropped: rec.Dropped,
		Error: rec.Error, GPUs: gpus, MeanSMClockMHz: mean, SMClocks: t.ClockPolicy()}
	switch {
	case len(samples) == 0 && rec.Error != "":
		missing("nvidia-smi gave no samples: %s", rec.Error)
	case len(samples) == 0:
		missing("%s holds no samples", gputelemetry.SamplesFile)
	case rec.Error != "":
		// It sampled, then stopped: the rest of the phase was not watched.
		c.e.reason(reason.New(reason.TelemetryMissing, "the GPUs were sampled for part of the measured phase only: %s", rec.Error))
	}
	frac, _ := t.ThrottledFraction() // validated
	for _, th := range gputelemetry.Throttled(gpus, frac) {
		c.e.reason(reason.New(reason.GPUThrottled, "GPU %d (%s) was held back by %s for %s of the %s sampled during the measured phase (%.0f%%; telemetry.throttled_max allows %g%%)",
			th.Index, th.UUID, th.Reason, th.Duration.Round(time.Millisecond), th.Span.Round(time.Millisecond), 100*th.Fraction(), 100*frac))
	}
}

// readTelemetry reads the sampler's record and samples, noting both as
// inputs of the evidence.
func (c *collector) readTelemetry() (rec gputelemetry.Record, samples []gputelemetry.Sample, malformed int, err error) {
	rel, data, err := c.readLocal(gputelemetry.RecordFile)
	if err != nil {
		return rec, nil, 0, err
	}
	c.input(rel)
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, nil, 0, fmt.Errorf("%s does not parse: %v", rel, err)
	}
	if rec.Schema != gputelemetry.Schema {
		return rec, nil, 0, fmt.Errorf("%s is of schema %q, not %s that this abbench reads", rel, rec.Schema, gputelemetry.Schema)
	}
	if rec.Lines == 0 {
		return rec, nil, 0, nil // the sampler kept nothing, and may have made no file
	}
	rel, data, err = c.readLocal(gputelemetry.SamplesFile)
	if err != nil {
		return rec, nil, 0, fmt.Errorf("%s says %d lines were kept, but: %w", gputelemetry.RecordFile, rec.Lines, err)
	}
	c.input(rel)
	samples, malformed = gputelemetry.Parse(data)
	gputelemetry.Spread(samples, rec.Strides)
	return rec, samples, malformed, nil
}

// gpuLine says one sampled GPU for a person: its means, its peak
// temperature, the time sampled and the time each reason that is no
// idling held.
func gpuLine(g gputelemetry.GPU) string {
	power := "power not reported" // [N/A]: a GPU that does not say
	if g.MeanPowerW > 0 {
		power = fmt.Sprintf("%.0f W of %.0f W", g.MeanPowerW, g.PowerLimitW)
	}
	line := fmt.Sprintf("gpu %d (%s): SM %.0f MHz (lowest %.0f), memory %.0f MHz, %s, up to %.0f C, %.0f%% busy, %s sampled",
		g.Index, g.UUID, g.MeanSMClockMHz, g.MinSMClockMHz, g.MeanMemClockMHz, power, g.MaxTemperatureC, g.MeanUtilizationPct,
		time.Duration(g.SpanMS)*time.Millisecond)
	var held []string
	for _, r := range slices.Sorted(maps.Keys(g.ThrottledMS)) {
		if r != "gpu_idle" {
			held = append(held, fmt.Sprintf("%s %s", r, time.Duration(g.ThrottledMS[r])*time.Millisecond))
		}
	}
	if len(held) > 0 {
		line += "; held back: " + strings.Join(held, ", ")
	}
	return line
}
