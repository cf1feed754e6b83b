package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// stockSubjects reads the manifest's subjects as stock in-toto verifiers
// do (with protojson), refusing what protojson refuses and encoding/json
// reads, or reads otherwise: invalid UTF-8, a key given twice in one
// object (or twice but for its case, which encoding/json would read as
// one field: a stock verifier and abbench could then read different
// values), a key of the statement or of a subject that is not the spec's
// exact spelling (encoding/json matches "Subject" too; protojson refuses
// it), half a UTF-16 surrogate pair, and a number outside float64's range
// (protojson refuses it; encoding/json skips a number no field reads). A
// subject's name and digests must be strings. With parseStatement's
// decoding of the rest and the attestation library's Validate
// (stockStatement), that is the library's check of the manifest without a
// second parse of it; the subjects, their digests a map each, were most of
// what encoding/json spent on a manifest. The manifest is JSON that
// encoding/json checked (json.Valid), so its grammar and nesting depth are
// already bounded; a grammar error here is still an error.
//
// The same walk keeps the bytes of the statement's other values (its type,
// predicate type and predicate) for parseStatement to decode: only they,
// not the whole manifest a second time.
func stockSubjects(manifest []byte) (stockParts, error) {
	if !utf8.Valid(manifest) {
		return stockParts{}, errors.New("it is not valid UTF-8")
	}
	s := shapeScanner{data: manifest}
	s.space()
	if s.peek() != '{' {
		return stockParts{}, errors.New("it is not a JSON object")
	}
	if err := s.value(inStatement); err != nil {
		return stockParts{}, err
	}
	if s.space(); s.i != len(s.data) {
		return stockParts{}, fmt.Errorf("text after the statement at byte %d", s.i)
	}
	s.parts.subjects = s.subjects
	return s.parts, nil
}

// stockParts are a statement as stockSubjects reads it: its subjects, and
// the JSON bytes of its other values (nil: absent), spelled exactly as
// the spec spells their keys, each key once.
type stockParts struct {
	subjects                      []Subject
	typ, predicateType, predicate []byte
}

// keep keeps raw, the value of the statement's key.
func (p *stockParts) keep(key string, raw []byte) {
	switch key {
	case "_type":
		p.typ = raw
	case "predicateType":
		p.predicateType = raw
	case "predicate":
		p.predicate = raw
	}
}

// place is where a JSON value stands in the statement: the keys an
// object there may have, and what is read of it, depend on it.
type place int

const (
	elsewhere   place = iota
	inStatement       // the statement itself
	inSubjects        // the subject array
	inSubject         // one subject
	inName            // a subject's name
	inDigests         // a subject's digest set
	inDigest          // one digest of it
)

// childPlace is the place of the value of key in an object at p.
func childPlace(p place, key []byte) place {
	switch {
	case p == inStatement && string(key) == "subject":
		return inSubjects
	case p == inSubject && string(key) == "name":
		return inName
	case p == inSubject && string(key) == "digest":
		return inDigests
	case p == inDigests:
		return inDigest
	}
	return elsewhere
}

// opening is the byte a value at a place must open with (0: any).
var opening = map[place]byte{inSubjects: '[', inSubject: '{', inName: '"', inDigests: '{', inDigest: '"'}

// stockKeys are the keys an object at a place may have, spelled exactly;
// nil: any key. abbench writes a subject's name and digest alone.
var stockKeys = map[place][]string{
	inStatement: {"_type", "subject", "predicateType", "predicate"},
	inSubject:   {"name", "digest"},
}

// shapeScanner walks a JSON text's values once, and keeps the subjects.
type shapeScanner struct {
	data     []byte
	i        int
	subjects []Subject
	digest   string     // the algorithm of the digest being read
	parts    stockParts // the statement's values but its subjects
}

func (s *shapeScanner) peek() byte {
	if s.i < len(s.data) {
		return s.data[s.i]
	}
	return 0
}

func (s *shapeScanner) space() {
	for s.i < len(s.data) && strings.IndexByte(" \t\r\n", s.data[s.i]) >= 0 {
		s.i++
	}
}

// expect consumes the byte c, after any space.
func (s *shapeScanner) expect(c byte) error {
	if s.space(); s.peek() != c {
		return fmt.Errorf("byte %d: %q expected", s.i, c)
	}
	s.i++
	return nil
}

// value walks the value at s.i, standing at p.
func (s *shapeScanner) value(p place) error {
	s.space()
	if want, c := opening[p], s.peek(); want != 0 && c != want {
		return fmt.Errorf("byte %d: %q expected (a subject and its name and digests are a JSON object and strings)", s.i, want)
	}
	switch c := s.peek(); {
	case c == '{':
		if p == inSubject {
			s.subjects = append(s.subjects, Subject{})
		}
		return s.object(p)
	case c == '[':
		return s.array(p)
	case c == '"':
		return s.stringAt(p)
	case c == 't' || c == 'f' || c == 'n':
		for s.i < len(s.data) && s.data[s.i] >= 'a' && s.data[s.i] <= 'z' {
			s.i++
		}
		return nil
	default:
		return s.number()
	}
}

