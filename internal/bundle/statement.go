package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	ita1 "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/abbench/abbench/internal/digest"
)

// Statement is the manifest: an in-toto Statement v1.
type Statement struct {
	Type          string    `json:"_type"`
	Subject       []Subject `json:"subject"`
	PredicateType string    `json:"predicateType"`
	Predicate     Predicate `json:"predicate"`
}

// Subject is one file of the bundle and its digest.
type Subject struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// Predicate summarises the evidence.
type Predicate struct {
	Scenario      string         `json:"scenario"`
	Arm           string         `json:"arm"`
	Token         string         `json:"token"`
	MatchedDigest string         `json:"matchedDigest"`
	Workload      *digest.Digest `json:"workloadDigest"`
	Prompts       *digest.Digest `json:"promptsDigest"` // nil: a workload without prompts
	Accepted      bool           `json:"accepted"`
	Started       time.Time      `json:"started"`
	Ended         time.Time      `json:"ended"`
}

// predicateV1 is the first predicate's spelling.
type predicateV1 struct {
	Scenario      string         `json:"scenario"`
	Arm           string         `json:"arm"`
	Token         string         `json:"token"`
	MatchedDigest string         `json:"matched_digest"`
	Workload      *digest.Digest `json:"workload_digest"`
	Prompts       *digest.Digest `json:"prompts_digest"`
	Accepted      bool           `json:"accepted"`
	Started       time.Time      `json:"started"`
	Ended         time.Time      `json:"ended"`
}

// ParseStatement reads a manifest of either predicate version.
func ParseStatement(manifest []byte) (Statement, error) {
	st, _, err := parseStatement(manifest)
	return st, err
}

// parseStatement is ParseStatement, and whether the manifest holds a
// predicate object (the in-toto library requires one). The manifest is
// read once: encoding/json checks its grammar, stockSubjects walks it,
// refusing what stock in-toto verifiers refuse, reads its subjects and
// keeps the bytes of its type, predicate type and predicate, which
// encoding/json decodes alone (decoding the whole manifest to reach them
// was a fifth of its cost).
func parseStatement(manifest []byte) (Statement, bool, error) {
	if !json.Valid(manifest) {
		var syntax struct{}
		return Statement{}, false, json.Unmarshal(manifest, &syntax) // the error says where
	}
	parts, err := stockSubjects(manifest)
	if err != nil {
		return Statement{}, false, fmt.Errorf("not as stock in-toto verifiers read it: %w", err)
	}
	st := Statement{Subject: parts.subjects}
	if err := decodeString(parts.typ, "_type", &st.Type); err != nil {
		return Statement{}, false, err
	}
	if err := decodeString(parts.predicateType, "predicateType", &st.PredicateType); err != nil {
		return Statement{}, false, err
	}
	predicate := parts.predicate
	switch {
	case len(predicate) == 0 || string(predicate) == "null":
		return st, false, nil
	case predicate[0] != '{':
		return st, false, errors.New("its predicate is not a JSON object")
	}
	if st.PredicateType == PredicateTypeV1 {
		var old predicateV1
		err := json.Unmarshal(predicate, &old)
		st.Predicate = Predicate(old)
		return st, true, err
	}
	err = json.Unmarshal(predicate, &st.Predicate)
	return st, true, err
}

// decodeString decodes raw, the statement's key's JSON value (nil:
// absent), into v: a string, or null for none.
func decodeString(raw []byte, key string, v *string) error {
	if raw == nil {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("the statement's %s: %w", key, err)
	}
	return nil
}

// stockStatement holds st, read by parseStatement with its predicate
// object (hasPredicate), to the in-toto attestation library's Validate (a
// v1 type, subjects with digests of the right length, a predicate type
// and a predicate), as stock verifiers hold what they read with
// protojson: what protojson refuses, parseStatement refused.
// TestStockStatementRefusesWhatTheLibraryRefuses holds the two equal to
// the library's own parse and Validate.
func stockStatement(st Statement, hasPredicate bool) error {
	lib := ita1.Statement{Type: st.Type, PredicateType: st.PredicateType, Subject: make([]*ita1.ResourceDescriptor, len(st.Subject))}
	for i, s := range st.Subject {
		lib.Subject[i] = &ita1.ResourceDescriptor{Name: s.Name, Digest: s.Digest}
	}
	if hasPredicate {
		lib.Predicate = &structpb.Struct{} // its fields are Predicate's, decoded above: Validate asks only that there is one
	}
	return lib.Validate()
}

// encodeStatement is the manifest's bytes: st as abbench has always laid
// it out (encoding/json, indented, the fields in the spec's order, the
// predicate's in Predicate's), held to the in-toto attestation library
// before anything is signed. The library's own encoder is not used: its
// output's spacing varies by design and its predicate (a protobuf Struct)
// sorts the fields, so every new manifest would be laid out unlike every
// bundle so far; holding the exact bytes to the library's parser instead
// says what matters, that stock verifiers read what is signed.
func encodeStatement(st Statement) ([]byte, error) {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	if err := validStatement(data); err != nil {
		return nil, fmt.Errorf("bundle: the manifest would not be a valid in-toto Statement: %w", err)
	}
	return data, nil
}

// validStatement holds manifest to the in-toto attestation library: it
// must parse as the library's Statement (with protojson, as stock
// verifiers read it) and pass its Validate (a v1 type, subjects with
// digests of the right length, a predicate type and a predicate).
func validStatement(manifest []byte) error {
	var st ita1.Statement
	if err := protojson.Unmarshal(manifest, &st); err != nil {
		return err
	}
	return st.Validate()
}
