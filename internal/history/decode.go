package history

import (
	"bytes"
	"strconv"

	"github.com/abbench/abbench/internal/strictjson"
)

// entryDecoder decodes the store's lines. strictjson's judgement of a
// line (and its error) is the contract; it costs tens of microseconds a
// line (4x the scanner's, BenchmarkDecodeLine), seconds for a store of a
// few years: history show would miss its 2 s goal. A line as Append
// writes it (json.Marshal's form: no spaces, each field once under its own
// name, strings of plain printable ASCII) is decoded by a scanner made for
// that form, which gives up on anything else and hands the line to
// strictjson. FuzzDecodeEntry holds the two to the same result.
type entryDecoder struct {
	// same keeps one copy of the strings that repeat from line to line
	// (a scenario's name, a machine class) instead of one a line.
	same map[string]string
}

func newEntryDecoder() *entryDecoder { return &entryDecoder{same: map[string]string{}} }

func (d *entryDecoder) decode(line []byte) (Entry, error) {
	if e, ok := d.scan(line); ok {
		return e, nil
	}
	return decodeStrictly(line)
}

// decodeStrictly is the strict reading of a line: an Entry, nothing
// unknown, nothing after it (two entries run together would lose all but
// the first: the line is not an entry).
func decodeStrictly(line []byte) (Entry, error) {
	var e Entry
	err := strictjson.Unmarshal(line, &e, strictjson.Options{KnownFields: true})
	return e, err
}

// scan decodes a line in json.Marshal's form; ok is false when the line is
// in any other form (or no entry at all).
func (d *entryDecoder) scan(line []byte) (e Entry, ok bool) {
	s := lineScanner{b: line}
	if !s.eat('{') {
		return e, false
	}
	if s.eat('}') {
		return e, s.done()
	}
	var seen uint32
	for {
		name, ok := s.plainString()
		if !ok || !s.eat(':') {
			return e, false
		}
		bit, ok := d.field(&s, &e, string(name))
		if !ok || seen&bit != 0 {
			return e, false
		}
		seen |= bit
		if s.eat('}') {
			return e, s.done()
		}
		if !s.eat(',') {
			return e, false
		}
	}
}

// field decodes the value of the field named name into e; bit is the
// field's own (a field twice is left to encoding/json).
func (d *entryDecoder) field(s *lineScanner, e *Entry, name string) (bit uint32, ok bool) {
	switch name {
	case "schema":
		return 1 << 0, d.text(s, &e.Schema)
	case "kind":
		return 1 << 1, d.text(s, &e.Kind)
	case "added":
		return 1 << 2, s.time(&e.Added)
	case "time":
		return 1 << 3, s.time(&e.Time)
	case "scenario":
		return 1 << 4, d.text(s, &e.Scenario)
	case "matched_digest":
		return 1 << 5, d.text(s, &e.MatchedDigest)
	case "arm":
		return 1 << 6, d.text(s, &e.Arm)
	case "metric":
		return 1 << 7, d.text(s, &e.Metric)
	case "higher_is_better":
		return 1 << 8, s.bool(&e.HigherBetter)
	case "key":
		return 1 << 9, s.text(&e.Key)
	case "machine":
		return 1 << 10, d.text(s, &e.Machine)
	case "source":
		return 1 << 11, d.text(s, &e.Source)
	case "build":
		return 1 << 12, d.text(s, &e.Build)
	case "signed":
		return 1 << 13, s.bool(&e.Signed)
	case "value":
		return 1 << 14, s.floatRef(&e.Value)
	case "baseline":
		return 1 << 15, d.text(s, &e.Baseline)
	case "delta_pct":
		return 1 << 16, s.floatRef(&e.DeltaPct)
	case "interval":
		return 1 << 17, s.interval(&e.Interval)
	case "p":
		return 1 << 18, s.floatRef(&e.P)
	case "verdict":
		return 1 << 19, d.text(s, &e.Verdict)
	case "n":
		return 1 << 20, s.int(&e.N)
	case "method":
		return 1 << 21, d.text(s, &e.Method)
	case "plan_digest":
		return 1 << 22, d.text(s, &e.PlanDigest)
	case "run_index":
		return 1 << 23, s.int(&e.RunIndex)
	}
	return 0, false
}

// text is a string field whose value repeats across lines.
func (d *entryDecoder) text(s *lineScanner, to *string) bool {
	b, ok := s.plainString()
	if !ok {
		return false
	}
	if v, held := d.same[string(b)]; held {
		*to = v
		return true
	}
	*to = string(b)
	if len(d.same) < 1<<16 {
		d.same[*to] = *to
	}
	return true
}

// lineScanner reads json.Marshal's form of a value from b at i.
type lineScanner struct {
	b []byte
	i int
}

func (s *lineScanner) done() bool { return s.i == len(s.b) }

func (s *lineScanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *lineScanner) literal(word string) bool {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return true
	}
	return false
}

// plainString is a string of printable ASCII without escapes, its quotes
// left out.
func (s *lineScanner) plainString() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	start := s.i
	for ; s.i < len(s.b); s.i++ {
		switch c := s.b[s.i]; {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false
		}
	}
	return nil, false
}

func (s *lineScanner) text(to *string) bool {
	b, ok := s.plainString()
	*to = string(b)
	return ok
}

// time decodes a time as encoding/json does: the quoted text to the time's
// own UnmarshalJSON.
func (s *lineScanner) time(to interface{ UnmarshalJSON([]byte) error }) bool {
	start := s.i
	if _, ok := s.plainString(); !ok {
		return false
	}
	return to.UnmarshalJSON(s.b[start:s.i]) == nil
}

func (s *lineScanner) bool(to *bool) bool {
	switch {
	case s.literal("true"):
		*to = true
	case s.literal("false"):
		*to = false
	default:
		return false
	}
	return true
}

// number is a JSON number's text (a 0 followed by digits ends it early,
// and the caller finds the digits where it wants a comma).
func (s *lineScanner) number() ([]byte, bool) {
	start := s.i
	s.eat('-')
	if !s.eat('0') && s.digits() == 0 {
		return nil, false
	}
	if s.eat('.') && s.digits() == 0 {
		return nil, false
	}
	if s.eat('e') || s.eat('E') {
		if !s.eat('+') {
			s.eat('-')
		}
		if s.digits() == 0 {
			return nil, false
		}
	}
	return s.b[start:s.i], true
}

// digits skips the digits at i and says how many there were.
func (s *lineScanner) digits() int {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

func (s *lineScanner) float(to *float64) bool {
	text, ok := s.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(string(text), 64)
	*to = v
	return err == nil
}

func (s *lineScanner) floatRef(to **float64) bool {
	v := new(float64)
	*to = v
	return s.float(v)
}

func (s *lineScanner) interval(to **[2]float64) bool {
	v := new([2]float64)
	*to = v
	return s.eat('[') && s.float(&v[0]) && s.eat(',') && s.float(&v[1]) && s.eat(']')
}

func (s *lineScanner) int(to *int) bool {
	text, ok := s.number()
	if !ok || bytes.ContainsAny(text, ".eE") {
		return false
	}
	v, err := strconv.ParseInt(string(text), 10, 64)
	*to = int(v)
	return err == nil
}
