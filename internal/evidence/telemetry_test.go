package evidence

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/gputelemetry"
	"github.com/abbench/abbench/internal/reason"
)

// gpuLines are n samples of two GPUs 200 ms apart; GPU 0 reports the
// reasons bitmask capped from sample capFrom on.
func gpuLines(n, capFrom int, capped string) string {
	var b strings.Builder
	for i := range n {
		reasons := "0x0000000000000000"
		if i >= capFrom {
			reasons = capped
		}
		ts := fmt.Sprintf("2026/12/02 01:00:%02d.%03d", i/5, 200*(i%5))
		fmt.Fprintf(&b, "%s, 0, GPU-aaaa, 1980, 3201, 690.10, 700.00, 71, 100, %s\n", ts, reasons)
		fmt.Fprintf(&b, "%s, 1, GPU-bbbb, 1980, 3201, [N/A], [N/A], 65, 100, 0x0000000000000001\n", ts)
	}
	return b.String()
}

func gpuRecord(lines int, errText string) string {
	return fmt.Sprintf(`{"schema": %q, "fields": [], "interval_ms": 200, "lines": %d, "error": %q}`, gputelemetry.Schema, lines, errText)
}

// A run whose GPU 0 reports power capping (sw_power_cap) for most of its
// measured phase is censored gpu-throttled, naming the GPU, the reason
// and for how long; one capped for a moment, or idle, is accepted with
// its telemetry; under telemetry.gpu: on a run without samples is
// telemetry-missing, under auto it is not.
func TestGPUThrottledCensorsTheRun(t *testing.T) {
	r := goodRun()
	r.files = map[string]string{gputelemetry.RecordFile: gpuRecord(100, ""), gputelemetry.SamplesFile: gpuLines(50, 10, "0x0000000000000004")}
	e := r.collect(t)
	if e.Accepted || len(e.Reasons) != 1 || e.Reasons[0].Code != reason.GPUThrottled ||
		!strings.Contains(e.Reasons[0].Detail, "GPU 0 (GPU-aaaa) was held back by sw_power_cap for 8s of the 10s sampled during the measured phase (80%; telemetry.throttled_max allows 20%)") {
		t.Fatalf("accepted %v, reasons %v", e.Accepted, e.Reasons)
	}
	if g := e.GPUTelemetry; g == nil || g.Samples != 100 || len(g.GPUs) != 2 || g.MeanSMClockMHz != 1980 || g.SMClocks != "warn" ||
		!slices.Contains(e.Inputs, gputelemetry.SamplesFile) || !slices.Contains(e.Inputs, gputelemetry.RecordFile) {
		t.Fatalf("telemetry %+v, inputs %v", e.GPUTelemetry, e.Inputs)
	}
	var text strings.Builder
	if err := e.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gpu 0 (GPU-aaaa): SM 1980 MHz (lowest 1980), memory 3201 MHz, 690 W of 700 W, up to 71 C, 100% busy, 10s sampled; held back: sw_power_cap 8s\n",
		"gpu 1 (GPU-bbbb): SM 1980 MHz (lowest 1980), memory 3201 MHz, power not reported, up to 65 C, 100% busy, 10s sampled\n"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the evidence's text lacks %q:\n%s", want, text.String())
		}
	}
	r.files[gputelemetry.SamplesFile] = gpuLines(50, 45, "0x0000000000000004")
	if e := r.collect(t); !e.Accepted || e.GPUTelemetry.GPUs[0].ThrottledMS["sw_power_cap"] != 1000 {
		t.Errorf("capped for 1s of 10s: accepted %v, reasons %v", e.Accepted, e.Reasons)
	}
	r.files[gputelemetry.RecordFile] = strings.Replace(gpuRecord(100, ""), `"lines": 100`, `"lines": 100, "strides": [{"from_line": 0, "every": 4}], "downsampled": 300`, 1)
	if e := r.collect(t); e.GPUTelemetry.GPUs[0].SpanMS != 9800+800 || e.GPUTelemetry.Downsampled != 300 {
		t.Errorf("samples that stand for every fourth: %+v", e.GPUTelemetry)
	}
	r.files[gputelemetry.RecordFile] = gpuRecord(100, "")
	r.yaml = scenarioYAML + "telemetry: {throttled_max: 5%}\n"
	if e := r.collect(t); e.Accepted || e.Reasons[0].Code != reason.GPUThrottled {
		t.Errorf("capped for 1s of 10s, 5%% allowed: accepted %v, reasons %v", e.Accepted, e.Reasons)
	}
	r.files[gputelemetry.SamplesFile] = gpuLines(50, 10, "0x0000000000000040")
	r.files[gputelemetry.RecordFile] = gpuRecord(100, "nvidia-smi ended before the measured phase did (exit status 15)")
	e = r.collect(t)
	if got := codesOf(e.Reasons); got != "telemetry-missing gpu-throttled" || !strings.Contains(e.Reasons[1].Detail, "hw_thermal_slowdown") {
		t.Errorf("thermal, then the sampler ended: %v", e.Reasons)
	}

	r = goodRun()
	if e := r.collect(t); !e.Accepted || e.GPUTelemetry != nil {
		t.Errorf("auto without samples: accepted %v, reasons %v", e.Accepted, e.Reasons)
	}
	r.yaml = scenarioYAML + "telemetry: {gpu: \"on\"}\n"
	if e := r.collect(t); e.Accepted || codesOf(e.Reasons) != "telemetry-missing" || !strings.Contains(e.Reasons[0].Detail, "nvidia-smi was not on the controller's PATH") {
		t.Errorf("on without samples: accepted %v, reasons %v", e.Accepted, e.Reasons)
	}
	r.files = map[string]string{gputelemetry.RecordFile: `{"schema": "abbench-gpu-telemetry-v9"}`}
	if e := r.collect(t); e.Accepted || codesOf(e.Reasons) != "telemetry-missing" || !strings.Contains(e.Reasons[0].Detail, "not abbench-gpu-telemetry-v1") {
		t.Errorf("another schema: %v", e.Reasons)
	}
}

func codesOf(rs []reason.Reason) string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Code))
	}
	return strings.Join(out, " ")
}
