package compare

import (
	"encoding/csv"
	"io"
	"strings"

	"github.com/abbench/abbench/internal/numfmt"
)

// CSV writes a sweep as one CSV table: the comparison's columns
// (csvHeader) with the cell first and the treatment's raw p last, a row
// per arm of every cell. Its p is the one the cell's verdict was
// decided at: Holm-adjusted, or a sequential sweep's own at its share.
func (sw *Sweep) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write(append(append([]string{"cell"}, csvHeader...), "raw_p"))
	for _, c := range sw.Cells {
		for _, row := range NewReport(c.Comparison).csvRows() {
			raw := ""
			if p, ok := c.RawP[row[csvArm]]; ok {
				raw = numfmt.Plain(p)
			}
			cw.Write(append(append([]string{c.Cell}, row...), raw))
		}
	}
	cw.Flush()
	return cw.Error()
}

// JUnit writes a sweep as one JUnit report: each cell's suites as a
// comparison's (a suite per run, then the cell's comparison, named for
// the cell and failed when the cell is censored or meets failOn), and,
// when the sweep itself is censored (a cell of the plan missing), a
// failed case saying why.
func (sw *Sweep) JUnit(w io.Writer, failOn string) error {
	all := junitSuites{Name: "abbench " + sw.Scenario}
	var total float64
	for _, c := range sw.Cells {
		total += all.add(NewReport(c.Comparison), failOn, c.Cell)
	}
	if len(sw.Reasons) > 0 {
		var lines []string
		for _, rs := range sw.Reasons {
			lines = append(lines, rs.Lines()...)
		}
		why := "sweep censored: " + sw.Reasons[0].String()
		all.Suites = append(all.Suites, junitSuite{Name: "abbench.sweep", Tests: 1, Failures: 1, Time: seconds(0), Hostname: "unknown",
			Cases: []junitCase{{Name: "sweep", Classname: "abbench.compare", Time: seconds(0),
				Failure: &junitFailure{Message: why, Type: "censored", Text: strings.Join(lines, "\n")}}}})
		all.Tests++
		all.Failures++
	}
	all.Time = seconds(total)
	return all.write(w)
}
