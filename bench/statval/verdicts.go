package main

import (
	"fmt"
	"strings"

	"github.com/abbench/abbench/internal/decide"
)

// printByVerdict prints the sequential designs' coverage by the verdict
// said, over every effect, with the number of intervals behind each. It
// is no goal: a no-change interval lies within the smallest effect and
// cannot hold a true change beyond it, and an interval said to be a
// change at low power lies further from zero than the truth.
func printByVerdict(rows []decide.Row) {
	fmt.Println("Coverage by the verdict said (sequential designs, every effect; intervals behind each share in brackets):")
	fmt.Println()
	head := []string{"noise", "design"}
	for _, k := range decide.VerdictKinds {
		head = append(head, "at "+k)
	}
	fmt.Printf("| %s |\n| --- | --- | ---: | ---: | ---: |\n", strings.Join(head, " | "))
	for _, row := range rows {
		if !strings.HasPrefix(row.Design, "sequential") {
			continue
		}
		cells := []string{row.Model, row.Design}
		for _, s := range row.CoverIf {
			cells = append(cells, fmt.Sprintf("%s (%d)", share(s), s.N))
		}
		fmt.Printf("| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Println()
}
