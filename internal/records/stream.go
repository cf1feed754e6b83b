package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// A record is decoded as a stream of JSON tokens into the values its
// format reads, not into a tree of the whole file: a generic tree takes
// about eleven times the file (a 184 MB vLLM result with its per-request
// texts and latencies took 2 GiB), while what a format reads is a few
// hundred numbers. What keep drops is read past token by token, so the
// decoder's buffer holds one token at a time, and the memory a record
// takes is the file's bytes and what is kept (and, while an object is
// read, its keys, to find one given twice).

// keepFunc says whether the value at path is kept: path is the keys that
// lead to it from the top-level value, "[]" for an element of a list;
// container is true for an object or a list (whose values keep is then
// asked about in turn). A value not kept is left out of its object, as
// if absent, or out of its list.
type keepFunc func(path []string, container bool) bool

// keepAll keeps every value.
func keepAll([]string, bool) bool { return true }

// maxJSONDepth bounds the nesting a record may have, as encoding/json
// bounds it: no tool writes deeper, and a file that does is not read
// with a stack as deep.
const maxJSONDepth = 10000

// jsonValue is one top-level value of a record and the byte of the file
// where it begins.
type jsonValue struct {
	v  any
	at int
}

// jsonValues decodes every top-level JSON value of data in turn (one, or
// one per run as a tool appends them), keeping what keep keeps, after
// the checks every JSON record gets: Python's non-standard numbers read
// as null, no key twice in one object (but in the values of the keys
// exempt names, as duplicateKey has it), checked in the same pass, what
// is dropped included. Numbers are json.Number. A value after the first
// that does not parse is a *TrailingDataError at its start; with one, so
// is anything but white space after the first.
func jsonValues(data []byte, keep keepFunc, one bool, exempt ...string) ([]jsonValue, error) {
	src := newPythonReader(data)
	dec := json.NewDecoder(src)
	dec.UseNumber()
	j := &jsonReader{dec: dec, keep: keep, exempt: exempt}
	var values []jsonValue
	for {
		end := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return values, nil
		}
		var v any
		if err == nil {
			v, err = j.value(tok, nil, true, false)
		}
		var dup *duplicateKeyError
		switch {
		case err != nil && (len(values) == 0 || errors.As(err, &dup)):
			return nil, err
		case err != nil:
			return nil, trailingData(data, src.shifts, end)
		}
		values = append(values, jsonValue{v: v, at: nextValue(data, src.shifts, end)})
		if one {
			return values, trailingData(data, src.shifts, dec.InputOffset())
		}
	}
}

// duplicateKeyError is a key given twice in one object: which of its
// values counts is up to the reader, and readers differ.
type duplicateKeyError struct{ key string }

func (e *duplicateKeyError) Error() string {
	return fmt.Sprintf("key %q appears twice (which one counts is up to the reader)", e.key)
}

// jsonReader reads a record's values from its tokens.
type jsonReader struct {
	dec    *json.Decoder
	keep   keepFunc
	exempt []string // keys whose values may repeat keys (see duplicateKey)
}

// value reads the value tok begins, at path: kept, of what keep keeps,
// when store is true; read past otherwise, its keys checked all the same
// (but where exempt).
func (j *jsonReader) value(tok json.Token, path []string, store, exempt bool) (any, error) {
	if len(path) > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	switch tok {
	case json.Delim('{'):
		return j.object(path, store, exempt)
	case json.Delim('['):
		var list []any
		if store {
			list = []any{}
		}
		for j.dec.More() {
			v, kept, err := j.member(append(path, "[]"), store, exempt)
			if err != nil {
				return nil, err
			}
			if kept {
				list = append(list, v)
			}
		}
		_, err := j.dec.Token() // the closing bracket
		return list, err
	}
	return tok, nil
}

// object reads the rest of an object whose opening brace was read.
func (j *jsonReader) object(path []string, store, exempt bool) (any, error) {
	var obj map[string]any
	if store {
		obj = map[string]any{}
	}
	seen := map[string]bool{}
	for j.dec.More() {
		k, err := j.dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := k.(string)
		if seen[key] && !exempt {
			return nil, &duplicateKeyError{key: key}
		}
		seen[key] = true
		v, kept, err := j.member(append(path, key), store, exempt || slices.Contains(j.exempt, key))
		if err != nil {
			return nil, err
		}
		if kept {
			obj[key] = v
		}
	}
	_, err := j.dec.Token() // the closing brace
	return obj, err
}

// member reads the next value, at path, in a container read with store:
// false when it is not kept.
func (j *jsonReader) member(path []string, store, exempt bool) (any, bool, error) {
	tok, err := j.dec.Token()
	if err != nil {
		return nil, false, err
	}
	container := tok == json.Delim('{') || tok == json.Delim('[')
	kept := store && j.keep(path, container)
	v, err := j.value(tok, path, kept, exempt)
	return v, kept, err
}

// decodeKeptObjects decodes every top-level value of data, each an
// object, keeping what keep keeps (see jsonValues). A value after the
// first that is no object is a *TrailingDataError at its start.
func decodeKeptObjects(data []byte, keep keepFunc) ([]map[string]any, error) {
	values, err := jsonValues(data, keep, false)
	if err != nil {
		return nil, err
	}
	objs := make([]map[string]any, len(values))
	for i, v := range values {
		obj, ok := v.v.(map[string]any)
		switch {
		case !ok && i == 0:
			return nil, fmt.Errorf("not a JSON object")
		case !ok:
			return nil, &TrailingDataError{Offset: int64(v.at), Excerpt: excerpt(data[v.at:])}
		}
		objs[i] = obj
	}
	return objs, nil
}

// decodeObject decodes the one JSON object data holds, keeping what keep
// keeps (everything when none is given); a value after it is a
// *TrailingDataError.
func decodeObject(data []byte, keep ...keepFunc) (map[string]any, error) {
	k := keepFunc(keepAll)
	if len(keep) > 0 {
		k = keep[0]
	}
	values, err := jsonValues(data, k, true)
	switch {
	case err != nil:
		return nil, err
	case len(values) == 0:
		return nil, fmt.Errorf("no JSON value")
	}
	obj, ok := values[0].v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	return obj, nil
}

// decodeObjectList decodes the one JSON list of objects data holds (a
// record per request), keeping each object's values that are not
// containers: what a reader of such records reads of each.
func decodeObjectList(data []byte) ([]map[string]any, error) {
	values, err := jsonValues(data, func(path []string, container bool) bool {
		return len(path) == 1 || len(path) == 2 && !container
	}, true)
	if err != nil {
		return nil, err
	}
	list, ok := []any(nil), len(values) == 1
	if ok {
		list, ok = values[0].v.([]any)
	}
	if !ok {
		return nil, fmt.Errorf("not a JSON list")
	}
	objs := make([]map[string]any, len(list))
	for i, v := range list {
		if objs[i], ok = v.(map[string]any); !ok {
			return nil, fmt.Errorf("element %d is not an object", i+1)
		}
	}
	return objs, nil
}
