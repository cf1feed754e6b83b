package compare

// Report is what is written of a Result: the text report and its
// headline, Markdown, JSON's companions (CSV, JUnit, the dashboards'
// exports), the GitHub annotations, the SVG plot and the summary. A
// Result is the decision and its data; a Report reads it and decides
// nothing.
type Report struct{ *Result }

// NewReport is r's output.
func NewReport(r *Result) Report { return Report{Result: r} }
