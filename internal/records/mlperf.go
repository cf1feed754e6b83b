package records

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/abbench/abbench/internal/lazyregexp"
)

// parseMLPerf reads MLPerf LoadGen's record of a performance run: its
// mlperf_log_summary.txt (the 2020 layout too) or its
// mlperf_log_detail.txt of :::MLLOG lines. LoadGen's verdict is its
// "Result is : VALID" (result_validity), with the checks it names when
// not (performance constraints, min duration, min queries, early
// stopping) and its own advice; the errors LoadGen logged make the run
// invalid too, as MLCommons' submission checker holds. Its work is
// queries: the detail log counts them (result_query_count), the summary
// does not, and LoadGen has no failed query (a query the system never
// answers stops the run).
func (r *Record) parseMLPerf(data []byte, _ Spec) {
	r.Unit = UnitQueries
	switch {
	case bytes.Contains(data, []byte(":::MLLOG ")):
		r.mlperfDetail(data)
	case bytes.Count(data, []byte(mlperfSummaryHeader)) > 1:
		// Summaries of several runs in one file (LoadGen writes one per
		// run): read line by line, the later run's lines would win,
		// mixed with any line only the earlier wrote; as the detail
		// log's several results, refused.
		r.unreadable("holds %d %q headers: LoadGen writes one summary per run; give each run's summary its own file", bytes.Count(data, []byte(mlperfSummaryHeader)), mlperfSummaryHeader)
	case bytes.Contains(data, []byte(mlperfSummaryHeader)):
		r.mlperfSummary(string(data))
	case mlperfOldDetailLine.Match(data):
		r.unreadable("is LoadGen's plain-text detail log (LoadGen before 1.0), which holds no result: read mlperf_log_summary.txt of the same run")
		if errs := mlperfOldDetailError.FindAllSubmatch(data, -1); len(errs) > 0 {
			msgs := make([]string, len(errs))
			for i, e := range errs {
				msgs[i] = strings.TrimSpace(string(e[1]))
			}
			r.problem("%s", mlperfErrors(len(errs), msgs))
		}
	default:
		r.unreadable("is neither an MLPerf LoadGen summary (no \"MLPerf Results Summary\" header) nor a LoadGen detail log (no :::MLLOG lines)")
	}
}

// mlperfSummaryHeader opens LoadGen's summary.
const mlperfSummaryHeader = "MLPerf Results Summary"

var (
	mlperfOldDetailLine  = lazyregexp.New(`(?m)^"pid": \d+, "tid": \d+, "ts": \d+ns : `)
	mlperfOldDetailError = lazyregexp.New(`(?m)^"pid": \d+, "tid": \d+, "ts": \d+ns : ERROR : (.*)$`)
	mlperfSummaryLine    = lazyregexp.New(`^\s*(?:\* )?([^:]*?)\s*:\s*([-+0-9.eE]+)\s*$`)
	mlperfCheckLine      = lazyregexp.New(`^\s*(Performance constraints|Min duration|Min queries|Early stopping) satisfied\s*:\s*(\S*)\s*$`)
	mlperfErrorsLine     = lazyregexp.New(`^(No|\d+) (?:errors|ERRORS?) encountered`)
	mlperfEarlyStopping  = lazyregexp.New(`^(?:(TTFT|TPOT) )?Early Stopping Result:\s*$`)
)

// mlperfErrors says LoadGen's errors, in its words ("1 ERROR
// encountered"), with their messages where the log has them.
func mlperfErrors(n int, msgs []string) string {
	s := "1 ERROR encountered"
	if n != 1 {
		s = strconv.Itoa(n) + " ERRORS encountered"
	}
	if len(msgs) > 0 {
		s += ": " + strings.Join(msgs, ", ")
	}
	return s
}

// mlperfVerdict gathers what LoadGen says of its run, from either file.
type mlperfVerdict struct {
	result  string   // VALID or INVALID; "" when the file has none
	notMet  []string // the checks LoadGen says were not satisfied
	advice  []string // its recommendations and failed early stopping tests
	errors  int      // -1 until the file says
	errMsgs []string
}

func (v *mlperfVerdict) check(name string, met bool) {
	if !met {
		v.notMet = append(v.notMet, strings.ToLower(name)+" not satisfied")
	}
}

// give records the verdict: valid only if LoadGen said VALID, no check
// failed and it logged no error.
func (r *Record) giveMLPerfVerdict(v *mlperfVerdict) {
	reasons := append(append([]string{}, v.notMet...), v.advice...)
	if v.result != "VALID" && v.result != "INVALID" {
		reasons = append([]string{strconv.Quote(v.result) + " is neither VALID nor INVALID"}, reasons...)
	}
	if v.errors > 0 {
		reasons = append(reasons, mlperfErrors(v.errors, v.errMsgs))
	}
	r.verdict(v.result == "VALID" && len(reasons) == 0, reasons...)
}