// object walks an object at p: its keys unique, even ignoring case, and
// those of p's stockKeys.
func (s *shapeScanner) object(p place) error {
	s.i++ // '{'
	var keys keySet
	if p == inDigests {
		s.subjects[len(s.subjects)-1].Digest = map[string]string{}
	}
	if s.space(); s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		s.space()
		key, err := s.key()
		if err != nil {
			return err
		}
		if allowed := stockKeys[p]; allowed != nil && !slices.ContainsFunc(allowed, func(k string) bool { return k == string(key) }) {
			return fmt.Errorf("key %q is not one of %s (stock verifiers refuse it)", key, strings.Join(allowed, ", "))
		}
		if !keys.add(key) {
			return fmt.Errorf("key %q is given twice in one object (stock verifiers refuse it)", key)
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if p == inDigests {
			s.digest = string(key)
		}
		s.space()
		start := s.i
		if err := s.value(childPlace(p, key)); err != nil {
			return err
		}
		if p == inStatement {
			s.parts.keep(string(key), s.data[start:s.i])
		}
		if s.space(); s.peek() == '}' {
			s.i++
			return nil
		}
		if err := s.expect(','); err != nil {
			return err
		}
	}
}

// keySet is the keys of one object so far, compared ignoring case: a
// list while there are few (a statement's objects have under a dozen),
// a map of their folded spelling beyond, so that an object of many keys
// costs no more than linear time. The keys are the manifest's bytes,
// never copied while they are few.
type keySet struct {
	few    [maxFewKeys][]byte
	n      int
	folded map[string]bool
}

// maxFewKeys is where a keySet goes from its list to its map.
const maxFewKeys = 16

// add adds key; false when the set holds it already, but for its case.
func (ks *keySet) add(key []byte) bool {
	if ks.folded == nil {
		for _, k := range ks.few[:ks.n] {
			if bytes.EqualFold(k, key) {
				return false
			}
		}
		if ks.n < maxFewKeys {
			ks.few[ks.n] = key
			ks.n++
			return true
		}
		ks.folded = map[string]bool{}
		for _, k := range ks.few {
			ks.folded[fold(k)] = true
		}
	}
	f := fold(key)
	if ks.folded[f] {
		return false
	}
	ks.folded[f] = true
	return true
}

// fold is key as one spelling of all its cases: upper, then lower case
// (the long s, say, is upper-cased to S, then lower-cased to s).
func fold(key []byte) string { return string(bytes.ToLower(bytes.ToUpper(key))) }

// array walks an array at p: the subject array's elements are subjects.
func (s *shapeScanner) array(p place) error {
	s.i++ // '['
	elem := elsewhere
	if p == inSubjects {
		elem = inSubject
	}
	if s.space(); s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		if err := s.value(elem); err != nil {
			return err
		}
		if s.space(); s.peek() == ']' {
			s.i++
			return nil
		}
		if err := s.expect(','); err != nil {
			return err
		}
	}
}

// str walks a string and returns its bytes between the quotes, and
// whether they hold an escape.
func (s *shapeScanner) str() (raw []byte, escaped bool, err error) {
	if s.peek() != '"' {
		return nil, false, fmt.Errorf("byte %d: a string expected", s.i)
	}
	start := s.i
	for s.i++; s.i < len(s.data); s.i++ {
		switch s.data[s.i] {
		case '\\':
			escaped = true
			s.i++
		case '"':
			s.i++
			raw = s.data[start:s.i]
			if escaped && !pairedSurrogates(raw) {
				return nil, false, fmt.Errorf("the string at byte %d holds half a UTF-16 surrogate pair (stock verifiers refuse it)", start)
			}
			return raw[1 : len(raw)-1], escaped, nil
		}
	}
	return nil, false, errors.New("a string is not closed")
}

// key walks an object's key and returns its value, its escapes resolved.
func (s *shapeScanner) key() ([]byte, error) {
	start := s.i
	raw, escaped, err := s.str()
	if err != nil || !escaped {
		return raw, err
	}
	var v string
	err = json.Unmarshal(s.data[start:s.i], &v)
	return []byte(v), err
}

// stringAt walks a string at p, and keeps a subject's name or digest.
func (s *shapeScanner) stringAt(p place) error {
	if p != inName && p != inDigest {
		_, _, err := s.str()
		return err
	}
	v, err := s.key()
	if err != nil {
		return err
	}
	subject := &s.subjects[len(s.subjects)-1]
	if p == inName {
		subject.Name = string(v)
	} else {
		subject.Digest[s.digest] = string(v)
	}
	return nil
}

// pairedSurrogates says whether every \u escape of a UTF-16 surrogate in
// the JSON string raw is half of a pair: encoding/json reads half of one
// as U+FFFD, protojson refuses it.
func pairedSurrogates(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		r := escapedRune(raw, i)
		switch {
		case r >= 0xd800 && r < 0xdc00:
			if next := escapedRune(raw, i+6); next < 0xdc00 || next > 0xdfff || raw[i+5] != '\\' {
				return false
			}
			i += 6
		case r >= 0xdc00 && r <= 0xdfff:
			return false
		}
	}
	return true
}

// escapedRune is the rune of the \u escape whose u is raw[i]; -1 when
// there is none.
func escapedRune(raw []byte, i int) rune {
	if i+5 > len(raw) || raw[i] != 'u' {
		return -1
	}
	n, err := strconv.ParseUint(string(raw[i+1:i+5]), 16, 16)
	if err != nil {
		return -1
	}
	return rune(n)
}

// number walks a number, which must be within float64's range.
func (s *shapeScanner) number() error {
	start := s.i
	for s.i < len(s.data) && strings.IndexByte("+-.0123456789eE", s.data[s.i]) >= 0 {
		s.i++
	}
	text := string(s.data[start:s.i])
	if _, err := strconv.ParseFloat(text, 64); err != nil {
		return fmt.Errorf("number %q at byte %d is not a float64 (stock verifiers refuse it)", text, start)
	}
	return nil
}
