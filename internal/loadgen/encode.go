package loadgen

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// The result files are written as encoding/json writes them, byte for
// byte (TestEncodingIsEncodingJSONs), without its reflection and without
// holding a file whole in memory: a run of a million requests writes a
// million lines and arrays of a million numbers.

// appendFloat appends f as encoding/json writes a float64 (ES6 number
// form: exponents below 1e-6 and from 1e21, e-9 not e-09).
func appendFloat(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...) // never a duration's; encoding/json would fail the file
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// appendMs appends ms(d) as appendFloat does, and appendSeconds
// d.Seconds(): a latency, most often, written as the decimal it is, its
// digits those of d's nanoseconds, without strconv's search for the
// shortest digits of a float64 (four searches a request were about 4%
// of the client's CPU a request). They are that search's: the float64
// is the nearest to that decimal of at most 15 digits, and two decimals
// of at most 15 digits are never nearest the same float64 (DBL_DIG), so
// no other is as short. That holds for ms(d), one correctly rounded
// division of an exact d, below 1e15 ns, and for d.Seconds() below a
// second, where it is one too; every other is appendFloat's, as are a
// fraction of a second below 1e-6, written with an exponent.
func appendMs(b []byte, d time.Duration) []byte {
	if d <= -1e15 || d >= 1e15 {
		return appendFloat(b, ms(d))
	}
	return appendDecimal(b, d, 6)
}

func appendSeconds(b []byte, d time.Duration) []byte {
	if d != 0 && (d <= -time.Second || d >= time.Second || -1000 < d && d < 1000) {
		return appendFloat(b, d.Seconds())
	}
	return appendDecimal(b, d, 9)
}

// appendDecimal appends d / 10^places (places at most 9), its fraction
// without trailing zeros (and without a point when none is left).
func appendDecimal(b []byte, d time.Duration, places int) []byte {
	n := int64(d)
	if n < 0 {
		b, n = append(b, '-'), -n
	}
	var digits [9]byte
	for i := places - 1; i >= 0; i-- {
		digits[i] = byte('0' + n%10)
		n /= 10
	}
	b = strconv.AppendInt(b, n, 10)
	end := places
	for end > 0 && digits[end-1] == '0' {
		end--
	}
	if end == 0 {
		return b
	}
	return append(append(b, '.'), digits[:end]...)
}

// appendString appends s quoted as encoding/json quotes it; the common
// plain strings without its help.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSON appends the outcome's line of the per-request records: what
// MarshalJSON writes.
func (o *Outcome) appendJSON(b []byte) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, int64(o.Index), 10)
	b = append(b, `,"prompt":`...)
	b = strconv.AppendInt(b, int64(o.Prompt), 10)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(o.Line), 10)
	b = append(b, `,"sent":`...)
	b = strconv.AppendBool(b, o.Sent)
	b = append(b, `,"send_s":`...)
	b = appendSeconds(b, o.Send)
	b = append(b, `,"ttft_ms":`...)
	b = appendMs(b, o.TTFT)
	b = append(b, `,"itl_ms":[`...)
	for i, d := range o.ITLs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendMs(b, d)
	}
	b = append(b, `],"e2e_ms":`...)
	b = appendMs(b, o.E2E)
	b = append(b, `,"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(o.PromptTokens), 10)
	b = append(b, `,"output_tokens":`...)
	b = strconv.AppendInt(b, int64(o.OutputTokens), 10)
	if o.TokensFrom != "" {
		b = append(b, `,"tokens_from":`...)
		b = appendString(b, o.TokensFrom)
	}
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(o.Status), 10)
	if o.Kind != "" {
		b = append(b, `,"failure":`...)
		b = appendString(b, o.Kind)
	}
	if o.Error != "" {
		b = append(b, `,"error":`...)
		b = appendString(b, o.Error)
	}
	return append(b, '}')
}

// recordArrays are the record's keys of one value per request, and
// how to write a request's: spooled as the run goes (tally), never built
// whole.
var recordArrays = [...]struct {
	key  string
	each func(b []byte, o *Outcome) []byte
}{
	{"errors", func(b []byte, o *Outcome) []byte { return appendString(b, o.Error) }},
	{"input_lens", func(b []byte, o *Outcome) []byte { return strconv.AppendInt(b, int64(o.PromptTokens), 10) }},
	{"itls", func(b []byte, o *Outcome) []byte {
		if !o.OK() || len(o.ITLs) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, "[\n"...)
		for j, d := range o.ITLs {
			if j > 0 {
				b = append(b, ",\n"...)
			}
			b = append(b, "      "...)
			b = appendSeconds(b, d)
		}
		return append(b, "\n    ]"...)
	}},
	{"output_lens", func(b []byte, o *Outcome) []byte {
		if o.OK() {
			return strconv.AppendInt(b, int64(o.OutputTokens), 10)
		}
		return append(b, '0')
	}},
	{"ttfts", func(b []byte, o *Outcome) []byte { return appendSeconds(b, o.TTFT) }},
}

// writeRecord writes Record(now) as json.MarshalIndent(rec, "", "  ")
// does, its per-request arrays copied from their spools.
func (r *Result) writeRecord(w *bufio.Writer, now time.Time) error {
	t := r.tally()
	rec := r.recordSummary(t, now)
	arrays := map[string]int{}
	keys := make([]string, 0, len(rec)+len(recordArrays))
	for k := range rec {
		keys = append(keys, k)
	}
	for i, a := range recordArrays {
		keys, arrays[a.key] = append(keys, a.key), i
	}
	slices.Sort(keys)
	var b []byte
	w.WriteString("{")
	for n, k := range keys {
		b = b[:0]
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n  "...)
		b = appendString(b, k)
		b = append(b, ": "...)
		if i, ok := arrays[k]; ok {
			w.Write(b)
			if err := writeArray(w, t, i); err != nil {
				return err
			}
			continue
		}
		v, err := json.MarshalIndent(rec[k], "  ", "  ")
		if err != nil {
			return err
		}
		w.Write(append(b, v...))
	}
	w.WriteString("\n}\n")
	return w.Flush()
}

// writeArray writes the record's per-request array i from its spool,
// indented as MarshalIndent indents a value of the record.
func writeArray(w *bufio.Writer, t *tally, i int) error {
	if t.requested == 0 {
		w.WriteString("[]")
		return nil
	}
	r, err := t.arrayReader(i)
	if err != nil {
		return err
	}
	w.WriteString("[")
	if _, err := io.Copy(w, r); err != nil {
		return err
	}
	w.WriteString("\n  ]")
	return nil
}
