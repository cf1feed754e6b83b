package bundle

import (
	"encoding/json"
	"fmt"
	"time"

	ita1 "github.com/in-toto/attestation/go/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/abbench/abbench/digest"
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
	var st Statement
	if err := json.Unmarshal(manifest, &st); err != nil {
		return st, err
	}
	if st.PredicateType == PredicateTypeV1 {
		var old struct {
			Predicate predicateV1 `json:"predicate"`
		}
		if err := json.Unmarshal(manifest, &old); err != nil {
			return st, err
		}
		st.Predicate = Predicate(old.Predicate)
	}
	return st, nil
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
