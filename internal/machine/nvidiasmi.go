package machine

import (
	"context"
	"encoding/csv"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// gpuFields are what Collect asks nvidia-smi --query-gpu, by the names its
// --help-query-gpu documents (driver 580). Locked clocks (nvidia-smi -lgc)
// are not among them: no query field, nor -q -d CLOCK, reports them.
var gpuFields = []string{
	"name", "driver_version", "memory.total", "clocks.sm", "clocks.mem", "persistence_mode",
	"clocks.applications.graphics", "clocks.applications.memory", "clocks.default_applications.graphics", "clocks.max.sm",
	"ecc.mode.current", "power.limit", "mig.mode.current",
}

// basicGPUFields are the first six: a driver that refuses a field of
// gpuFields (an older one) is asked these alone.
var basicGPUFields = gpuFields[:6]

// gpus asks nvidia-smi, when it is installed, within timeout; none when it
// is not or fails.
func gpus(timeout time.Duration) []GPU {
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return nil
	}
	for _, fields := range [][]string{gpuFields, basicGPUFields} {
		if out, err := smi(path, timeout, "--query-gpu="+strings.Join(fields, ","), "--format=csv,nounits"); err == nil {
			return ParseQuery(out)
		}
	}
	return nil
}

// cudaDriver is the CUDA version the driver supports, as nvidia-smi
// --version says it ("" without nvidia-smi).
func cudaDriver(timeout time.Duration) string {
	path, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return ""
	}
	out, err := smi(path, timeout, "--version")
	if err != nil {
		return ""
	}
	return ParseVersion(out)["CUDA Version"]
}

func smi(path string, timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, args...).Output()
	return string(out), err
}

// headerAliases are the fields whose header nvidia-smi prints by their
// long name.
var headerAliases = map[string]string{"clocks.current.sm": "clocks.sm", "clocks.current.memory": "clocks.mem"}

// ParseQuery reads nvidia-smi --query-gpu's CSV with its header line
// (--format=csv, with or without nounits): each column by the field the
// header names, whatever the order and whichever fields are there. A
// value nvidia-smi does not have ("[N/A]", "[Not Supported]") stays empty.
func ParseQuery(out string) []GPU {
	r := csv.NewReader(strings.NewReader(strings.TrimSpace(out)))
	r.TrimLeadingSpace, r.FieldsPerRecord = true, -1
	rows, err := r.ReadAll()
	if err != nil || len(rows) < 2 {
		return nil
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		name, _, _ := strings.Cut(strings.TrimSpace(h), " [") // "clocks.current.sm [MHz]"
		if short, ok := headerAliases[name]; ok {
			name = short
		}
		col[name] = i
	}
	var gs []GPU
	for _, row := range rows[1:] {
		get := func(field string) string {
			if i, ok := col[field]; ok && i < len(row) {
				return value(row[i])
			}
			return ""
		}
		n := func(field string) int { v, _ := strconv.Atoi(get(field)); return v }
		watts, _ := strconv.ParseFloat(get("power.limit"), 64)
		gs = append(gs, GPU{Name: get("name"), Driver: get("driver_version"), MemoryMiB: n("memory.total"),
			SMClockMHz: n("clocks.sm"), MemClockMHz: n("clocks.mem"), Persistence: get("persistence_mode"),
			AppClockMHz: n("clocks.applications.graphics"), AppMemClockMHz: n("clocks.applications.memory"),
			DefaultAppClockMHz: n("clocks.default_applications.graphics"), MaxSMClockMHz: n("clocks.max.sm"),
			ECC: get("ecc.mode.current"), PowerLimitW: watts, MIG: get("mig.mode.current")})
	}
	return gs
}

// value is a cell without its unit ("1980 MHz", "700.00 W"), empty for
// what nvidia-smi does not have.
func value(cell string) string {
	v := strings.TrimSpace(cell)
	if strings.HasPrefix(v, "[") || v == "N/A" {
		return ""
	}
	for _, unit := range []string{" MHz", " MiB", " W", " %"} {
		v = strings.TrimSuffix(v, unit)
	}
	return v
}

// ParseVersion reads nvidia-smi --version's "KEY : VALUE" lines.
func ParseVersion(out string) map[string]string {
	kv := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			kv[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return kv
}
