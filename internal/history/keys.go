package history

import "bytes"

// storedKeys returns which of the entries' keys (kind and key) the complete
// lines of a store's content hold, and their length in bytes. An add needs
// no more of a line than its key; reading every field of a store of years
// would cost an add most of a second. A line in the form Append writes
// gives its key to a look at its frame: the schema and kind first, one key
// field, an object closed at the end of the line. Any other line is read in
// full, and is an error, as Read's, if it is no entry. (A line in that form
// with a damaged value in another field is left to history show, which
// reads every field and refuses the store.)
func storedKeys(path string, data []byte, entries []Entry) (stored map[string]bool, complete int, err error) {
	wanted := map[string]bool{}
	for _, e := range entries {
		wanted[e.Kind+" "+e.Key] = true
	}
	stored = map[string]bool{}
	complete = bytes.LastIndexByte(data, '\n') + 1
	dec := newEntryDecoder()
	var kindKey []byte
	for i, rest := 0, data[:complete]; len(rest) > 0; i++ {
		end := bytes.IndexByte(rest, '\n')
		line := rest[:end]
		rest = rest[end+1:]
		var ok bool
		if kindKey, ok = frameKey(line, kindKey[:0]); !ok {
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			e, err := dec.entry(path, i+1, line)
			if err != nil {
				return nil, 0, err
			}
			kindKey = append(append(append(kindKey[:0], e.Kind...), ' '), e.Key...)
		}
		if wanted[string(kindKey)] {
			stored[string(kindKey)] = true
		}
	}
	return stored, complete, nil
}

var framePrefix = []byte(`{"schema":"` + Schema + `","kind":"`)

// frameKey appends to buf the kind and key of a line in the form Append
// writes, as "kind key"; ok is false for a line in any other form (the
// kind or the key twice among them). A field name there is a quote after a
// comma, never a string's content (json.Marshal escapes every quote inside
// a string), and the only names with a k are kind and key: one pass for the
// byte k (rare in values) finds them.
func frameKey(line, buf []byte) (kindKey []byte, ok bool) {
	if !bytes.HasPrefix(line, framePrefix) || !bytes.HasSuffix(line, []byte("}")) {
		return nil, false
	}
	rest := line[len(framePrefix):]
	kindEnd := bytes.IndexByte(rest, '"')
	if kindEnd < 0 {
		return nil, false
	}
	kind := rest[:kindEnd]
	var key []byte
	for at := kindEnd; ; at++ {
		k := bytes.IndexByte(rest[at:], 'k')
		if k < 0 {
			break
		}
		at += k
		if at < 2 || rest[at-2] != ',' || rest[at-1] != '"' {
			continue
		}
		// A second kind or key, or another field whose name begins with
		// a k (no entry's), is left to the full reading.
		field := rest[at:]
		if key != nil || !bytes.HasPrefix(field, []byte(`key":"`)) {
			return nil, false
		}
		field = field[len(`key":"`):]
		end := bytes.IndexByte(field, '"')
		if end < 0 {
			return nil, false
		}
		key = field[:end]
	}
	if key == nil || !unescaped(kind) || !unescaped(key) {
		return nil, false
	}
	return append(append(append(buf, kind...), ' '), key...), true
}

// unescaped says a string's content reads as its bytes: no escape, and
// plain ASCII (encoding/json reads invalid UTF-8 as U+FFFD).
func unescaped(s []byte) bool {
	for _, c := range s {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}
