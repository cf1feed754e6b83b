// Package promtext reads Prometheus' text exposition format (version
// 0.0.4), what a serving engine's /metrics endpoint answers: vLLM's,
// SGLang's and TensorRT-LLM's counters and gauges. It is strict: a line
// that is not a comment, a sample or blank is an error naming its line,
// never skipped, and a series given twice is an error, since which value
// counts would be a guess.
//
// It is small on purpose: prometheus/common's expfmt reads the same text
// but brings its protocol buffer model and their modules with it, and
// abbench reads nothing of a scrape but each sample's name, labels and
// value.
package promtext

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Sample is one series' value.
type Sample struct {
	Name   string
	Labels map[string]string
	Value  float64
}

// Error is a line that is not of the format.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// types are the metric types a # TYPE line may give.
var types = []string{"counter", "gauge", "histogram", "summary", "untyped"}

// Parse reads a scrape's body.
func Parse(data []byte) ([]Sample, error) {
	var out []Sample
	seen := map[string]bool{}
	typed := map[string]bool{}
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			if err := comment(line, typed); err != nil {
				return nil, &Error{n, err.Error()}
			}
			continue
		}
		s, err := ParseSeries(line, true)
		if err != nil {
			return nil, &Error{n, err.Error()}
		}
		key := s.key()
		if seen[key] {
			return nil, &Error{n, fmt.Sprintf("series %s is given twice", key)}
		}
		seen[key] = true
		out = append(out, s)
	}
	return out, nil
}

// comment checks a # HELP or # TYPE line; other comments say nothing.
func comment(line string, typed map[string]bool) error {
	fields := strings.Fields(strings.TrimPrefix(line, "#"))
	if len(fields) == 0 || fields[0] != "HELP" && fields[0] != "TYPE" {
		return nil
	}
	if len(fields) < 2 || !metricName(fields[1]) {
		return fmt.Errorf("# %s without a metric name", fields[0])
	}
	if fields[0] == "HELP" {
		return nil
	}
	if len(fields) != 3 || !slices.Contains(types, fields[2]) {
		return fmt.Errorf("# TYPE %s: the type is one of %s", fields[1], strings.Join(types, ", "))
	}
	if typed[fields[1]] {
		return fmt.Errorf("# TYPE %s is given twice", fields[1])
	}
	typed[fields[1]] = true
	return nil
}

// ParseSeries reads NAME{LABEL="VALUE",...} and, with value, the value
// and an optional timestamp after it.
func ParseSeries(line string, value bool) (Sample, error) {
	rest := line
	end := strings.IndexAny(rest, "{ \t")
	if end < 0 {
		end = len(rest)
	}
	s := Sample{Name: rest[:end], Labels: map[string]string{}}
	if !metricName(s.Name) {
		return s, fmt.Errorf("%q is no metric name", s.Name)
	}
	rest = rest[end:]
	if strings.HasPrefix(rest, "{") {
		var err error
		if rest, err = labels(rest[1:], s.Labels); err != nil {
			return s, fmt.Errorf("%s: %v", s.Name, err)
		}
	}
	fields := strings.Fields(rest)
	if !value {
		if len(fields) != 0 {
			return s, fmt.Errorf("%s: %q after the series", s.Name, rest)
		}
		return s, nil
	}
	if len(fields) == 0 || len(fields) > 2 || rest[0] != ' ' && rest[0] != '\t' {
		return s, fmt.Errorf("%s: a sample is a series, a value and an optional timestamp", s.Name)
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil && !isRangeError(err) {
		return s, fmt.Errorf("%s: value %q is no number", s.Name, fields[0])
	}
	s.Value = v
	if len(fields) == 2 {
		if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
			return s, fmt.Errorf("%s: timestamp %q is no integer of milliseconds", s.Name, fields[1])
		}
	}
	return s, nil
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// labels reads LABEL="VALUE",...} into into, returning what follows.
func labels(rest string, into map[string]string) (string, error) {
	for {
		rest = strings.TrimLeft(rest, " \t")
		if strings.HasPrefix(rest, "}") {
			return rest[1:], nil
		}
		eq := strings.IndexByte(rest, '=')
		if eq < 0 {
			return "", fmt.Errorf("label without =")
		}
		name := strings.TrimSpace(rest[:eq])
		if !labelName(name) {
			return "", fmt.Errorf("%q is no label name", name)
		}
		if _, dup := into[name]; dup {
			return "", fmt.Errorf("label %s is given twice", name)
		}
		rest = strings.TrimLeft(rest[eq+1:], " \t")
		v, after, err := quoted(rest)
		if err != nil {
			return "", fmt.Errorf("label %s: %v", name, err)
		}
		into[name] = v
		rest = strings.TrimLeft(after, " \t")
		switch {
		case strings.HasPrefix(rest, ","):
			rest = rest[1:]
		case strings.HasPrefix(rest, "}"):
			return rest[1:], nil
		default:
			return "", fmt.Errorf("label %s: , or } after its value", name)
		}
	}
}

// quoted reads a "..." label value with its escapes (\\, \", \n).
func quoted(s string) (value, rest string, err error) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", fmt.Errorf("the value is not quoted")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			i++
			if i == len(s) {
				return "", "", fmt.Errorf("the value ends in a \\")
			}
			switch s[i] {
			case '\\', '"':
				b.WriteByte(s[i])
			case 'n':
				b.WriteByte('\n')
			default:
				return "", "", fmt.Errorf("unknown escape \\%c", s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", fmt.Errorf("the value's quote is not closed")
}

func metricName(s string) bool {
	for i, c := range s {
		if !(c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func labelName(s string) bool { return s != "" && metricName(s) && !strings.Contains(s, ":") }

// key is the series' name and sorted labels.
func (s Sample) key() string {
	var b strings.Builder
	b.WriteString(s.Name)
	for _, k := range slices.Sorted(maps.Keys(s.Labels)) {
		fmt.Fprintf(&b, ",%s=%q", k, s.Labels[k])
	}
	return b.String()
}

// Sum is the sum of every series of selector's name whose labels include
// selector's labels, and how many series it added; a series whose value
// is NaN makes the sum NaN.
func Sum(samples []Sample, selector Sample) (float64, int) {
	sum, n := 0.0, 0
	for _, s := range samples {
		if s.Name != selector.Name {
			continue
		}
		match := true
		for k, v := range selector.Labels {
			match = match && s.Labels[k] == v
		}
		if match {
			sum += s.Value
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return sum, n
}
