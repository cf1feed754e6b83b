package scenarios

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/digest"
	"github.com/abbench/abbench/internal/termwidth"
	"github.com/abbench/abbench/internal/textout"
	"github.com/abbench/abbench/internal/texttable"
)

// ArmSummary is one arm of a Summary.
type ArmSummary struct {
	Name     string            `json:"name"`
	Baseline bool              `json:"baseline"`
	Env      map[string]string `json:"env"`
	Build    *Build            `json:"build,omitempty"` // when the arms are builds
}

// Summary is what validate reports of a scenario: the arms, exactly which
// arm keys differ, and everything held constant.
type Summary struct {
	File          string       `json:"file"`
	Name          string       `json:"name"`
	MatchedDigest string       `json:"matched_digest"`
	Arms          []ArmSummary `json:"arms"`
	DifferingKeys []string     `json:"differing_keys"`
	EqualArmKeys  []string     `json:"equal_arm_keys"`
	Constant      Constant     `json:"constant"`
	// Cells are a matrix's cells, each its own matched A/B (none
	// without a matrix).
	Cells []CellSummary `json:"cells,omitempty"`
	// Swept are the workload keys the matrix sets per cell: the workload
	// held constant says so.
	Swept []string `json:"swept_workload_keys,omitempty"`
}

// Constant is what every arm shares.
type Constant struct {
	Roles    []RoleSummary   `json:"roles"`
	Workload WorkloadSummary `json:"workload"`
	EnvKeys  []string        `json:"env_keys"`
	// Attached are the servers attached to, one per arm, each with the
	// path its probe reads the arm's mode from.
	Attached   []string          `json:"attached,omitempty"`
	Criteria   int               `json:"acceptance_criteria"`
	Deadlines  map[string]string `json:"deadlines"`
	Threshold  float64           `json:"noise_threshold_pct"`
	Throughput string            `json:"throughput_format,omitempty"`
}

// RoleSummary is one role of a Summary.
type RoleSummary struct {
	Name   string `json:"name"`
	Ranks  int    `json:"ranks"`
	ArmEnv bool   `json:"arm_env"`
	Client bool   `json:"client"`
	// Image is the image its ranks run in (container:), as named: run
	// pins it to a digest, validate does not resolve it.
	Image string `json:"image,omitempty"`
}

// WorkloadSummary is the workload of a Summary.
type WorkloadSummary struct {
	Prompts     string `json:"prompts_digest"`
	Requests    int    `json:"requests"`
	Concurrency int    `json:"concurrency"`
	Rounds      int    `json:"rounds"`
	// Duration is a duration run's time (its count is the record's).
	Duration string `json:"duration,omitempty"`
	// Shape is the rest of what the client is told, held constant too:
	// the arrival schedule, warm-up, ramp, a synthetic or multi-turn
	// workload ("" for a closed loop of the prompts as they are).
	Shape string `json:"shape,omitempty"`
}

// ArmDiff splits the arm keys into those whose value differs between arms
// and those every arm sets alike: the tool's core claim is that the first
// list is all that differs.
func (s *Scenario) ArmDiff() (differing, equal []string) {
	for _, k := range s.ArmKeys() {
		first := s.Arms[s.ArmOrder[0]].Env[k]
		same := true
		for _, a := range s.ArmOrder[1:] {
			same = same && s.Arms[a].Env[k] == first
		}
		if same {
			equal = append(equal, k)
		} else {
			differing = append(differing, k)
		}
	}
	return differing, equal
}

// Summary summarizes a loaded scenario.
func (s *Scenario) Summary() Summary {
	sum := Summary{File: s.File, Name: s.Name, MatchedDigest: s.MatchedDigest()}
	for _, name := range s.ArmOrder {
		sum.Arms = append(sum.Arms, ArmSummary{Name: name, Baseline: name == s.Baseline, Env: s.Arms[name].Env, Build: s.Arms[name].Build})
	}
	sum.DifferingKeys, sum.EqualArmKeys = s.ArmDiff()
	c := &sum.Constant
	for _, r := range s.Roles {
		rs := RoleSummary{Name: r.Name, Ranks: r.Ranks, ArmEnv: r.ArmEnv, Client: r.Client}
		if r.Container != nil {
			rs.Image = r.Container.Image
		}
		c.Roles = append(c.Roles, rs)
	}
	c.Workload = WorkloadSummary{Requests: int(s.Workload.Requests), Concurrency: s.Workload.Concurrency, Rounds: s.Workload.Rounds}
	if s.Workload.Duration > 0 {
		c.Workload.Duration = s.Workload.Duration.String()
	}
	c.Workload.Shape = s.Workload.shape()
	if s.Workload.HasContent() {
		c.Workload.Prompts = s.PromptsDigest.String()
	}
	for k := range s.Env {
		c.EnvKeys = append(c.EnvKeys, k)
	}
	slices.Sort(c.EnvKeys)
	for _, a := range s.Attach {
		c.Attached = append(c.Attached, fmt.Sprintf("%s (probe %s)", a.Name, a.Probe.Path))
	}
	c.Criteria = len(s.Acceptance)
	d := s.Deadlines
	c.Deadlines = map[string]string{"ready": d.Ready.String(), "client": d.Client.String(), "drain": d.Drain.String(), "teardown": d.Teardown.String(), "kill_grace": d.KillGrace.String()}
	c.Threshold = s.NoiseThreshold
	if s.Evidence.Throughput != nil {
		c.Throughput = s.Evidence.Throughput.Format
	}
	sum.Cells, sum.Swept = s.cellSummaries(), s.sweptWorkloadKeys()
	return sum
}

