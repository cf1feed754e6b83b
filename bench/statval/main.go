// Command statval prints the statistical validation table of
// docs/statistics.md: for every noise model, fixed designs of 2 to 10
// pairs and the sequential design, the A/A false-verdict rate, the power
// at +1, +3 and +5%, the mean runs at +5% and the interval coverage, each
// from -trials simulated campaigns per effect with a fixed seed.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/abbench/abbench/decide"
)

func main() {
	trials := flag.Int("trials", 4000, "simulated campaigns per cell and effect")
	effect := flag.Float64("effect", decide.DefaultRule.Effect, "the smallest effect of interest, percent")
	pairs := flag.String("pairs", "2,3,4,5,6,8,10", "fixed designs, pairs per design")
	robust := flag.Bool("robust", false, "decide with the signed-rank method instead of the paired t")
	flag.Parse()
	rule := decide.Rule{Alpha: decide.DefaultRule.Alpha, Effect: *effect, HigherIsBetter: true}
	if *robust {
		rule.Method = decide.Robust
	}
	seq, err := decide.NewSequential(decide.MinLookPairs, 10, decide.DefaultRule.Alpha)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("smallest effect %.2g%%, alpha %g, %d campaigns per cell and effect; sequential per-look level %.4f\n\n", *effect, rule.Alpha, *trials, seq.LookAlpha)
	fmt.Println("| noise | design | A/A false verdicts | power +1% | power +3% | power +5% | runs at +5% | coverage | goals |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	var misses []string
	for i, m := range decide.Models {
		var designs []*decide.Sequential
		for _, p := range strings.Split(*pairs, ",") {
			n, err := strconv.Atoi(p)
			if err != nil {
				fmt.Fprintf(os.Stderr, "statval: -pairs %s: %v\n", *pairs, err)
				os.Exit(2)
			}
			designs = append(designs, &decide.Sequential{MinPairs: n, MaxPairs: n})
		}
		designs = append(designs, seq)
		for j, d := range designs {
			var row decide.Row
			seed := uint64(1000*i + j)
			if d.MinPairs == d.MaxPairs {
				row = decide.Validate(m, d.MinPairs, nil, rule, *trials, seed)
			} else {
				row = decide.Validate(m, 0, d, rule, *trials, seed)
			}
			goals := "met"
			if m := row.Misses(); len(m) > 0 {
				goals = strings.Join(m, "; ")
				misses = append(misses, row.Model+", "+row.Design+": "+goals)
			}
			fmt.Printf("| %s | %s | %.1f%% | %.0f%% | %.0f%% | %.0f%% | %.1f | %.1f%% | %s |\n", row.Model, row.Design,
				100*row.FalseRate, 100*row.Power[0], 100*row.Power[1], 100*row.Power[2], row.MeanRuns, 100*row.Coverage, goals)
		}
	}
	fmt.Println()
	if len(misses) > 0 {
		fmt.Printf("%d cell(s) miss a goal:\n%s\n", len(misses), strings.Join(misses, "\n"))
		os.Exit(1)
	}
	fmt.Println("every cell meets its goals (false verdicts <= 5%, coverage 93-97%, within Monte Carlo error at 1%)")
}
