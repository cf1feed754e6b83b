package bundle

import (
	"encoding/json"
	"strings"
	"testing"
)

// The manifest's bytes are encoding/json's layout of Statement (the
// layout of every bundle so far), and a statement the in-toto attestation
// library refuses is never encoded, so never signed.
func TestEncodeStatementHoldsItToTheInTotoLibrary(t *testing.T) {
	st := Statement{Type: StatementType, PredicateType: PredicateType, Predicate: Predicate{Scenario: "s", Arm: "a"},
		Subject: []Subject{{Name: EvidenceFile, Digest: map[string]string{DigestAlgorithm: strings.Repeat("ab", 32)}}}}
	got, err := encodeStatement(st)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.MarshalIndent(st, "", "  ")
	if string(got) != string(want)+"\n" {
		t.Fatalf("encoded\n%s\nwant\n%s", got, want)
	}
	for name, bad := range map[string]func(*Statement){
		"no subject": func(s *Statement) { s.Subject = nil },
		"a short digest": func(s *Statement) {
			s.Subject = []Subject{{Name: EvidenceFile, Digest: map[string]string{DigestAlgorithm: "abcd"}}}
		},
		"a subject without digest": func(s *Statement) { s.Subject = []Subject{{Name: EvidenceFile, Digest: map[string]string{}}} },
		"another _type":            func(s *Statement) { s.Type = "https://in-toto.io/Statement/v2" },
		"no predicate type":        func(s *Statement) { s.PredicateType = "" },
	} {
		s := st
		bad(&s)
		if data, err := encodeStatement(s); err == nil || !strings.Contains(err.Error(), "would not be a valid in-toto Statement") {
			t.Errorf("%s: encoded %s (%v)", name, data, err)
		}
	}
}