// WriteText prints the summary for a person: the arms, which keys differ,
// and what is held constant.
func (s Summary) WriteText(w io.Writer) error {
	out := textout.New(w)
	out.Printf("scenario %s (%s)\n", s.Name, s.File)
	out.Printf("matched digest: %s\n", s.MatchedDigest)
	var names []string
	for _, a := range s.Arms {
		n := a.Name
		if a.Baseline {
			n += " (baseline)"
		}
		names = append(names, n)
	}
	out.Printf("arms: %s\n", strings.Join(names, ", "))
	for _, a := range s.Arms {
		if a.Build != nil {
			src := ""
			if a.Build.Source != "" {
				src = " (from " + a.Build.Source + ")"
			}
			out.Printf("  build of %s: %s%s\n", a.Name, a.Build.Binary, src)
		}
	}
	out.Println()
	header := []string{"arm key"}
	for _, a := range s.Arms {
		header = append(header, a.Name)
	}
	header = append(header, "")
	var rows [][]string
	for _, group := range []struct {
		keys []string
		note string
	}{{s.DifferingKeys, "differs"}, {s.EqualArmKeys, "same in every arm"}} {
		for _, k := range group.keys {
			row := []string{k}
			for _, a := range s.Arms {
				row = append(row, fmt.Sprintf("%q", a.Env[k]))
			}
			rows = append(rows, append(row, group.note))
		}
	}
	if err := texttable.Write(out, header, rows); err != nil {
		return err
	}
	c := s.Constant
	var roles []string
	for _, r := range c.Roles {
		roles = append(roles, r.describe())
	}
	out.Printf("\nheld constant:\n")
	out.Printf("  roles:      %s\n", strings.Join(roles, ", "))
	requests := fmt.Sprint(c.Workload.Requests)
	if c.Workload.Requests == int(FromRecord) {
		requests = "the client's count (" + FromRecordName + ")"
	}
	if c.Workload.Duration != "" {
		out.Printf("  workload:   for %s, cycling through %s requests, concurrency %d%s\n", c.Workload.Duration, requests, c.Workload.Concurrency, sweptNote(s.Swept))
	} else {
		out.Printf("  workload:   %s requests, concurrency %d, %d round(s)%s\n", requests, c.Workload.Concurrency, c.Workload.Rounds, sweptNote(s.Swept))
	}
	if c.Workload.Shape != "" {
		out.Printf("  load shape: %s\n", c.Workload.Shape)
	}
	if len(c.Attached) > 0 {
		out.Printf("  attached:   %s\n", strings.Join(c.Attached, ", "))
	}
	if c.Workload.Prompts != "" {
		prompts := c.Workload.Prompts
		if d, err := digest.Parse(prompts); err == nil {
			prompts = d.Fit("  prompts:    ", termwidth.Of(w)) // never wrapped across lines
		}
		out.Printf("  prompts:    %s\n", prompts)
	} else {
		out.Printf("  prompts:    none (nothing to digest; the workload is its request count)\n")
	}
	if len(c.EnvKeys) > 0 {
		out.Printf("  env:        %s\n", strings.Join(c.EnvKeys, ", "))
	}
	out.Printf("  evidence:   %d acceptance criteria", c.Criteria)
	if c.Throughput != "" {
		out.Printf(", %s throughput record", c.Throughput)
	}
	out.Printf(", noise threshold %g%%\n", c.Threshold)
	d := c.Deadlines
	out.Printf("  deadlines:  ready %s, client %s, drain %s, teardown %s, kill grace %s\n", d["ready"], d["client"], d["drain"], d["teardown"], d["kill_grace"])
	writeCells(out, s.Cells)
	return out.Err()
}

// describe is the role as the summary lists it: NAME xRANKS (tags).
func (r RoleSummary) describe() string {
	desc := fmt.Sprintf("%s x%d", r.Name, r.Ranks)
	var tags []string
	if r.ArmEnv {
		tags = append(tags, "arm env")
	}
	if r.Client {
		tags = append(tags, "client")
	}
	if r.Image != "" {
		tags = append(tags, "in image "+r.Image)
	}
	if len(tags) > 0 {
		desc += " (" + strings.Join(tags, ", ") + ")"
	}
	return desc
}
