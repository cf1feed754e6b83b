package main

import (
	"strings"
	"testing"

	"github.com/abbench/abbench/internal/decide"
)

// The table's header lists the per-look levels as decimals, as every
// report does: 0.000024, not 2.4e-05.
func TestLevelsAreDecimals(t *testing.T) {
	seq, err := decide.NewSequential(3, 14, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if got := levels(seq); strings.Contains(got, "e-") || !strings.HasPrefix(got, "3: 0.000024, 4: 0.00021, ") {
		t.Errorf("levels %q", got)
	}
}

// The tenths table gives each model's held rows, then the benchstat row
// they are held to, to a tenth of a percent: a held row whose model's
// benchstat row were left out, or printed after another model's, would
// hold it to nothing a reader could see.
func TestPowerTenthsFollowEachModelWithItsBenchstat(t *testing.T) {
	row := func(model, design string, p float64) decide.Row {
		return decide.Row{Model: model, Design: design, Power: []float64{p, p, p, p}}
	}
	bench := benchstat(benchstatPairs).Name
	held := []decide.Row{row("m1", "default", 0.983), row("m1", "no stop", 0.992), row("m2", "default", 0.5)}
	all := append(held, row("m1", bench, 0.993), row("m2", bench, 0.4), row("m1", "2 pairs", 0.1))
	var b strings.Builder
	if err := printPowerTenths(&b, held, all); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "| m") {
			got = append(got, l)
		}
	}
	want := []string{
		"| m1 | default | 98.3% | 98.3% | 98.3% | 98.3% |",
		"| m1 | no stop | 99.2% | 99.2% | 99.2% | 99.2% |",
		"| m1 | " + bench + " | 99.3% | 99.3% | 99.3% | 99.3% |",
		"| m2 | default | 50.0% | 50.0% | 50.0% | 50.0% |",
		"| m2 | " + bench + " | 40.0% | 40.0% | 40.0% | 40.0% |",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
