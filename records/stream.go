package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A record is decoded as a stream of JSON tokens into the values its
// format reads, not into a tree of the whole file: a generic tree takes
// about eleven times the file (a 184 MB vLLM result with its per-request
// texts and latencies took 2 GiB), while what a format reads is a few
// hundred numbers. What keep drops is read past token by token, so the
// decoder's buffer holds one token at a time, and the memory a record
// takes is the file's bytes and what is kept.

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
// exempt names: see duplicateKey). Numbers are json.Number. A value after
// the first that does not parse is a *TrailingDataError at its start;
// with one, so is anything but white space after the first.
func jsonValues(data []byte, keep keepFunc, one bool, exempt ...string) ([]jsonValue, error) {
	conv, shifts := pythonJSONMapped(data)
	if key, dup := duplicateKey(conv, exempt...); dup {
		return nil, fmt.Errorf("key %q appears twice (which one counts is up to the reader)", key)
	}
	dec := json.NewDecoder(bytes.NewReader(conv))
	dec.UseNumber()
	var values []jsonValue
	for {
		end := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) && !dec.More() {
			return values, nil
		}
		var v any
		if err == nil {
			v, err = keptValue(dec, tok, nil, keep)
		}
		switch {
		case err != nil && len(values) == 0:
			return nil, err
		case err != nil:
			return nil, trailingData(data, conv, shifts, end)
		}
		rest := bytes.TrimLeft(conv[end:], " \t\r\n")
		values = append(values, jsonValue{v: v, at: originalOffset(shifts, len(conv)-len(rest))})
		if one {
			return values, trailingData(data, conv, shifts, dec.InputOffset())
		}
	}
}

// keptValue decodes the value tok begins, at path, keeping what keep
// keeps.
func keptValue(dec *json.Decoder, tok json.Token, path []string, keep keepFunc) (any, error) {
	if len(path) > maxJSONDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxJSONDepth)
	}
	switch tok {
	case json.Delim('{'):
		obj := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := k.(string)
			v, kept, err := keptMember(dec, append(path, key), keep)
			if err != nil {
				return nil, err
			}
			if kept {
				obj[key] = v
			}
		}
		_, err := dec.Token() // the closing brace
		return obj, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, kept, err := keptMember(dec, append(path, "[]"), keep)
			if err != nil {
				return nil, err
			}
			if kept {
				list = append(list, v)
			}
		}
		_, err := dec.Token() // the closing bracket
		return list, err
	}
	return tok, nil
}

// keptMember decodes the next value, at path: false when keep drops it,
// read past.
func keptMember(dec *json.Decoder, path []string, keep keepFunc) (any, bool, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, false, err
	}
	container := tok == json.Delim('{') || tok == json.Delim('[')
	if keep(path, container) {
		v, err := keptValue(dec, tok, path, keep)
		return v, true, err
	}
	if container {
		return nil, false, skipContainer(dec)
	}
	return nil, false, nil
}

// skipContainer reads past the rest of an object or list whose opening
// token was read, a token at a time.
func skipContainer(dec *json.Decoder) error {
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
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
