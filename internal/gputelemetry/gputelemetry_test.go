package gputelemetry

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Lines in the format of nvidia-smi --query-gpu=<Fields>
// --format=csv,noheader,nounits (and with units, as --format=csv prints
// them): a value the GPU does not have is NaN, whichever way it is said.
func TestParseLineOfNvidiaSmiFormats(t *testing.T) {
	s, err := ParseLine("2026/12/02 01:14:09.123, 0, GPU-5c2a1e7e-6f1b-2c4d-9e1a-0b3c4d5e6f70, 1980, 3201, 512.34, 700.00, 45, 87, 0x0000000000000004\n")
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasTime || s.Time.Nanosecond() != 123e6 || s.Index != 0 || s.UUID != "GPU-5c2a1e7e-6f1b-2c4d-9e1a-0b3c4d5e6f70" || s.SMClockMHz != 1980 ||
		s.MemClockMHz != 3201 || s.PowerW != 512.34 || s.PowerLimitW != 700 || s.TemperatureC != 45 || s.UtilizationPct != 87 || !s.HasReasons || s.Reasons != 4 {
		t.Errorf("nounits: %+v", s)
	}
	s, err = ParseLine("2026/12/02 01:14:09.323, 1, GPU-1, 1410 MHz, 1593 MHz, [N/A], [Not Supported], 39, 0 %, [N/A]")
	if err != nil {
		t.Fatal(err)
	}
	if s.SMClockMHz != 1410 || s.UtilizationPct != 0 || !math.IsNaN(s.PowerW) || !math.IsNaN(s.PowerLimitW) || s.HasReasons {
		t.Errorf("units and values not there: %+v", s)
	}
	for _, bad := range []string{"", "No devices were found", "2026/12/02 01:14:09.123, x, GPU-1, 1, 1, 1, 1, 1, 1, 0x0"} {
		if _, err := ParseLine(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	samples, malformed := Parse([]byte("2026/12/02 01:14:09.123, 0, GPU-1, 1980, 3201, 500, 700, 45, 87, 0x0\nFailed to query\n\n2026/12/02 01:14:09.1"))
	if len(samples) != 1 || malformed != 2 {
		t.Errorf("%d samples, %d malformed: want 1 and 2 (an error line, a line cut short)", len(samples), malformed)
	}
}

// samples are n lines of one GPU every 200 ms whose reasons are given
// by reasons(i).
func samples(gpu, n int, clock float64, reasons func(i int) uint64) []Sample {
	start := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	var out []Sample
	for i := range n {
		out = append(out, Sample{Time: start.Add(time.Duration(i) * 200 * time.Millisecond), HasTime: true, Index: gpu, UUID: "GPU-x",
			SMClockMHz: clock, MemClockMHz: 3201, PowerW: 690, PowerLimitW: 700, TemperatureC: 60, UtilizationPct: 100,
			Reasons: reasons(i), HasReasons: true})
	}
	return out
}

// A GPU power-capped for most of the phase is throttled sw_power_cap for
// that time; one idle, or at its set application clocks, is not; a
// reason below the allowed share is not.
func TestThrottledNamesGPUReasonAndDuration(t *testing.T) {
	capped := samples(0, 50, 1500, func(i int) uint64 {
		if i >= 10 {
			return 0x4 | 0x1
		}
		return 0
	})
	idle := samples(1, 50, 1980, func(int) uint64 { return 0x1 | 0x2 })
	brief := samples(2, 50, 1980, func(i int) uint64 {
		if i < 5 {
			return 0x40
		}
		return 0
	})
	gpus := Summarize(append(append(capped, idle...), brief...), 200*time.Millisecond)
	if len(gpus) != 3 || gpus[0].SpanMS != 10000 || gpus[0].ThrottledMS["sw_power_cap"] != 8000 || gpus[1].ThrottledMS["gpu_idle"] != 10000 {
		t.Fatalf("summaries %+v", gpus)
	}
	th := Throttled(gpus, 0.2)
	if len(th) != 1 || th[0].Index != 0 || th[0].Reason != "sw_power_cap" || th[0].Duration != 8*time.Second || th[0].Fraction() != 0.8 {
		t.Errorf("throttled %+v: want GPU 0 sw_power_cap for 8s of 10s", th)
	}
	if th := Throttled(gpus, 0.05); len(th) != 2 || th[1].Reason != "hw_thermal_slowdown" {
		t.Errorf("at 5%% %+v: want GPU 2's hw_thermal_slowdown too", th)
	}
	if m, ok := MeanSMClock(gpus); !ok || math.Abs(m-(1500+1980+1980)/3.0) > 1e-9 {
		t.Errorf("mean SM clock %v", m)
	}
	if ReasonName(0x800) != "0x800" {
		t.Errorf("an unknown bit is named %q", ReasonName(0x800))
	}
}

// fakeSmi writes an nvidia-smi that prints a sample every 10 ms in its
// -lms loop; script is the shell run first (to refuse the newer field's
// name, or exit early).
func fakeSmi(t *testing.T, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "nvidia-smi")
	body := "#!/bin/sh\n" + script + `
case "$*" in *-lms*) ;; *) exit 0 ;; esac
while :; do echo "2026/12/02 01:14:09.123, 0, GPU-1, 1980, 3201, 500, 700, 45, 87, 0x0000000000000000"; sleep 0.01; done
`
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// The sampler keeps nvidia-smi's lines within its cap, downsampling the
// rest;
// a stop ends it (one that ignores SIGTERM too, after the grace); a
// driver that does not know clocks_event_reasons is asked the older name.
func TestSamplerIsBoundedAndStops(t *testing.T) {
	dir := t.TempDir()
	smi := fakeSmi(t, `case "$*" in *clocks_event_reasons*) echo 'Field "clocks_event_reasons.active" is not a valid field to query.' >&2; exit 2;; esac
trap '' TERM`)
	s := Start(Options{Path: smi, Dir: dir, Interval: 10 * time.Millisecond, MaxLines: 5, Deadline: time.Minute, Grace: 100 * time.Millisecond})
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	rec := s.Stop()
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("stopping took %s", took)
	}
	if rec.Error != "" || rec.Lines != 5 || rec.Downsampled == 0 || len(rec.Strides) == 0 || rec.Fields[9] != ThrottleField || !strings.Contains(strings.Join(rec.Command, " "), ThrottleField) {
		t.Errorf("record %+v: want 5 lines kept, the rest downsampled, the older field's name", rec)
	}
	data, err := os.ReadFile(filepath.Join(dir, SamplesFile))
	if err != nil {
		t.Fatal(err)
	}
	if got, malformed := Parse(data); len(got) != 5 || malformed != 0 {
		t.Errorf("%d samples, %d malformed in the file", len(got), malformed)
	}
}

// A sampler that ends before it is stopped says so, with its last line
// of standard error; one past its deadline is stopped by it.
func TestSamplerEndedEarlyOrPastItsDeadline(t *testing.T) {
	early := Start(Options{Path: fakeSmi(t, `case "$*" in *-lms*) echo "Unable to determine the device handle for GPU0: Unknown Error" >&2; exit 15;; esac`),
		Dir: t.TempDir(), Deadline: time.Minute, Grace: time.Second})
	time.Sleep(200 * time.Millisecond)
	if rec := early.Stop(); !strings.Contains(rec.Error, "ended before the measured phase did") || !strings.Contains(rec.Error, "Unknown Error") || rec.Fields[9] != EventField {
		t.Errorf("record %+v", rec)
	}
	s := Start(Options{Path: fakeSmi(t, ""), Dir: t.TempDir(), Interval: 10 * time.Millisecond, Deadline: 100 * time.Millisecond, Grace: time.Second})
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		t.Fatal("the sampler outlived its deadline")
	}
	if rec := s.Stop(); rec.Error != "" || rec.Lines == 0 {
		t.Errorf("record %+v", rec)
	}
	missing := Start(Options{Path: filepath.Join(t.TempDir(), "nvidia-smi"), Dir: t.TempDir(), Deadline: time.Minute})
	if rec := missing.Stop(); !strings.Contains(rec.Error, "could not be started") {
		t.Errorf("record %+v", rec)
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add("2026/12/02 01:14:09.123, 0, GPU-1, 1980, 3201, 512.34, 700.00, 45, 87, 0x0000000000000004")
	f.Add("2026/12/02 01:14:09.323, 1, GPU-1, 1410 MHz, 1593 MHz, [N/A], [Not Supported], 39, 0 %, [N/A]")
	f.Fuzz(func(t *testing.T, line string) {
		s, err := ParseLine(line)
		if err != nil {
			return
		}
		gpus := Summarize([]Sample{s, s}, 200*time.Millisecond)
		if len(gpus) != 1 || gpus[0].Samples != 2 || math.IsNaN(gpus[0].MeanSMClockMHz) || math.IsInf(gpus[0].MeanSMClockMHz, 0) {
			t.Fatalf("%q summarised as %+v", line, gpus)
		}
	})
}

// Start asks nvidia-smi nothing before its loop: a query before it (which
// name the driver gives the clock reasons) held every run's client back
// by an nvidia-smi call, about 40 ms on an H200 host. Here each call
// takes a second to answer; Start returns at once, and the driver that
// takes the newer name is asked it.
func TestStartDoesNotWaitForNvidiaSmi(t *testing.T) {
	smi := fakeSmi(t, `sleep 1`)
	begin := time.Now()
	s := Start(Options{Path: smi, Dir: t.TempDir(), Interval: 10 * time.Millisecond, Deadline: time.Minute, Grace: 100 * time.Millisecond})
	took := time.Since(begin)
	rec := s.Stop()
	if took > 500*time.Millisecond {
		t.Errorf("Start took %s: it waited for nvidia-smi", took)
	}
	if rec.Fields[9] != EventField || rec.Error != "" {
		t.Errorf("record %+v: want the newer field's name, no error", rec)
	}
}
