package campaign

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/arms"
	"github.com/abbench/abbench/internal/arms/rankwrap"
	"github.com/abbench/abbench/internal/filehash"
	"github.com/abbench/abbench/internal/redact"
	"github.com/abbench/abbench/internal/rundir"
	"github.com/abbench/abbench/internal/scenarios"
)

// The bounds of what a campaign hashes of its roles' files: each file's
// first executableCap bytes (a model's weights named on a command line
// are not read whole), and executableBudget bytes in all, so a command
// naming a file per rank of a thousand ranks is not read for minutes. A
// file past the budget is held by its size alone.
const (
	executableCap    = 64 << 20
	executableBudget = 1 << 30
)

// executables are the files the roles' commands run and read, as a
// resume holds them (docs/running.md, Resuming a campaign): of every
// role's command, for every arm, rank and cell, the program as the rank
// resolves it (its PATH: abbench's own directory first, then the one it
// inherits, which is this process's), and every other argument that names
// a regular file by an absolute path (the script of an interpreter,
// python3 {{.Dir}}/serve.py, and any file such as a configuration). An
// argument is taken only when it names the same thing in every run: one
// that reads the run ({{.Out}}, {{.Coord}}, {{.Token}}, {{.Scratch}},
// {{.Host}}) names a file the run makes, a relative one a file in the
// run's own directory (a rank's working directory), and one that reads a
// variable of the environment may carry a secret, which plan.json never
// holds. Roles in containers run the image pinned by its digest, and
// abbench's own client (openai:) is abbench, held as a binary.
func (c *Config) executables() []rundir.Executable {
	rankPath := arms.RankPath(filepath.Dir(c.Self), os.Getenv("PATH"))
	var out []rundir.Executable
	seen := map[[2]string]bool{}
	for _, s := range cellScenarios(c.Scenario) {
		for _, arm := range s.ArmOrder {
			for i := range s.Roles {
				for _, e := range roleFiles(s, &s.Roles[i], arm, rankPath) {
					if key := [2]string{e.Role, e.Arg}; !seen[key] {
						seen[key] = true
						out = append(out, e)
					}
				}
			}
		}
	}
	budget := int64(executableBudget)
	for i := range out {
		hashExecutable(&out[i], &budget)
	}
	return out
}

// cellScenarios are the scenario's cells, each as its own scenario (one,
// the scenario itself, outside a sweep).
func cellScenarios(s *scenarios.Scenario) []*scenarios.Scenario {
	if s.Matrix == nil {
		return []*scenarios.Scenario{s}
	}
	var out []*scenarios.Scenario
	for _, cell := range s.Cells() {
		if cs, err := s.ForCell(cell.Name); err == nil { // validation expanded every cell
			out = append(out, cs)
		}
	}
	return out
}

// roleFiles are the files one role's command names for arm, unhashed:
// its program resolved on rankPath (Path "" when it is not found), and
// its absolute arguments that name a regular file now.
func roleFiles(s *scenarios.Scenario, r *scenarios.Role, arm, rankPath string) []rundir.Executable {
	if r.Container != nil || r.OpenAI != nil {
		return nil
	}
	var out []rundir.Executable
	for rank := range r.Ranks {
		for j, text := range r.Command {
			if rank > 0 && !strings.Contains(text, "{{") {
				continue // a literal argument is every rank's: taken at rank 0
			}
			arg, ok := sameInEveryRun(s, r, arm, rank, text)
			if !ok {
				continue
			}
			if j == 0 {
				path, err := rankwrap.LookPath(arg, rankPath)
				if err == nil && !filepath.IsAbs(path) {
					continue // a relative path with a slash: of the run's directory
				}
				out = append(out, rundir.Executable{Role: r.Name, Arg: arg, Path: path})
				continue
			}
			if fi, err := os.Stat(arg); err == nil && filepath.IsAbs(arg) && fi.Mode().IsRegular() {
				out = append(out, rundir.Executable{Role: r.Name, Arg: arg, Path: arg})
			}
		}
	}
	return out
}

// sameInEveryRun expands one argument of a rank's command as two
// different runs on two different hosts would: ok when both give the
// same, and the template read no variable of the environment.
func sameInEveryRun(s *scenarios.Scenario, r *scenarios.Role, arm string, rank int, text string) (string, bool) {
	var got [2]string
	for i, run := range [2]string{"a", "b"} {
		var read redact.Values
		d := s.TemplateData(scenarios.Place{Arm: arm, Token: "resume-probe-" + run, Out: filepath.Join(string(filepath.Separator), "resume-probe-"+run), Role: r, Rank: rank, Host: "host-" + run})
		v, err := scenarios.ExpandSecrets(text, d, &read)
		if err != nil || len(read) > 0 {
			return "", false
		}
		got[i] = v
	}
	return got[0], got[0] == got[1] && got[0] != ""
}

// hashExecutable fills in e's digest, size and bytes hashed from its file,
// out of what is left of the budget. A file that cannot be read is held as
// none (SHA256 ""), which a resume holds it to as well.
func hashExecutable(e *rundir.Executable, budget *int64) {
	if e.Path == "" {
		return
	}
	if *budget <= 0 {
		if fi, err := os.Stat(e.Path); err == nil {
			e.Size = fi.Size()
		}
		return
	}
	sum, size, hashed, err := filehash.Prefix(e.Path, min(executableCap, *budget))
	if err != nil {
		return
	}
	e.SHA256, e.Size, e.Hashed = sum, size, hashed
	*budget -= hashed
}

// executableChanges says, one line each, how the files the campaign's
// roles run now depart from those it began with: a program resolved to
// another file, a file whose content or size changed, one gone. A file
// named now that the campaign did not hold (a file its runs wrote at an
// absolute path) changes nothing: what held the first runs is what must
// hold the rest.
func executableChanges(was, now []rundir.Executable) []string {
	var out []string
	for _, a := range was {
		i := slices.IndexFunc(now, func(b rundir.Executable) bool { return b.Role == a.Role && b.Arg == a.Arg })
		var b rundir.Executable
		if i >= 0 {
			b = now[i]
		}
		what := fmt.Sprintf("role %s runs %s", a.Role, a.Arg)
		if a.Arg == a.Path {
			what = fmt.Sprintf("role %s reads %s", a.Role, a.Arg)
		}
		switch {
		case b.Path != a.Path && a.Arg == a.Path:
			out = append(out, fmt.Sprintf("%s: it is no longer a regular file there", what))
		case b.Path != a.Path:
			out = append(out, fmt.Sprintf("%s: it resolved to %s, now to %s", what, shownPath(a.Path), shownPath(b.Path)))
		case b.SHA256 != a.SHA256 || b.Size != a.Size || b.Hashed != a.Hashed:
			out = append(out, fmt.Sprintf("%s (%s): its content changed (sha256 %s of %d bytes, now %s of %d bytes): its runs so far ran another system under test",
				what, a.Path, fullSum(a.SHA256), a.Size, fullSum(b.SHA256), b.Size))
		}
	}
	return out
}

func shownPath(p string) string {
	if p == "" {
		return "nothing (not found on the rank's PATH)"
	}
	return p
}

func fullSum(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
