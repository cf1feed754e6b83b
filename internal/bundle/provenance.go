package bundle

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/machine"
	"github.com/abbench/abbench/internal/readonly"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// provenance is Write's second step: the run's provenance, from the input,
// the registrations as bundled (redacted), the machines and the recorded
// environments.
func (w *writer) provenance(in Input, regs []rundir.Registration) Provenance {
	st := in.Status
	prov := Provenance{Schema: ProvenanceSchema, Tool: in.Tool, Token: st.Token, Started: st.Started, Ended: st.Ended, Prompts: promptsOf(in.Scenario),
		Hosts: []string{}, Allocations: []string{}, Environment: w.environments(),
		Machines: w.machines(in.Machine), Source: sourceRevision(in.Scenario), Image: redact.URL(in.Scenario.Source.Image), Campaign: in.Campaign,
		NCCL: w.ncclVersions(), Containers: st.Containers}
	for _, reg := range regs {
		if !slices.Contains(prov.Hosts, reg.Host) {
			prov.Hosts = append(prov.Hosts, reg.Host)
		}
		if id := reg.Scheduler["SLURM_JOB_ID"]; id != "" && !slices.Contains(prov.Allocations, id) {
			prov.Allocations = append(prov.Allocations, id)
		}
		if rc := reg.Scheduler["SLURM_RESTART_COUNT"]; rc != "" {
			prov.RestartCount = rc
		}
	}
	slices.Sort(prov.Hosts)
	return prov
}

// machines are the facts of the run's hosts: the controller's host as the
// controller saw it, handed over in memory (coord/machine.json, which any
// rank can write, only names it); then the other nodes of the allocation,
// as their first rank reported them: recorded as reports, and never
// displacing the controller's. A report that does not read is left out.
func (w *writer) machines(controller *machine.Facts) []machine.Facts {
	var facts []machine.Facts
	if controller != nil {
		f := controller.Redacted()
		f.ReportedBy = machine.ByController
		facts = []machine.Facts{f}
	}
	for _, rel := range w.list(filepath.Join(rundir.CoordDir, rundir.MachinesDir)) {
		var f machine.Facts
		if data, err := w.read(rel); err == nil && json.Unmarshal(data, &f) == nil {
			facts = machine.Merge(facts, f.FromRank().Redacted())
		}
	}
	return facts
}

// ncclScanLimit bounds how much of a bundled log ncclVersions reads: NCCL
// reports its version when a communicator starts.
const ncclScanLimit = 64 << 20

// ncclVersions are the NCCL versions the bundled logs report, by ROLE-RANK
// (nil when none does): what the rank itself printed, so a report of the
// system under test, kept beside the bytes it came from.
func (w *writer) ncclVersions() map[string]string {
	var out map[string]string
	for _, rel := range w.files {
		if filepath.Ext(rel) != ".log" {
			continue
		}
		f, err := os.Open(filepath.Join(w.dir, rel))
		if err != nil {
			continue
		}
		head, _ := io.ReadAll(io.LimitReader(f, ncclScanLimit))
		readonly.Close(f)
		if v := machine.NCCLVersion(head); v != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[strings.TrimSuffix(filepath.Base(rel), ".log")] = redact.URL(v)
		}
	}
	return out
}

// environments are the environments the ranks were given, by ROLE-RANK,
// secrets redacted; one that does not read is left out.
func (w *writer) environments() map[string][]string {
	envs := map[string][]string{}
	for _, rel := range w.list(filepath.Join(rundir.CoordDir, rundir.EnvDir)) {
		var env []string
		data, _ := w.read(rel)
		if json.Unmarshal(data, &env) == nil {
			envs[strings.TrimSuffix(filepath.Base(rel), ".json")] = redact.Env(env)
		}
	}
	return envs
}

// sourceRevision reads the repository the scenario names, if any.
func sourceRevision(s *scenarios.Scenario) *SourceRevision {
	repo := s.Source.Repository
	if repo == "" {
		return nil
	}
	repo = s.Path(repo)
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	return &SourceRevision{Repository: redact.URL(repo), Head: git("rev-parse", "HEAD"), Tree: git("rev-parse", "HEAD^{tree}"), Dirty: git("status", "--porcelain") != ""}
}

// promptsOf is the scenario's prompts digest, nil when its workload has no
// prompts file (there is nothing to digest).
func promptsOf(s *scenarios.Scenario) *digest.Digest {
	if s.Workload.Prompts == "" {
		return nil
	}
	d := s.PromptsDigest
	return &d
}
