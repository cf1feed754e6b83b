// Command statval prints the statistical validation tables of
// docs/statistics-tables.md: for every noise model, fixed designs of 2 to 10
// pairs, the sequential designs and benchstat on the same runs (10+10),
// the A/A false-verdict rate, the power at each effect, the mean runs and
// the interval coverage, each from -campaigns simulated campaigns per
// effect with a fixed seed; then the sequential designs' coverage by the
// verdict they said.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/decide"
)

func main() {
	campaigns := flag.Int("campaigns", 4000, "simulated campaigns per cell and effect")
	effect := flag.Float64("effect", decide.DefaultRule.Effect, "the smallest effect of interest, percent")
	pairs := flag.String("pairs", "2,3,4,5,6,8,10", "fixed designs, pairs per design")
	robust := flag.Bool("robust", false, "decide with the signed-rank method instead of the paired t")
	candidates := flag.Bool("candidates", false, "add the sequential designs the default was chosen from")
	models := flag.String("models", "", "only the noise models whose names hold one of these comma-separated words (default: every one)")
	flag.Parse()
	picked, err := pickModels(*models)
	if err != nil {
		fmt.Fprintln(os.Stderr, "statval:", err)
		os.Exit(2)
	}
	rule := decide.Rule{Alpha: decide.DefaultRule.Alpha, Effect: *effect, HigherIsBetter: true}
	if *robust {
		rule.Method = decide.Robust
	}
	seq, err := decide.NewSequential(decide.MinLookPairs, decide.DefaultMaxPairs, decide.DefaultRule.Alpha)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var designs []decide.Design
	for _, p := range strings.Split(*pairs, ",") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > decide.CampaignPairs {
			fmt.Fprintf(os.Stderr, "statval: -pairs %s: each a count of pairs from 1 to %d\n", *pairs, decide.CampaignPairs)
			os.Exit(2)
		}
		designs = append(designs, decide.Fixed(n))
	}
	seqDesigns, held := sequentialDesigns(seq, *candidates)
	heldToBenchstat := map[int]bool{}
	for _, i := range held {
		heldToBenchstat[len(designs)+i] = true
	}
	designs = append(designs, seqDesigns...)
	designs = append(designs, benchstat(benchstatPairs))
	// The command that reproduces every figure below, as the docs cite it.
	fmt.Printf("bench/statistics.sh %s\n\n", strings.Join(scriptArgs(os.Args[1:]), " "))
	fmt.Printf("smallest effect %.2g%%, alpha %g, %d campaigns per cell and effect; sequential per-look levels %s\n\n", *effect, rule.Alpha, *campaigns, levels(seq))
	fmt.Println("| noise | design | A/A false verdicts | power +1% | power +2% | power +3% | power +5% | runs at +5% | coverage | at a change | at no change | goals |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	var misses []string
	var all, heldRows []decide.Row
	for _, rows := range validateAll(picked, designs, rule, *campaigns) {
		all = append(all, rows...)
		for i, row := range rows {
			var bench *decide.Row
			if heldToBenchstat[i] {
				bench = &rows[len(rows)-1]
				heldRows = append(heldRows, row)
			}
			goals, missed := goalsOf(row, bench)
			if missed {
				misses = append(misses, row.Model+", "+row.Design+": "+goals)
			}
			fmt.Printf("| %s | %s | %.1f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.1f | %s | %s | %s | %s |\n", row.Model, row.Design,
				100*row.FalseRate, 100*row.Power[0], 100*row.Power[1], 100*row.Power[2], 100*row.Power[3], row.MeanRuns[4],
				share(row.Cover), share(row.CoverChange), share(row.CoverNoChange), goals)
		}
	}
	fmt.Println()
	if *candidates {
		if err := printPowerTenths(os.Stdout, heldRows, all); err != nil {
			fmt.Fprintln(os.Stderr, "statval:", err)
			os.Exit(1)
		}
	}
	printByVerdict(all)
	misses = append(misses, printFamily(picked, seq, rule, *campaigns)...)
	if *candidates {
		for _, c := range stopCandidates(seq) {
			misses = append(misses, printFamilyOf(picked, c.name, c.seq, rule, *campaigns)...)
		}
	}
	if len(misses) > 0 {
		fmt.Printf("%d cell(s) miss a goal:\n%s\n", len(misses), strings.Join(misses, "\n"))
		os.Exit(1)
	}
	fmt.Println("every cell meets its goals (false verdicts <= 5%, coverage >= 93%, within Monte Carlo error at 1%; wide: coverage above 97% for intervals that are not repeated ones)")
}

// goalsOf is a row's goals cell and whether it misses one: the goals it
// misses, else "met" and the coverages wider than their level needs. A
// row given bench (the default design's) is also held to benchstat's
// power on the same runs at a true change of decide.GoalPowerFrom or
// more.
func goalsOf(row decide.Row, bench *decide.Row) (string, bool) {
	m := row.Misses()
	if bench != nil {
		below, err := row.PowerBelow(*bench)
		if err != nil {
			panic(err) // one Validate call made every row of a model
		}
		m = append(m, below...)
	}
	if len(m) > 0 {
		return strings.Join(m, "; "), true
	}
	if w := row.Wide(); len(w) > 0 {
		return "met; wide: " + strings.Join(w, "; "), false
	}
	return "met", false
}

// share is a coverage as the table prints it: "-" where no interval counted.
func share(s decide.Share) string {
	if s.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*s.Rate())
}

// scriptArgs are statval's arguments as bench/statistics.sh takes them
// (--campaigns for -campaigns), quoted where a shell would split them
// (--models "Student t"), so the printed command runs as it reads.
func scriptArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") {
			a = "-" + a
		}
		if strings.ContainsAny(a, " \t'\"$`\\*?[]();&|<>") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return out
}
