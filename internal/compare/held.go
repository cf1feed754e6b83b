package compare

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/bundle"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/reason"
	"github.com/abbench/abbench/internal/rundir"
)

// machines requires one hardware class (CPU model, GPU models, host count)
// across the runs that recorded their machines, and warns on softer
// differences (drivers, clocks, kernel, governor, memory, image, and under
// Kubernetes the pod's image digest and its node's versions), and on a run
// under Kubernetes whose pod's facts are missing: they cannot be held equal.
func (g *gate) machines() {
	var ref *Run
	softSeen := map[string][]string{}
	softRuns := map[string]int{}
	for i := range g.runs {
		run := &g.runs[i]
		pod, missing, variant := podOf(*run)
		if len(run.Machines) == 0 && pod == nil && missing == "" {
			continue
		}
		items := append(machine.SoftItems(run.Machines), pod.SoftItems()...)
		if missing != "" {
			g.r.Warnings = append(g.r.Warnings, missing)
			items = append(items, variant) // a variant of its own, never equal to a pod's
		}
		soft := strings.Join(items, ", ")
		softSeen[soft] = items
		softRuns[soft]++
		if len(run.Machines) == 0 {
			continue
		}
		if ref == nil {
			ref = run
			continue
		}
		if a, b := machine.Class(ref.Machines), machine.Class(run.Machines); a != b || len(ref.Machines) != len(run.Machines) {
			rs := reason.New(reason.MachineMismatch, "run %s ran on %d host(s) [%s], run %s on %d [%s]: different hardware measures more than the arm",
				run.Path, len(run.Machines), b, ref.Path, len(ref.Machines), a)
			rs.Arm = run.Evidence.Arm
			g.add(rs)
		}
	}
	if len(softSeen) > 1 {
		g.r.Warnings = append(g.r.Warnings, "the runs' machines differ in softer facts (drivers, clocks, kernel, governor, memory, image or the pod's node): "+softDifference(softSeen, softRuns))
	}
}

// podOf is the facts of the Kubernetes pod a run ran in, from its signed
// provenance; or, for a run under Kubernetes whose bundle holds no facts
// of its pod, or none of a node its ranks registered from, the warning
// that says so and the soft item that stands for what is missing.
func podOf(run Run) (*machine.Pod, string, string) {
	prov := provenance(run)
	switch {
	case prov == nil:
		return nil, "", ""
	case prov.PodMissing() != "":
		return nil, fmt.Sprintf("run %s ran in Kubernetes namespace %s without its pod's facts (%s): its image digest and its node's kubelet, runtime and kernel versions are not held equal to the other runs'",
			run.Path, rundir.KubernetesNamespace(prov.Token), prov.PodMissing()), "pod facts missing"
	case prov.PodNodesUnread != "":
		return prov.Pod, fmt.Sprintf("run %s ran ranks in Kubernetes namespace %s on nodes without their facts (%s): those nodes' kubelet, runtime and kernel versions are not held equal to the other runs'",
			run.Path, rundir.KubernetesNamespace(prov.Token), prov.PodNodesUnread), "rank node facts missing"
	}
	return prov.Pod, "", ""
}

// sources requires every run that recorded its system's source revision to
// have run the same one (bundles record it when the scenario names a
// repository).
func (g *gate) sources() {
	refs := map[string]*bundle.SourceRevision{}
	refPaths := map[string]string{}
	for _, run := range g.runs {
		// Arms that are builds may run different code (the builds are
		// held by their hashes): their sources are held within an arm.
		key := ""
		if len(g.r.Builds) > 0 {
			key = run.Evidence.Arm
		}
		ref, refPath := refs[key], refPaths[key]
		prov := provenance(run)
		if prov == nil || prov.Source == nil {
			continue
		}
		if prov.Source.Dirty {
			g.r.Warnings = append(g.r.Warnings, fmt.Sprintf("run %s ran a dirty tree of %s (head %s)", run.Path, prov.Source.Repository, short(prov.Source.Head)))
		}
		if ref == nil {
			refs[key], refPaths[key] = prov.Source, run.Path
			continue
		}
		if prov.Source.Tree != ref.Tree || prov.Source.Dirty != ref.Dirty {
			g.add(reason.New(reason.ConfigMismatch, "run %s ran source tree %s (dirty %v), run %s tree %s (dirty %v): the arms ran different code",
				run.Path, short(prov.Source.Tree), prov.Source.Dirty, refPath, short(ref.Tree), ref.Dirty))
		}
	}
}

// builds holds an A/B of builds to one build per arm, across its runs,
// and names the arms' builds in the result.
func (g *gate) builds() {
	byArm := map[string]rundir.BuildFact{}
	from := map[string]string{}
	for _, run := range g.runs {
		e := run.Evidence
		if e.Build == nil {
			continue
		}
		if prev, ok := byArm[e.Arm]; ok {
			if prev.SHA256 != e.Build.SHA256 {
				g.add(reason.New(reason.BuildMismatch, "arm %s ran build sha256 %.12s in run %s but %.12s in run %s: an arm's runs must all run its one build",
					e.Arm, e.Build.SHA256, run.Path, prev.SHA256, from[e.Arm]))
			}
			continue
		}
		byArm[e.Arm], from[e.Arm] = *e.Build, run.Path
	}
	for _, arm := range slices.Sorted(maps.Keys(byArm)) {
		g.r.Builds = append(g.r.Builds, byArm[arm])
	}
}

// softDifference says, for each variant of the runs' softer facts, the
// facts not shared by every variant and how many runs had it: only what
// differs, so a reviewer sees "driver 580.1 in 3 runs; driver 590.2 in 3".
func softDifference(variants map[string][]string, runs map[string]int) string {
	shared := map[string]int{}
	for _, items := range variants {
		for _, it := range slices.Compact(slices.Sorted(slices.Values(items))) {
			shared[it]++
		}
	}
	var parts []string
	for _, key := range slices.Sorted(maps.Keys(variants)) {
		var own []string
		for _, it := range variants[key] {
			if shared[it] < len(variants) {
				own = append(own, it)
			}
		}
		if len(own) == 0 {
			own = []string{"(the same facts, on fewer hosts)"}
		}
		parts = append(parts, fmt.Sprintf("%s in %d run(s)", strings.Join(own, ", "), runs[key]))
	}
	return strings.Join(parts, "; ")
}
