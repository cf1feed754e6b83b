package compare

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/abbench/abbench/internal/numfmt"
)

// The JUnit report follows the schema Jenkins' xUnit plugin validates
// against (junit-10.xsd, in testdata/junit with its source): every suite
// has tests, failures and errors; time is seconds with at most three
// decimals; properties carry what a reporter shows beside the cases.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Hostname   string          `xml:"hostname,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Output    string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// seconds formats a duration as junit-10.xsd's time: at most 3 decimals.
func seconds(s float64) string { return fmt.Sprintf("%.3f", max(s, 0)) }

// suiteName keeps a suite name free of '/', which reporters read as a path.
func suiteName(parts ...string) string {
	return strings.ReplaceAll(strings.Join(parts, "."), "/", "_")
}

// JUnit writes a suite per run (a case per criterion) and one for the
// comparison itself, whose properties hold the metric, delta, interval, p,
// verdict and digests, for Jenkins and GitLab.
func (r Report) JUnit(w io.Writer, failOn string) error {
	all := junitSuites{Name: "abbench " + r.Scenario}
	total := all.add(r, failOn, "")
	all.Time = seconds(total)
	return all.write(w)
}

// add appends r's suites (a suite per run, then the comparison's, named
// for cell when it is a sweep's cell) and counts them; it returns the
// runs' seconds.
func (all *junitSuites) add(r Report, failOn, cell string) float64 {
	var total float64
	host := "unknown"
	for _, run := range r.Runs {
		s, h := junitRun(run, r.Metric)
		if h != "" {
			host = h
		}
		total += run.Seconds
		all.Suites = append(all.Suites, s)
		all.Tests += s.Tests
		all.Failures += s.Failures
	}
	cmpCase := junitCase{Name: "comparison", Classname: "abbench.compare", Time: seconds(0), Output: r.Headline()}
	if r.Verdict == Censored {
		var lines []string
		for _, rs := range r.Reasons {
			lines = append(lines, rs.Lines()...)
		}
		cmpCase.Failure = &junitFailure{Message: r.Headline(), Type: "censored", Text: strings.Join(lines, "\n")}
	} else if c := r.FailsOn(failOn); c != "" {
		cmpCase.Failure = &junitFailure{Message: r.Headline(), Type: "fail-on-" + c, Text: r.Headline()}
	}
	name, props := "abbench.comparison", r.junitProperties()
	if cell != "" {
		name, props = suiteName("abbench.comparison", cell), append([]junitProperty{{"cell", cell}}, props...)
	}
	cs := junitSuite{Name: name, Tests: 1, Time: seconds(0), Hostname: host, Cases: []junitCase{cmpCase}, Properties: props}
	if cmpCase.Failure != nil {
		cs.Failures = 1
	}
	all.Suites = append(all.Suites, cs)
	all.Tests += cs.Tests
	all.Failures += cs.Failures
	return total
}

// junitRun is a run's suite, a case per criterion, and the host it ran on
// ("" when it says none).
func junitRun(run RunSummary, metric string) (junitSuite, string) {
	s := junitSuite{Name: suiteName("abbench", run.Arm, run.Token), Time: seconds(run.Seconds), Hostname: "unknown",
		Properties: []junitProperty{{"arm", run.Arm}, {"token", run.Token}, {"accepted", fmt.Sprint(run.Accepted)}, {"path", run.Path}}}
	if !run.Started.IsZero() {
		s.Timestamp = run.Started.UTC().Format(time.RFC3339)
	}
	host := ""
	if len(run.Hosts) > 0 {
		s.Hostname = strings.Join(run.Hosts, ",")
		host = run.Hosts[0]
	}
	if run.Value != nil {
		s.Properties = append(s.Properties, junitProperty{metric, fmt.Sprint(*run.Value)})
	}
	for _, c := range run.Criteria {
		tc := junitCase{Name: c.ID, Classname: "abbench." + run.Arm, Time: seconds(0), Output: c.Detail}
		if !c.OK {
			codes := make([]string, len(c.Codes))
			for i, code := range c.Codes {
				codes[i] = string(code)
			}
			tc.Failure = &junitFailure{Message: c.Detail, Type: strings.Join(codes, ","), Text: c.Detail}
			s.Failures++
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Tests = len(s.Cases)
	return s, host
}

// write writes the report: the XML header, the suites, a newline.
func (all *junitSuites) write(w io.Writer) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitProperties are the comparison's numbers as JUnit properties.
func (r Report) junitProperties() []junitProperty {
	p := []junitProperty{{"scenario", r.Scenario}, {"metric", r.Metric}, {"baseline", r.Baseline}, {"verdict", r.Verdict},
		{"matched_digest", r.MatchedDigest}}
	if r.Workload != nil {
		p = append(p, junitProperty{"workload_digest", r.Workload.String()})
	}
	for _, d := range r.Deltas {
		prefix := d.Arm + "."
		if d.Pct != nil {
			p = append(p, junitProperty{prefix + "delta_pct", fmt.Sprintf("%.4f", *d.Pct)})
		}
		if d.Interval != nil {
			p = append(p, junitProperty{prefix + "interval_pct", fmt.Sprintf("[%.4f, %.4f]", d.Interval[0], d.Interval[1])})
		}
		if d.P != nil {
			p = append(p, junitProperty{prefix + "p", numfmt.Plain(*d.P)})
		}
		p = append(p, junitProperty{prefix + "verdict", d.Verdict}, junitProperty{prefix + "method", d.Method})
	}
	return p
}
