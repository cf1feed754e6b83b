package machine

import (
	"fmt"
	"strconv"
	"strings"
)

// Describe is the hosts' facts in one line for a report, a host after
// another (" | "): what a GPU reviewer asks first (the GPUs, their driver
// and CUDA versions, clocks, ECC, power limit, MIG mode), then the CUDA
// runtime and the container image with its digest, or that it is unknown.
// A fact nvidia-smi did not report is left out.
func Describe(hosts []Facts) string {
	var parts []string
	for _, h := range hosts {
		p := fmt.Sprintf("%s: %s, %d cores, kernel %s", h.Key(), orUnknown(h.CPUModel), h.Cores, orUnknown(h.Kernel))
		if gpus := describeGPUs(h.GPUs); gpus != "" {
			p += "; " + gpus
			if h.CUDADriver != "" {
				p += "; driver supports CUDA " + h.CUDADriver
			}
		}
		if h.CUDARuntime != "" {
			p += "; CUDA runtime " + h.CUDARuntime
		}
		p += "; " + describeImage(h)
		if h.RankReported() {
			p += " (reported by " + strings.TrimPrefix(h.ReportedBy, rankPrefix) + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " | ")
}

// describeGPUs counts the GPUs alike (all but their current clocks) and
// describes each kind once: "2 x NVIDIA H200 (driver 580.159.04, ...)".
func describeGPUs(gpus []GPU) string {
	var kinds []string
	count := map[string]int{}
	for _, g := range gpus {
		d := describeGPU(g)
		if count[d] == 0 {
			kinds = append(kinds, d)
		}
		count[d]++
	}
	for i, k := range kinds {
		kinds[i] = strconv.Itoa(count[k]) + " x " + k
	}
	return strings.Join(kinds, ", ")
}

func describeGPU(g GPU) string {
	facts := []string{"driver " + orUnknown(g.Driver)}
	if g.AppClockMHz > 0 {
		facts = append(facts, fmt.Sprintf("application clocks %d/%d MHz (graphics/memory)", g.AppClockMHz, g.AppMemClockMHz))
	}
	if g.MaxSMClockMHz > 0 {
		facts = append(facts, fmt.Sprintf("max SM clock %d MHz", g.MaxSMClockMHz))
	}
	for _, f := range [][2]string{{"ECC", g.ECC}, {"MIG", g.MIG}, {"persistence", g.Persistence}} {
		if f[1] != "" {
			facts = append(facts, f[0]+" "+strings.ToLower(f[1]))
		}
	}
	if g.PowerLimitW > 0 {
		facts = append(facts, "power limit "+strconv.FormatFloat(g.PowerLimitW, 'f', -1, 64)+" W")
	}
	return g.Name + " (" + strings.Join(facts, ", ") + ")"
}

func describeImage(h Facts) string {
	switch {
	case h.Image == "" && h.ImageDigest == "":
		return "no container image recorded"
	case h.ImageDigest == "":
		return "image " + h.Image + ", digest unknown"
	case h.Image == "":
		return "image " + h.ImageDigest
	}
	return "image " + h.Image + " (" + h.ImageDigest + ")"
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
