package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/abbench/abbench/scenarios"
)

type validateOptions struct {
	format formatFlag
}

func newValidateCmd() *cobra.Command {
	var opts validateOptions
	cmd := &cobra.Command{
		Use:   "validate SCENARIO...",
		Short: "Load and check scenarios; print what differs between the arms",
		Long: `validate loads each scenario strictly (unknown or duplicate keys are errors),
checks it, and prints the arms, exactly which environment keys differ between
them, what is held constant, and the matched digest: a SHA-256 over the
scenario with the arm values left out, equal for scenarios that differ only in
arm values. Every problem is reported as FILE:LINE: message.`,
		Example: `  abbench validate scenarios/quickstart.yaml
  abbench validate --format json scenarios/*.yaml`,
		Args: argsUsage(cobra.MinimumNArgs(1), "name at least one scenario file, for example scenarios/quickstart.yaml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runValidate(cmd.OutOrStdout(), opts, args)
		},
	}
	addFormatFlag(cmd.Flags(), &opts.format, "table", "json")
	return cmd
}

// validateReport is the JSON document of validate.
type validateReport struct {
	Scenarios []scenarioSummary `json:"scenarios"`
	Errors    []fileError       `json:"errors"`
}

type fileError struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

type armSummary struct {
	Name     string            `json:"name"`
	Baseline bool              `json:"baseline"`
	Env      map[string]string `json:"env"`
}

type scenarioSummary struct {
	File          string       `json:"file"`
	Name          string       `json:"name"`
	MatchedDigest string       `json:"matched_digest"`
	Arms          []armSummary `json:"arms"`
	DifferingKeys []string     `json:"differing_keys"`
	EqualArmKeys  []string     `json:"equal_arm_keys"`
	Constant      constant     `json:"constant"`
}

type constant struct {
	Roles      []roleSummary     `json:"roles"`
	Workload   workload          `json:"workload"`
	EnvKeys    []string          `json:"env_keys"`
	Criteria   int               `json:"acceptance_criteria"`
	Deadlines  map[string]string `json:"deadlines"`
	Threshold  float64           `json:"noise_threshold_pct"`
	Throughput string            `json:"throughput_format,omitempty"`
}

type roleSummary struct {
	Name   string `json:"name"`
	Ranks  int    `json:"ranks"`
	ArmEnv bool   `json:"arm_env"`
	Client bool   `json:"client"`
}

type workload struct {
	Prompts     string `json:"prompts_digest"`
	Requests    int    `json:"requests"`
	Concurrency int    `json:"concurrency"`
	Rounds      int    `json:"rounds"`
}

func summarize(s *scenarios.Scenario) scenarioSummary {
	sum := scenarioSummary{File: s.File, Name: s.Name, MatchedDigest: s.MatchedDigest()}
	for _, name := range s.ArmOrder {
		sum.Arms = append(sum.Arms, armSummary{Name: name, Baseline: name == s.Baseline, Env: s.Arms[name].Env})
	}
	for _, k := range s.ArmKeys() {
		first := s.Arms[s.ArmOrder[0]].Env[k]
		same := true
		for _, a := range s.ArmOrder[1:] {
			same = same && s.Arms[a].Env[k] == first
		}
		if same {
			sum.EqualArmKeys = append(sum.EqualArmKeys, k)
		} else {
			sum.DifferingKeys = append(sum.DifferingKeys, k)
		}
	}
	c := &sum.Constant
	for _, r := range s.Roles {
		c.Roles = append(c.Roles, roleSummary{r.Name, r.Ranks, r.ArmEnv, r.Client})
	}
	c.Workload = workload{s.PromptsDigest.String(), s.Workload.Requests, s.Workload.Concurrency, s.Workload.Rounds}
	for k := range s.Env {
		c.EnvKeys = append(c.EnvKeys, k)
	}
	slices.Sort(c.EnvKeys)
	c.Criteria = len(s.Acceptance)
	d := s.Deadlines
	c.Deadlines = map[string]string{"ready": d.Ready.String(), "client": d.Client.String(), "drain": d.Drain.String(), "teardown": d.Teardown.String(), "kill_grace": d.KillGrace.String()}
	c.Threshold = s.NoiseThreshold
	if s.Evidence.Throughput != nil {
		c.Throughput = s.Evidence.Throughput.Format
	}
	return sum
}

