package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	recordfmt "github.com/abbench/abbench/internal/records"
	"github.com/abbench/abbench/internal/textout"
)

// FamilySchema names the JSON report of several metrics compared together.
const FamilySchema = "abbench-metrics-v1"

// FamilyFormats are the report formats a comparison of several metrics
// renders in.
var FamilyFormats = []string{"table", "json", "markdown"}

// Family is the comparison of several metrics of the same runs: each
// metric compared as Compare compares one, then every treatment's test of
// every metric held to alpha as one family (Holm's method, or a
// sequential campaign's shares), as a sweep's cells are, so that asking of several metrics does not mean a chance of
// a false verdict per metric.
type Family struct {
	Schema     string `json:"schema"` // FamilySchema
	Correction string `json:"correction"`
	// Family is the number of tests Holm adjusts for: every treatment of
	// every metric, a censored one's included.
	Family      int          `json:"family_size"`
	Comparisons []*Result    `json:"comparisons"`
	RawP        []RawPMetric `json:"raw_p"`
}

// RawPMetric are one metric's tests' p before the adjustment, by arm.
type RawPMetric struct {
	Metric string             `json:"metric"`
	P      map[string]float64 `json:"p"`
}

// CompareMetrics compares runs on each of metrics and adjusts the tests
// as one family: Holm's method, or in a sequential campaign each test
// held to its share of alpha at every look (SequentialShare).
func CompareMetrics(runs []Run, opts Options, metrics []string) *Family {
	f := &Family{Schema: FamilySchema, Correction: Holm}
	raw := make([]map[string]float64, len(metrics))
	for i, m := range metrics {
		o := opts
		o.Metric, o.Metrics = m, len(metrics)
		f.Comparisons = append(f.Comparisons, Compare(runs, o))
		raw[i] = map[string]float64{}
	}
	if shared := sharedFamily(f.Comparisons, raw); shared > 0 {
		f.Correction, f.Family = SequentialShare, shared
	} else {
		f.Family = holm(f.Comparisons, raw, opts, "tests of the metrics compared")
	}
	for i, m := range metrics {
		f.RawP = append(f.RawP, RawPMetric{Metric: m, P: raw[i]})
	}
	return f
}

// SequentialShare names the correction of a sequential campaign's family
// of tests (its metrics, a sweep's cells): each treatment of each held to
// its share of alpha at every look (decide.Sequential.FamilyOf), not
// Holm's adjustment of the looks' nominal p, which made a metric the stop
// called improved, or a sweep's cell, inconclusive beside an interval
// that excluded no change.
const SequentialShare = "sequential-share"

// sharedFamily is the number of tests of a sequential campaign's family
// (its treatments times its metrics times a sweep's cells), each already
// decided at its share's boundary, the stop's looks too, so that the
// verdicts, the stops and the intervals are one decision; each test's p
// goes into raw (by comparison, by arm) as it is: nothing adjusts it. It
// is 0 when the comparisons are not of one (a fixed design's, all
// censored, or more than the plan signed): Holm's method adjusts them
// then.
func sharedFamily(rs []*Result, raw []map[string]float64) int {
	family := 0
	for _, r := range rs {
		if r.Verdict == Censored || r.Design.Sequential == nil {
			continue
		}
		// A family larger than the plan signed (several metrics compared
		// after a campaign that stopped on one at the whole alpha) was
		// not the stop's: Holm's adjustment holds it, as it did then.
		if len(rs) > max(r.Design.Metrics, 1)*max(r.Design.Cells, 1) {
			return 0
		}
		family = max(len(r.Arms)-1, 1) * max(r.Design.Metrics, 1) * max(r.Design.Cells, 1)
		break
	}
	if family == 0 {
		return 0
	}
	for i, r := range rs {
		for _, d := range r.Deltas {
			if d.P != nil {
				raw[i][d.Arm] = *d.P
			}
		}
	}
	return family
}

// Censored says whether any metric's comparison is censored.
func (f *Family) Censored() *Result {
	for _, r := range f.Comparisons {
		if r.Verdict == Censored {
			return r
		}
	}
	return nil
}

// Render writes the family's report: each metric's in turn (a table
// each), then the family; or its JSON.
func (f *Family) Render(w io.Writer, format, failOn string) error {
	if !slices.Contains(FamilyFormats, format) {
		return fmt.Errorf("several metrics are reported as %s, not %s: each metric is a table of its own", strings.Join(FamilyFormats, " or "), format)
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(f)
	}
	for i, r := range f.Comparisons {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		var err error
		if format == "markdown" && i > 0 {
			// the same runs: their arms, constants and criteria said once
			first := NewReport(f.Comparisons[0])
			err = NewReport(r).markdownAfter(w, &first)
		} else {
			err = NewReport(r).Render(w, format, failOn)
		}
		if err != nil {
			return err
		}
	}
	out := textout.New(w)
	out.Printf("\n%d metrics compared together (%s): a family of %d test(s), %s\n", len(f.Comparisons), f.metricList(), f.Family, f.held())
	return out.Err()
}

// held says how the family's tests are held to its alpha.
func (f *Family) held() string {
	if f.Correction == SequentialShare {
		return "each held to its share of alpha at every look, the stop's look at the headline metric too"
	}
	return "each p Holm-adjusted for it"
}

func (f *Family) metricList() string {
	names := make([]string, len(f.Comparisons))
	for i, r := range f.Comparisons {
		names[i] = MetricLabel(r.Metric)
	}
	return strings.Join(names, ", ")
}

// UnknownMetricError is a metric no run's record holds: a typo, or a
// metric the records' format does not provide. It is refused before any
// comparison, since censoring every run for it would blame the runs.
type UnknownMetricError struct {
	Metric string
	// Have are the metrics the runs' records hold; Formats their formats.
	Have    []string
	Formats []string
}

func (e *UnknownMetricError) Error() string {
	msg := fmt.Sprintf("no run's record has metric %q; they have %s", e.Metric, strings.Join(e.Have, ", "))
	if e.Metric == recordfmt.Goodput {
		// Three causes leave it out, and the third looks like the first.
		msg += "; a record holds goodput only where the scenario declares slo: objectives, the record has its per-request lists, and at least one request met every objective (the objectives are in milliseconds)"
	}
	for _, format := range e.Formats {
		if list := recordfmt.ProvidedList(format); list != "" {
			msg += fmt.Sprintf(" (a %s record can have %s)", format, list)
		}
	}
	return msg
}

// CheckMetrics refuses a metric that no run's record holds, while some
// record holds metrics (runs whose records could not be read are the
// gate's to censor, whatever was asked of them).
func CheckMetrics(runs []Run, metrics []string) error {
	have, formats := map[string]bool{}, map[string]bool{}
	for _, run := range runs {
		if e := run.Evidence; e != nil && e.Throughput != nil {
			for name := range e.Throughput.Metrics {
				have[name] = true
			}
			formats[e.Throughput.Format] = true
		}
	}
	if len(have) == 0 {
		return nil
	}
	for _, m := range metrics {
		if m != "" && !have[m] {
			return &UnknownMetricError{Metric: m, Have: slices.Sorted(maps.Keys(have)), Formats: slices.Sorted(maps.Keys(formats))}
		}
	}
	return nil
}

// DeclaredMetrics are the metrics the runs' scenario compares together
// (throughput.metrics), nil when it declares none.
func DeclaredMetrics(runs []Run) []string {
	for _, run := range runs {
		if e := run.Evidence; e != nil && len(e.Metrics) > 0 {
			return e.Metrics
		}
	}
	return nil
}
