package gputelemetry

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ThrottleField and EventField are the two names nvidia-smi has given the
// active clock reasons bitmask: drivers before R535 know only the first,
// later ones document the second and keep the first as an alias.
const (
	ThrottleField = "clocks_throttle_reasons.active"
	EventField    = "clocks_event_reasons.active"
)

// Fields are the query's fields in the order the sampler asks them and
// Parse reads them; the last is ThrottleField or EventField, whichever
// the driver takes.
func Fields(reasons string) []string {
	return []string{"timestamp", "index", "uuid", "clocks.sm", "clocks.mem", "power.draw", "power.limit",
		"temperature.gpu", "utilization.gpu", reasons}
}

// timeLayout is nvidia-smi's timestamp ("2026/12/02 01:14:09.123"), in
// the node's local time.
const timeLayout = "2006/01/02 15:04:05.000"

// Sample is one GPU's line. A value nvidia-smi does not have ("[N/A]",
// "[Not Supported]", "N/A") is NaN; Reasons is valid only with HasReasons.
type Sample struct {
	Time                time.Time
	Index               int
	UUID                string
	SMClockMHz          float64
	MemClockMHz         float64
	PowerW, PowerLimitW float64
	TemperatureC        float64
	UtilizationPct      float64
	Reasons             uint64
	HasReasons, HasTime bool
	// Line is the line of the samples file it was read from (from 0);
	// Every how many of the GPU's lines it stands for (Spread; 0 or 1:
	// itself alone).
	Line, Every int
}

// ParseLine reads one line of --format=csv,noheader,nounits of Fields,
// with or without units (" MHz", " W", " %").
func ParseLine(line string) (Sample, error) {
	cells := strings.Split(strings.TrimSpace(line), ",")
	if len(cells) != len(Fields(EventField)) {
		return Sample{}, fmt.Errorf("%d fields, want %d (%s)", len(cells), len(Fields(EventField)), strings.Join(Fields(EventField), ","))
	}
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	var s Sample
	if t, err := time.ParseInLocation(timeLayout, cells[0], time.Local); err == nil {
		s.Time, s.HasTime = t, true
	}
	idx, err := strconv.Atoi(cells[1])
	if err != nil {
		return Sample{}, fmt.Errorf("index %q is not a number", cells[1])
	}
	s.Index, s.UUID = idx, cells[2]
	for i, p := range []*float64{&s.SMClockMHz, &s.MemClockMHz, &s.PowerW, &s.PowerLimitW, &s.TemperatureC, &s.UtilizationPct} {
		*p = number(cells[3+i])
	}
	if v, ok := strings.CutPrefix(cells[9], "0x"); ok {
		if r, err := strconv.ParseUint(v, 16, 64); err == nil {
			s.Reasons, s.HasReasons = r, true
		}
	}
	return s, nil
}

// number is a cell's value without its unit, NaN for one nvidia-smi does
// not have or that is no number.
func number(cell string) float64 {
	for _, unit := range []string{" MHz", " W", " %", " C"} {
		cell = strings.TrimSuffix(cell, unit)
	}
	v, err := strconv.ParseFloat(cell, 64)
	if err != nil || math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// Parse reads the sampler's file: every line a sample; a line that is
// not one (an error nvidia-smi printed between samples, a line cut by
// the stop) is counted in malformed, never guessed at.
func Parse(data []byte) (samples []Sample, malformed int) {
	n := -1
	for line := range bytes.Lines(data) {
		n++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, err := ParseLine(string(line))
		if err != nil {
			malformed++
			continue
		}
		s.Line = n
		samples = append(samples, s)
	}
	return samples, malformed
}
