package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/abbench/abbench/internal/decide"
	"github.com/abbench/abbench/internal/numfmt"
)

// benchstatPairs are the runs per arm benchstat compares: 10+10, the
// count its users take.
const benchstatPairs = 10

// sequentialDesigns are the default sequential design and the one it
// replaced (Pocock's constant level over 3 to 10 pairs); with candidates,
// also the others it was measured against on the same campaigns: the
// spending boundary over 10 pairs, over 14 without the futility stop and
// with each of decide.StopCandidates in its place. held are the designs
// (by index in ds) held to benchstat's power: the default and its stop
// candidates, so that a candidate's row says what the default's would.
func sequentialDesigns(seq *decide.Sequential, candidates bool) (ds []decide.Design, held []int) {
	alpha := decide.DefaultRule.Alpha
	ds = []decide.Design{
		decide.SequentialDesign(fmt.Sprintf("sequential %d-%d pairs, OBF spending, futility", seq.MinPairs, seq.MaxPairs), seq),
		decide.SequentialDesign("sequential 3-10 pairs, Pocock (before)", decide.PocockDesign(decide.MinLookPairs, 10, alpha)),
	}
	held = []int{0}
	if !candidates {
		return ds, held
	}
	short, _ := decide.NewSequential(decide.MinLookPairs, 10, alpha)
	ds = append(ds, decide.SequentialDesign("sequential 3-10 pairs, OBF spending, futility", short))
	for _, c := range stopCandidates(seq) {
		held = append(held, len(ds))
		ds = append(ds, decide.SequentialDesign(c.name, c.seq))
	}
	return ds, held
}

// A stopCandidate is the default design with another futility stop, or
// none.
type stopCandidate struct {
	name string
	seq  *decide.Sequential
}

// stopCandidates are the default design without its futility stop and
// with each of decide.StopCandidates in its place: the rows the stop
// was chosen against, in the validation table and the family's.
func stopCandidates(seq *decide.Sequential) []stopCandidate {
	noFutility := *seq
	noFutility.Futility = 0
	out := []stopCandidate{{fmt.Sprintf("sequential %d-%d pairs, OBF spending", seq.MinPairs, seq.MaxPairs), &noFutility}}
	for _, c := range decide.StopCandidates {
		out = append(out, stopCandidate{fmt.Sprintf("sequential %d-%d pairs, OBF spending, %s", seq.MinPairs, seq.MaxPairs, c.Name), seq.WithStop(c)})
	}
	return out
}

// levels is the design's per-look levels as the table's heading says them.
func levels(seq *decide.Sequential) string {
	var s []string
	for n := seq.MinPairs; n <= seq.MaxPairs; n++ {
		s = append(s, fmt.Sprintf("%d: %s", n, numfmt.Significant(seq.LevelAt(n), 2))) // 0.000024, never 2.4e-05
	}
	return strings.Join(s, ", ")
}

// printPowerTenths prints to w the power of the designs held to
// benchstat and of benchstat, to a tenth of a percent: the candidates'
// differences lie within the whole percents of the main table. Each
// model's rows are followed by its benchstat row, the figure they are
// held to. The error is w's.
func printPowerTenths(w io.Writer, held, all []decide.Row) error {
	var b strings.Builder // written to w whole, so its one error is w's
	fmt.Fprintln(&b, "Power to a tenth of a percent (the designs held to benchstat, and benchstat):")
	fmt.Fprintln(&b)
	fmt.Fprintln(&b, "| noise | design | +1% | +2% | +3% | +5% |")
	fmt.Fprintln(&b, "| --- | --- | ---: | ---: | ---: | ---: |")
	bench := map[string]decide.Row{}
	for _, row := range all {
		if row.Design == benchstat(benchstatPairs).Name {
			bench[row.Model] = row
		}
	}
	model := ""
	for _, row := range held {
		if model != "" && row.Model != model {
			printPowerRow(&b, bench[model])
		}
		model = row.Model
		printPowerRow(&b, row)
	}
	if model != "" {
		printPowerRow(&b, bench[model])
	}
	fmt.Fprintln(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func printPowerRow(w *strings.Builder, row decide.Row) {
	cells := []string{row.Model, row.Design}
	for _, p := range row.Power {
		cells = append(cells, fmt.Sprintf("%.1f%%", 100*p))
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
}
