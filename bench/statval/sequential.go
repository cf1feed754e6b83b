package main

import (
	"fmt"
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
// spending boundary over 10 pairs, and over 14 without the futility stop.
func sequentialDesigns(seq *decide.Sequential, candidates bool) []decide.Design {
	alpha := decide.DefaultRule.Alpha
	ds := []decide.Design{
		decide.SequentialDesign(fmt.Sprintf("sequential %d-%d pairs, OBF spending, futility", seq.MinPairs, seq.MaxPairs), seq),
		decide.SequentialDesign("sequential 3-10 pairs, Pocock (before)", decide.PocockDesign(decide.MinLookPairs, 10, alpha)),
	}
	if !candidates {
		return ds
	}
	short, _ := decide.NewSequential(decide.MinLookPairs, 10, alpha)
	noFutility := *seq
	noFutility.Futility = 0
	return append(ds,
		decide.SequentialDesign("sequential 3-10 pairs, OBF spending, futility", short),
		decide.SequentialDesign(fmt.Sprintf("sequential %d-%d pairs, OBF spending", seq.MinPairs, seq.MaxPairs), &noFutility))
}

// levels is the design's per-look levels as the table's heading says them.
func levels(seq *decide.Sequential) string {
	var s []string
	for n := seq.MinPairs; n <= seq.MaxPairs; n++ {
		s = append(s, fmt.Sprintf("%d: %s", n, numfmt.Significant(seq.LevelAt(n), 2))) // 0.000024, never 2.4e-05
	}
	return strings.Join(s, ", ")
}
