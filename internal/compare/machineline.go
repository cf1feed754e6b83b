package compare

import (
	"maps"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/machine"
)

// machineLine is the report's machine line: the machines of the first run
// that recorded them (machine.Describe; the gate warns where the others'
// softer facts differ) and, under Kubernetes, its pod (machine.Pod), then
// the NCCL versions its ranks reported, each with the ranks that reported
// it; "" when no run recorded any.
func (g *gate) machineLine() string {
	for _, run := range g.runs {
		prov := provenance(run)
		var nccl map[string]string
		if prov != nil {
			nccl = prov.NCCL
		}
		pod, _, _ := podOf(run)
		if len(run.Machines) == 0 && len(nccl) == 0 && pod == nil {
			continue
		}
		var parts []string
		if len(run.Machines) > 0 {
			parts = append(parts, machine.Describe(run.Machines))
		}
		if pod != nil {
			parts = append(parts, pod.Describe())
		}
		byVersion := map[string][]string{}
		for rank, v := range nccl {
			byVersion[v] = append(byVersion[v], rank)
		}
		for _, v := range slices.Sorted(maps.Keys(byVersion)) {
			ranks := byVersion[v]
			slices.Sort(ranks)
			parts = append(parts, "NCCL "+v+" (reported by "+strings.Join(ranks, ", ")+")")
		}
		return "run " + run.Path + ": " + strings.Join(parts, "; ")
	}
	return ""
}
