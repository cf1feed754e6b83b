package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

const sweep = base + `matrix:
  concurrency: [1, 2]
  tier: [gold, silver]
`

func TestMatrixCellsAreTheProductInFileOrder(t *testing.T) {
	s, err := load(t, sweep)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(s.CellNames(), " ")
	want := "concurrency=1,tier=gold concurrency=1,tier=silver concurrency=2,tier=gold concurrency=2,tier=silver"
	if got != want {
		t.Fatalf("cells %s, want %s (first axis slowest, values in file order)", got, want)
	}
	if !s.IsSweep() {
		t.Error("four cells are a sweep")
	}
}

func TestForCellSetsTheWorkloadAndTheTemplateValue(t *testing.T) {
	s, err := load(t, strings.Replace(sweep, "--rank, \"{{.Rank}}\"", "--rank, \"{{.Rank}}\", --tier, \"{{.Matrix.tier}}\"", 1))
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.ForCell("concurrency=1,tier=silver")
	if err != nil {
		t.Fatal(err)
	}
	if c.Workload.Concurrency != 1 || s.Workload.Concurrency != 2 {
		t.Errorf("cell concurrency %d (want 1), whole scenario's %d (want 2, untouched)", c.Workload.Concurrency, s.Workload.Concurrency)
	}
	d := c.TemplateData(Place{Arm: "fast"})
	if d.Workload.Concurrency != 1 {
		t.Errorf("{{.Workload.Concurrency}} is %d, want the cell's 1", d.Workload.Concurrency)
	}
	arg, err := Expand(s.Roles[0].Command[4], d)
	if err != nil || arg != "silver" {
		t.Errorf("{{.Matrix.tier}} expands to %q (%v), want silver", arg, err)
	}
	if c.CellName() != "concurrency=1,tier=silver" || c.IsSweep() {
		t.Errorf("the cell's scenario names cell %q (sweep %v), want itself and no sweep", c.CellName(), c.IsSweep())
	}
	if _, err := s.ForCell("concurrency=3,tier=gold"); !errors.As(err, new(*UnknownCellError)) {
		t.Errorf("an unknown cell: %v, want an UnknownCellError", err)
	}
}

func TestEachCellHasItsOwnMatchedDigest(t *testing.T) {
	s, err := load(t, sweep)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{s.MatchedDigest(): "the whole scenario"}
	for _, name := range s.CellNames() {
		c, err := s.ForCell(name)
		if err != nil {
			t.Fatal(err)
		}
		if other, dup := seen[c.MatchedDigest()]; dup {
			t.Errorf("cell %s has the matched digest of %s", name, other)
		}
		seen[c.MatchedDigest()] = name
	}
	plain, err := load(t, base)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(plain.Canonical()), "matrix") {
		t.Errorf("a scenario without a matrix encodes one: %s", plain.Canonical())
	}
}

func TestMatrixRefusals(t *testing.T) {
	for name, c := range map[string]struct{ matrix, want string }{
		"arm key":       {"matrix: {mode: [a, b]}", `s.yaml:15: matrix axis "mode" names the arm key MODE: an axis never changes an arm`},
		"arm":           {"matrix: {arm: [fast]}", `s.yaml:15: matrix axis "arm" names the comparison itself`},
		"prompts":       {"matrix: {prompts: [a.jsonl]}", `s.yaml:15: matrix axis "prompts": workload.prompts is shared by every cell`},
		"bad count":     {"matrix: {concurrency: [2, zero]}", `s.yaml:15: matrix axis "concurrency" sets workload.concurrency: "zero": give a whole number of at least 1`},
		"too many":      {"matrix: {requests: [3]}", `s.yaml:15: matrix axis requests: 3, but the prompts file holds 2 prompts`},
		"twice":         {"matrix: {tier: [a, a]}", `s.yaml:15: matrix axis "tier" gives "a" twice`},
		"no values":     {"matrix: {tier: []}", `s.yaml:15: matrix axis "tier" has no values`},
		"name":          {"matrix: {Tier: [a]}", `s.yaml:15: matrix axis "Tier": use a lower-case letter`},
		"value names":   {"matrix: {tier: [\"a=b\"]}", `s.yaml:15: matrix axis "tier": value "a=b"`},
		"not a list":    {"matrix: {tier: a}", `s.yaml:15: matrix axis "tier": give a list of values`},
		"not a mapping": {"matrix: [a]", `s.yaml:15: matrix is a mapping of axis names`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := load(t, base+c.matrix+"\n")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

func TestUnknownAxisInATemplateIsRefused(t *testing.T) {
	_, err := load(t, strings.Replace(base, "--rank, \"{{.Rank}}\"", "--tier, \"{{.Matrix.tier}}\"", 1)+"matrix: {size: [a]}\n")
	if err == nil || !strings.Contains(err.Error(), `s.yaml:8: template "{{.Matrix.tier}}"`) {
		t.Errorf("got %v, want the role's command line refused for an axis the matrix has not", err)
	}
}

// A matrix of very many cells is refused without making them: 2^40
// cells would never fit in memory.
func TestMatrixOfTooManyCellsIsRefusedCheaply(t *testing.T) {
	var axes []string
	for i := range 40 {
		axes = append(axes, fmt.Sprintf("a%d: [x, y]", i))
	}
	_, err := load(t, base+"matrix: {"+strings.Join(axes, ", ")+"}\n")
	if err == nil || !strings.Contains(err.Error(), "s.yaml:15: the matrix has more than 64 cells") {
		t.Errorf("got %v", err)
	}
}