func runValidate(stdout io.Writer, opts validateOptions, files []string) error {
	if err := opts.format.check(); err != nil {
		return err
	}
	report := validateReport{Scenarios: []scenarioSummary{}, Errors: []fileError{}}
	var failures []error
	for _, f := range files {
		s, err := scenarios.Load(f)
		if err != nil {
			var es scenarios.Errors
			if errors.As(err, &es) {
				for _, e := range es {
					report.Errors = append(report.Errors, fileError{e.File, e.Line, e.Msg})
				}
			} else {
				report.Errors = append(report.Errors, fileError{File: f, Message: err.Error()})
				if errors.Is(err, os.ErrNotExist) {
					err = usageError(err, "check the path; scenario paths are relative to the current directory")
				}
			}
			failures = append(failures, err)
			continue
		}
		report.Scenarios = append(report.Scenarios, summarize(s))
	}
	if opts.format.value == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(report); err != nil {
			return err
		}
	} else {
		for i, s := range report.Scenarios {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			if err := printSummary(stdout, s); err != nil {
				return err
			}
		}
	}
	if len(failures) > 0 {
		return invalidScenarios(failures)
	}
	return nil
}

// invalidScenarios joins the failures; the first decides the exit status.
func invalidScenarios(errs []error) error {
	code, hint := classify(errs[0])
	for _, e := range errs[1:] {
		if c, _ := classify(e); c != code {
			code = exitUsage
		}
	}
	return &statusError{code: code, err: errors.Join(errs...), hint: hint}
}

func printSummary(w io.Writer, s scenarioSummary) error {
	fmt.Fprintf(w, "scenario %s (%s)\n", s.Name, s.File)
	fmt.Fprintf(w, "matched digest: %s\n", s.MatchedDigest)
	var names []string
	for _, a := range s.Arms {
		n := a.Name
		if a.Baseline {
			n += " (baseline)"
		}
		names = append(names, n)
	}
	fmt.Fprintf(w, "arms: %s\n\n", strings.Join(names, ", "))
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
	if err := writeTable(w, header, rows); err != nil {
		return err
	}
	c := s.Constant
	var roles []string
	for _, r := range c.Roles {
		desc := fmt.Sprintf("%s x%d", r.Name, r.Ranks)
		var tags []string
		if r.ArmEnv {
			tags = append(tags, "arm env")
		}
		if r.Client {
			tags = append(tags, "client")
		}
		if len(tags) > 0 {
			desc += " (" + strings.Join(tags, ", ") + ")"
		}
		roles = append(roles, desc)
	}
	fmt.Fprintf(w, "\nheld constant:\n")
	fmt.Fprintf(w, "  roles:      %s\n", strings.Join(roles, ", "))
	fmt.Fprintf(w, "  workload:   %d requests, concurrency %d, %d round(s)\n", c.Workload.Requests, c.Workload.Concurrency, c.Workload.Rounds)
	fmt.Fprintf(w, "  prompts:    %s\n", c.Workload.Prompts)
	if len(c.EnvKeys) > 0 {
		fmt.Fprintf(w, "  env:        %s\n", strings.Join(c.EnvKeys, ", "))
	}
	fmt.Fprintf(w, "  evidence:   %d acceptance criteria", c.Criteria)
	if c.Throughput != "" {
		fmt.Fprintf(w, ", %s throughput record", c.Throughput)
	}
	fmt.Fprintf(w, ", noise threshold %g%%\n", c.Threshold)
	d := c.Deadlines
	fmt.Fprintf(w, "  deadlines:  ready %s, client %s, drain %s, teardown %s, kill grace %s\n", d["ready"], d["client"], d["drain"], d["teardown"], d["kill_grace"])
	return nil
}