// mlperfSummary reads mlperf_log_summary.txt.
func (r *Record) mlperfSummary(text string) {
	s := summaryReader{r: r, v: &mlperfVerdict{errors: -1}}
	for _, line := range strings.Split(text, "\n") {
		s.line(strings.TrimRight(line, "\r"))
	}
	s.endBlock()
	switch {
	case s.v.result == "":
		r.unreadable("has no \"Result is :\" line: LoadGen prints one in the summary of every performance run (is it an accuracy run's, or cut short?)")
	case s.v.errors < 0:
		r.problem("has no line counting LoadGen's errors (\"No errors encountered during test.\"), which ends every summary: is it cut short?")
	}
	if s.v.result != "" {
		r.giveMLPerfVerdict(s.v)
	}
}

// summaryReader reads a summary line by line: a block of bullets
// (recommendations, an early stopping result) runs until a line that
// is not one of its bullets or their continuation.
type summaryReader struct {
	r           *Record
	v           *mlperfVerdict
	multiStream bool
	params      bool     // in "Test Parameters Used": settings, not results
	block       string   // "advice", or the early stopping test ("", TTFT, TPOT) after "es:"
	bullets     []string // the block's lines so far
}

func (s *summaryReader) line(line string) {
	if s.block != "" && strings.HasPrefix(line, " ") && strings.TrimSpace(line) != "" {
		s.bullets = append(s.bullets, strings.TrimSpace(line))
		s.r.mlperfEstimates(line, s.multiStream)
		return
	}
	s.endBlock()
	trimmed := strings.TrimSpace(line)
	switch m := mlperfEarlyStopping.FindStringSubmatch(trimmed); {
	case trimmed == "Test Parameters Used":
		s.params = true
	case strings.HasPrefix(trimmed, "Scenario") && strings.Contains(trimmed, ":"):
		scenario := strings.TrimSpace(trimmed[strings.Index(trimmed, ":")+1:])
		s.multiStream = strings.EqualFold(strings.ReplaceAll(scenario, " ", ""), "MultiStream")
	case strings.HasPrefix(trimmed, "Result is :"):
		s.v.result = strings.TrimSpace(strings.TrimPrefix(trimmed, "Result is :"))
	case trimmed == "Recommendations:":
		s.block = "advice"
	case m != nil:
		s.block = "es:" + m[1]
	default:
		s.fact(line)
	}
}

// fact reads a line that opens no block: a check, the error count, a
// metric.
func (s *summaryReader) fact(line string) {
	if m := mlperfCheckLine.FindStringSubmatch(line); m != nil {
		s.v.check(m[1], strings.EqualFold(m[2], "yes"))
		return
	}
	if m := mlperfErrorsLine.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
		s.v.errors = 0
		if m[1] != "No" {
			s.v.errors, _ = strconv.Atoi(m[1])
		}
		return
	}
	m := mlperfSummaryLine.FindStringSubmatch(line)
	if m == nil || s.params {
		return
	}
	name, ok := mlperfMetricName(mlperfSummaryNames, strings.ToLower(strings.Join(strings.Fields(m[1]), " ")), s.multiStream)
	if v, err := strconv.ParseFloat(m[2], 64); ok && err == nil {
		s.r.setMLPerfMetric(name, v)
	}
}

// endBlock closes a block of bullets: recommendations become the
// verdict's advice, a failed early stopping test its reason.
func (s *summaryReader) endBlock() {
	switch {
	case s.block == "advice":
		for _, b := range splitBullets(s.bullets) {
			s.v.advice = append(s.v.advice, strings.TrimSuffix(b, "."))
		}
	case strings.HasPrefix(s.block, "es:"):
		if reason := earlyStoppingReason(strings.TrimPrefix(s.block, "es:"), strings.Join(s.bullets, " ")); reason != "" {
			s.v.advice = append(s.v.advice, strings.TrimSuffix(reason, "."))
		}
	}
	s.block, s.bullets = "", nil
}

// splitBullets joins the lines of a block into its " * " bullets, a
// continuation line to the bullet before it.
func splitBullets(lines []string) []string {
	var out []string
	for _, l := range lines {
		if b, ok := strings.CutPrefix(l, "* "); ok || len(out) == 0 {
			out = append(out, b)
			continue
		}
		out[len(out)-1] += " " + l
	}
	return out
}
