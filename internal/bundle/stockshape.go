package bundle

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/abbench/abbench/internal/strictjson"
)

// stockSubjects reads the manifest's subjects as stock in-toto verifiers
// do (with protojson), refusing what protojson refuses and encoding/json
// reads, or reads otherwise. strictjson's walk refuses invalid UTF-8, a
// key given twice in one object (or twice but for its case, which
// encoding/json would read as one field: a stock verifier and abbench
// could then read different values), half a UTF-16 surrogate pair and a
// number outside float64's range; this walk adds a key of the statement
// or of a subject that is not the spec's exact spelling (encoding/json
// matches "Subject" too; protojson refuses it), and a subject's name and
// digests that are not strings. With parseStatement's decoding of the rest
// and the attestation library's Validate (stockStatement), that is the
// library's check of the manifest without a second parse of it.
//
// The same walk keeps the bytes of the statement's other values (its type,
// predicate type and predicate) for parseStatement to decode: only they,
// not the whole manifest a second time.
func stockSubjects(manifest []byte) (stockParts, error) {
	w, err := strictjson.NewWalker(manifest)
	if err != nil {
		return stockParts{}, err
	}
	t, err := w.Next()
	if err != nil {
		return stockParts{}, err
	}
	if t.Kind != strictjson.ObjectStart {
		return stockParts{}, errors.New("it is not a JSON object")
	}
	var parts stockParts
	if err := parts.statement(w, manifest); err != nil {
		return stockParts{}, err
	}
	if _, err := w.Next(); !errors.Is(err, io.EOF) {
		return stockParts{}, fmt.Errorf("text after the statement: %w", err)
	}
	return parts, nil
}

// stockParts are a statement as stockSubjects reads it: its subjects, and
// the JSON bytes of its other values (nil: absent), spelled exactly as
// the spec spells their keys, each key once.
type stockParts struct {
	subjects                      []Subject
	typ, predicateType, predicate []byte
}

// statementKeys and subjectKeys are the keys a statement and a subject
// may have, spelled exactly. abbench writes a subject's name and digest
// alone.
var (
	statementKeys = []string{"_type", "subject", "predicateType", "predicate"}
	subjectKeys   = []string{"name", "digest"}
)

// stockKey refuses key unless it is one of allowed.
func stockKey(key string, allowed []string) error {
	if !slices.Contains(allowed, key) {
		return fmt.Errorf("key %q is not one of %s (stock verifiers refuse it)", key, strings.Join(allowed, ", "))
	}
	return nil
}

// statement walks the statement object's keys and values, its '{' read.
func (p *stockParts) statement(w *strictjson.Walker, manifest []byte) error {
	for {
		key, more, err := nextKey(w, statementKeys)
		if err != nil || !more {
			return err
		}
		t, err := w.Next()
		if err != nil {
			return err
		}
		if key == "subject" {
			if err := p.subjectList(w, t); err != nil {
				return err
			}
			continue
		}
		end, err := w.Skip(t)
		if err != nil {
			return err
		}
		p.keep(key, manifest[t.Start:end])
	}
}

// nextKey reads an object's next key, one of allowed (nil: any); more is
// false at the object's end.
func nextKey(w *strictjson.Walker, allowed []string) (key string, more bool, err error) {
	t, err := w.Next()
	if err != nil || t.Kind == strictjson.ObjectEnd {
		return "", false, err
	}
	if allowed == nil {
		return t.Text, true, nil
	}
	return t.Text, true, stockKey(t.Text, allowed)
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

// errSubjectShape is a subject list, a subject, a name or a digest of
// another JSON type than the spec's.
var errSubjectShape = errors.New("a subject and its name and digests are a JSON object and strings")

// subjectList walks the subject array that t opens.
func (p *stockParts) subjectList(w *strictjson.Walker, t strictjson.Token) error {
	if t.Kind != strictjson.ArrayStart {
		return errSubjectShape
	}
	for {
		t, err := w.Next()
		switch {
		case err != nil:
			return err
		case t.Kind == strictjson.ArrayEnd:
			return nil
		case t.Kind != strictjson.ObjectStart:
			return errSubjectShape
		}
		p.subjects = append(p.subjects, Subject{})
		if err := subject(w, &p.subjects[len(p.subjects)-1]); err != nil {
			return err
		}
	}
}

// subject walks one subject, its '{' read.
func subject(w *strictjson.Walker, s *Subject) error {
	for {
		key, more, err := nextKey(w, subjectKeys)
		if err != nil || !more {
			return err
		}
		t, err := w.Next()
		switch {
		case err != nil:
			return err
		case key == "name" && t.Kind == strictjson.String:
			s.Name = t.Text
		case key == "digest" && t.Kind == strictjson.ObjectStart:
			if s.Digest, err = digests(w); err != nil {
				return err
			}
		default:
			return errSubjectShape
		}
	}
}

// digests walks a subject's digest set, its '{' read.
func digests(w *strictjson.Walker) (map[string]string, error) {
	set := map[string]string{}
	for {
		algorithm, more, err := nextKey(w, nil)
		if err != nil || !more {
			return set, err
		}
		t, err := w.Next()
		if err != nil {
			return nil, err
		}
		if t.Kind != strictjson.String {
			return nil, errSubjectShape
		}
		set[algorithm] = t.Text
	}
}
