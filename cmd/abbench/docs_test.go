package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/abbench/abbench/cmd/abbench/internal/cli"
	"github.com/abbench/abbench/cmd/abbench/internal/help"

	"go.yaml.in/yaml/v3"
)

// TestReadmeExitStatus holds the README's exit-status table against the
// codes the CLI returns and the EXIT STATUS section of every --help.
func TestReadmeExitStatus(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d) \| (.+) \|$`).FindAllStringSubmatch(string(data), -1) {
		n, _ := strconv.Atoi(m[1])
		readme[n] = strings.ReplaceAll(m[2], "`", "")
	}
	listed := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^  (\d)  (.+)$`).FindAllStringSubmatch(help.ExitStatus, -1) {
		n, _ := strconv.Atoi(m[1])
		listed[n] = m[2]
	}
	codes := []int{cli.ExitOK, cli.ExitError, cli.ExitUsage, cli.ExitCensored, cli.ExitUnverified, cli.ExitFailOn}
	if len(readme) != len(codes) || len(listed) != len(codes) {
		t.Fatalf("README lists %d exit statuses, --help %d, the code %d", len(readme), len(listed), len(codes))
	}
	for _, c := range codes {
		r, h := readme[c], listed[c]
		if r == "" || h == "" {
			t.Errorf("exit status %d: README %q, --help %q", c, r, h)
			continue
		}
		// The same words, allowing the README's commas for "run, arm, compare".
		norm := func(s string) string { return strings.NewReplacer(",", "", " and ", " ").Replace(s) }
		if norm(r) != norm(h) {
			t.Errorf("exit status %d:\n README: %s\n --help: %s", c, r, h)
		}
	}
}

// TestEveryCommandHasHelp runs every command's --help, so a missing help
// text fails here and not in a user's terminal.
func TestEveryCommandHasHelp(t *testing.T) {
	var out, errb strings.Builder
	root := newRoot(&out, &errb)
	cmds := root.Commands()
	for _, c := range root.Commands() {
		cmds = append(cmds, c.Commands()...) // subcommands (history add, show)
	}
	for _, c := range cmds {
		if c.Name() == "completion" && c.Example == "" { // cobra's own: examples, no exit statuses
			t.Errorf("%s: examples missing", c.Name())
		}
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" || c.Parent().Name() == "completion" {
			continue
		}
		if !strings.Contains(c.Long, "EXIT STATUS") || c.Example == "" {
			t.Errorf("%s: long help or examples missing", c.Name())
		}
	}
}

// TestCIExamplesParse parses every CI example users copy, and requires
// docs/ci.md to point at each (never to carry a copy that could drift).
func TestCIExamplesParse(t *testing.T) {
	docs, err := os.ReadFile("../../docs/ci.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"github/workflows/ab.yml", "github/actions/setup-abbench/action.yml", "gitlab-ci.yml", "Jenkinsfile"} {
		path := "../../examples/ci/" + f
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(docs), "examples/ci/"+strings.TrimSuffix(f, "/action.yml")) {
			t.Errorf("docs/ci.md does not point at examples/ci/%s", f)
		}
		// Every pipeline plans, runs the plan's stages and gates on a
		// decision: one run per arm would gate nothing.
		if f != "github/actions/setup-abbench/action.yml" {
			for _, must := range []string{"abbench plan ", "--plan plan/plan.json --run-index ", "--fail-on regression,undecided"} {
				if !strings.Contains(string(data), must) {
					t.Errorf("%s does not run %q", path, must)
				}
			}
		}
		if strings.HasSuffix(f, ".yml") {
			var doc map[string]any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Errorf("%s does not parse: %v", path, err)
			}
			if f == "gitlab-ci.yml" && (doc["plan"] == nil || doc["stage"] == nil || doc["compare"] == nil) {
				t.Errorf("%s lost its jobs", path)
			}
		}
	}
	if strings.Contains(string(docs), "```yaml") || strings.Contains(string(docs), "```groovy") {
		t.Error("docs/ci.md carries a workflow copy: point at examples/ci instead")
	}
}

// TestHelpListsOnlyItsOwnExitStatuses holds every command's EXIT STATUS
// section to the statuses help.CommandExits says it can return: none missing,
// none it never returns (a reader of compare's help must not plan for a
// status that validate could never give).
func TestHelpListsOnlyItsOwnExitStatuses(t *testing.T) {
	var out, errb strings.Builder
	root := newRoot(&out, &errb)
	cmds := root.Commands()
	for _, c := range root.Commands() {
		cmds = append(cmds, c.Commands()...)
	}
	status := regexp.MustCompile(`(?m)^  (\d)  `)
	for _, c := range cmds {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" || c.Parent().Name() == "completion" {
			continue
		}
		want, ok := help.CommandExits[c.CommandPath()]
		if !ok {
			t.Errorf("%s: not in help.CommandExits: say which statuses it can return", c.CommandPath())
			continue
		}
		section := c.Long[strings.Index(c.Long, "EXIT STATUS"):]
		var got []int
		for _, m := range status.FindAllStringSubmatch(section, -1) {
			got = append(got, int(m[1][0]-'0'))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s --help lists exit statuses %v, it returns %v", c.CommandPath(), got, want)
		}
		// Each says its statuses in its own words: load's, digest's
		// and verify's help spoke of "run, arm and compare".
		if strings.Contains(section, "run, arm and compare") {
			t.Errorf("%s --help: its EXIT STATUS speaks of other commands:\n%s", c.CommandPath(), section)
		}
	}
	if n := len(status.FindAllString(help.ExitStatus, -1)); !strings.Contains(root.Long, help.ExitStatus) || n != 6 {
		t.Errorf("abbench --help lists %d exit statuses, want all 6", n)
	}
}
