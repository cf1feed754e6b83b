package bundle

import (
	"encoding/json"
	"time"

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
