package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ValidityKey is the validity flag abbench's simulator writes; a record
// that carries it false is invalid. No format requires it.
const ValidityKey = "valid"

// toolFlags are the validity flags real tools write: TensorRT-LLM's perf
// database records carry b_is_valid. A record that has one must have it true.
var toolFlags = []string{ValidityKey, "b_is_valid"}

// flags reads the tools' validity flags (and the scenario's, flag) from a
// record object.
func (r *Record) flags(obj map[string]any, flag string) {
	for _, key := range append(slices.Clone(toolFlags), flag) {
		v, ok := obj[key]
		if key == "" || !ok {
			continue
		}
		b, isBool := v.(bool)
		if !isBool {
			r.problem("validity flag %q is not true or false", key)
			continue
		}
		if r.ValidityFlag == nil || !b {
			r.ValidityFlag = &b
		}
	}
}

// decodeJSON decodes the one JSON value data holds into v (numbers of an
// interface value as json.Number), after the checks every JSON record
// gets: Python's non-standard numbers read as null, no key twice (but in
// the values of the keys exempt names: see duplicateKey), and nothing but
// white space after the value (a *TrailingDataError): a file of two
// results read up to its first would compare a result the run may not
// have written.
func decodeJSON(data []byte, v any, exempt ...string) error {
	if key, dup := duplicateKey(newPythonReader(data), exempt...); dup {
		return fmt.Errorf("key %q appears twice (which one counts is up to the reader)", key)
	}
	src := newPythonReader(data)
	dec := json.NewDecoder(src)
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	return trailingData(data, src.shifts, dec.InputOffset())
}

// TrailingDataError is a JSON record with more than white space after
// its value: another result appended, or bytes of something else.
type TrailingDataError struct {
	// Offset is the byte of the file where what follows begins.
	Offset int64
	// Excerpt is what follows, its first bytes quoted (escaped).
	Excerpt string
}

func (e *TrailingDataError) Error() string {
	return fmt.Sprintf("data after its JSON value, at byte %d: %s", e.Offset, e.Excerpt)
}

// excerptBytes is how much of what follows a record's value its error
// quotes: enough to tell a second result from stray text.
const excerptBytes = 40

// trailingData says what follows the value that ends at end (an offset in
// what a pythonReader of data read, shifts its replacements so far), nil
// when only white space does.
func trailingData(data []byte, shifts []jsonShift, end int64) error {
	at := nextValue(data, shifts, end)
	if at == len(data) {
		return nil
	}
	return &TrailingDataError{Offset: int64(at), Excerpt: excerpt(data[at:])}
}

// nextValue is the byte of data where what follows end (an offset as in
// trailingData) begins, past white space: len(data) when nothing does.
func nextValue(data []byte, shifts []jsonShift, end int64) int {
	rest := bytes.TrimLeft(data[originalOffset(shifts, int(end)):], " \t\r\n")
	return len(data) - len(rest)
}

// excerpt quotes the first bytes of b, escaped, marked when cut.
func excerpt(b []byte) string {
	if len(b) <= excerptBytes {
		return strconv.Quote(string(b))
	}
	cut := excerptBytes
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut-- // never cut a character in two
	}
	return strconv.Quote(string(b[:cut])) + "..."
}

// duplicateKey finds a key given twice in one JSON object, at any depth,
// but in the values of the keys exempt names (objects a format's tool
// writes with keys repeated, and abbench does not read).
func duplicateKey(src io.Reader, exempt ...string) (string, bool) {
	dec := json.NewDecoder(src)
	outside := &jsonLevel{} // the top level: no object, no keys
	stack := []*jsonLevel{outside}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		top := stack[len(stack)-1]
		switch tok {
		case json.Delim('{'), json.Delim('['):
			top.value()
			level := newJSONLevel(tok == json.Delim('{'))
			level.exempt = top.exempt || top.object && slices.Contains(exempt, top.last)
			stack = append(stack, level)
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		default:
			if key, dup := top.token(tok); dup {
				return key, true
			}
		}
	}
}

// jsonLevel is one nesting level of a JSON document as duplicateKey reads
// it: in an object, the keys seen so far.
type jsonLevel struct {
	object bool
	keys   map[string]bool
	expect bool   // the next string token is a key
	last   string // the last key read
	exempt bool   // a duplicate here is no duplicate (see duplicateKey)
}

func newJSONLevel(object bool) *jsonLevel {
	if !object {
		return &jsonLevel{}
	}
	return &jsonLevel{object: true, keys: map[string]bool{}, expect: true}
}

// value notes a value of the level: in an object, a key comes next.
func (l *jsonLevel) value() {
	if l.object {
		l.expect = true
	}
}

// token takes a token that opens no level: a key (true when the object
// holds it already) or a value.
func (l *jsonLevel) token(tok json.Token) (string, bool) {
	if key, ok := tok.(string); ok && l.object && l.expect {
		if l.keys[key] && !l.exempt {
			return key, true
		}
		l.last = key
		l.keys[key] = true
		l.expect = false
		return "", false
	}
	l.value()
	return "", false
}

// decodeList decodes a tool's JSON file, an object, and returns its list
// under key; false, with the file unreadable, when the file does not
// parse or lacks the list (what names the file: "a hyperfine
// --export-json file"); exempt as for decodeJSON.
func decodeList[T any](r *Record, data []byte, key, what string, exempt ...string) ([]T, bool) {
	var file map[string]json.RawMessage
	if err := decodeJSON(data, &file, exempt...); err != nil {
		r.unreadable("does not parse as %s: %v", what, err)
		return nil, false
	}
	raw, ok := file[key]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		r.unreadable("has no %q: not %s", key, what)
		return nil, false
	}
	var list []T
	if err := json.Unmarshal(raw, &list); err != nil {
		r.unreadable("%q does not parse as %s's: %v", key, what, err)
		return nil, false
	}
	return list, true
}
