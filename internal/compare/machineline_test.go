package compare

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/machine"
)

// The report's machine line says what a GPU reviewer asks first, from the
// runs' signed facts: the GPUs with their driver, CUDA, clocks, ECC, power
// limit and MIG mode, the CUDA runtime, the image and whether its digest
// is known, and the NCCL versions the ranks reported; in the table, the
// Markdown and the JSON.
func TestReportHasAMachineLine(t *testing.T) {
	gpu := machine.GPU{Name: "NVIDIA H200", Driver: "580.159.04", AppClockMHz: 1980, AppMemClockMHz: 3201, MaxSMClockMHz: 1980, ECC: "Enabled", MIG: "Disabled", PowerLimitW: 700}
	facts := machine.Facts{Host: "gpu1", CPUModel: "Xeon", Cores: 32, Kernel: "6.8", GPUs: []machine.GPU{gpu, gpu}, CUDADriver: "13.0", CUDARuntime: "13.0.2", Image: "pytorch:25.01"}
	runs := runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099}})
	for i := range runs {
		runs[i].Machines = []machine.Facts{facts}
		runs[i].prov = &bundle.Provenance{Machines: runs[i].Machines, NCCL: map[string]string{"nccl-1": "2.28.9+cuda13.0", "nccl-0": "2.28.9+cuda13.0"}}
	}
	r := Compare(runs, Options{Effect: 1})
	for _, want := range []string{"2 x NVIDIA H200 (driver 580.159.04, application clocks 1980/3201 MHz", "ECC enabled", "MIG disabled", "power limit 700 W",
		"driver supports CUDA 13.0", "CUDA runtime 13.0.2", "image pytorch:25.01, digest unknown", "NCCL 2.28.9+cuda13.0 (reported by nccl-0, nccl-1)"} {
		if !strings.Contains(r.Machine, want) {
			t.Errorf("machine line %q lacks %q", r.Machine, want)
		}
	}
	var text, md, js strings.Builder
	if err := NewReport(r).WriteText(&text); err != nil {
		t.Fatal(err)
	}
	NewReport(r).Markdown(&md)
	NewReport(r).Render(&js, "json", "")
	if !strings.Contains(text.String(), "\nmachine:  "+r.Machine+"\n") || !strings.Contains(md.String(), "- machine: ") || !strings.Contains(js.String(), `"machine": "run `) {
		t.Errorf("reports without the machine line:\n%s\n%s", text.String(), md.String())
	}
	// Runs that recorded no machine have no machine line.
	if plain := Compare(runsOf(map[string][]float64{"blocking": {1000, 1001, 999}, "async": {1100, 1101, 1099}}), Options{Effect: 1}); plain.Machine != "" {
		t.Errorf("machine line %q", plain.Machine)
	}
}
