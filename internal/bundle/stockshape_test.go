package bundle

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// stockManifest is a manifest as abbench encodes it.
func stockManifest(t testing.TB) string {
	t.Helper()
	st := Statement{Type: StatementType, PredicateType: PredicateType, Predicate: Predicate{Scenario: "s", Arm: "a", Token: "t"},
		Subject: []Subject{{Name: EvidenceFile, Digest: map[string]string{DigestAlgorithm: strings.Repeat("ab", 32)}}}}
	data, err := encodeStatement(st)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkOnce is the statement step's check of a manifest: parsed once,
// then held to stock in-toto semantics.
func checkOnce(manifest []byte) error {
	st, hasPredicate, err := parseStatement(manifest)
	if err != nil {
		return err
	}
	return stockStatement(st, hasPredicate)
}

// TestStockStatementRefusesWhatTheLibraryRefuses: every manifest the
// in-toto attestation library refuses (its protojson parse and Validate,
// as stock verifiers read a Statement) is refused by the statement step's
// one parse too, including those encoding/json alone reads without
// complaint (a key twice, a key's case, a key the spec does not have,
// invalid UTF-8, a number protojson cannot hold); the manifest abbench
// writes passes both.
func TestStockStatementRefusesWhatTheLibraryRefuses(t *testing.T) {
	good := stockManifest(t)
	paired := strings.Replace(good, `"arm": "a"`, `"arm": "a\ud83d\ude00\n"`, 1)
	for _, m := range []string{good, paired} {
		if err := validStatement([]byte(m)); err != nil {
			t.Fatalf("the library refuses\n%s: %v", m, err)
		}
		if err := checkOnce([]byte(m)); err != nil {
			t.Fatalf("the statement step refuses\n%s: %v", m, err)
		}
	}
	edit := func(old, new string) string {
		if !strings.Contains(good, old) {
			t.Fatalf("the manifest has no %q", old)
		}
		return strings.Replace(good, old, new, 1)
	}
	sum := strings.Repeat("ab", 32)
	for name, bad := range map[string]string{
		"_type twice":              edit(`"_type": "https://in-toto.io/Statement/v1",`, `"_type": "https://in-toto.io/Statement/v1", "_type": "https://in-toto.io/Statement/v1",`),
		"subject twice":            edit(`"subject": [`, `"subject": [], "subject": [`),
		"_type in upper case":      edit(`"_type"`, `"_TYPE"`),
		"Subject":                  edit(`"subject"`, `"Subject"`),
		"a key of no statement":    edit(`"subject": [`, `"extra": 1, "subject": [`),
		"a subject's name twice":   edit(`"name": "evidence.json",`, `"name": "evidence.json", "name": "scenario.yaml",`),
		"a subject's Name":         edit(`"name"`, `"Name"`),
		"a subject's unknown key":  edit(`"name": "evidence.json",`, `"name": "evidence.json", "size": 1,`),
		"a name not a string":      edit(`"name": "evidence.json"`, `"name": 7`),
		"a digest not a string":    edit(`"sha256": "`+sum+`"`, `"sha256": 7`),
		"a subject not an object":  edit(`"subject": [`, `"subject": ["evidence.json", `),
		"a digest twice":           edit(`"sha256": "`+sum+`"`, `"sha256": "`+sum+`", "sha256": "`+sum+`"`),
		"a predicate key twice":    edit(`"arm": "a",`, `"arm": "a", "arm": "b",`),
		"a huge number":            edit(`"arm": "a",`, `"arm": "a", "x": 1e999,`),
		"invalid UTF-8":            edit(`"arm": "a"`, "\"arm\": \"a\xff\""),
		"half a surrogate pair":    edit(`"arm": "a"`, `"arm": "a\ud800"`),
		"its other half":           edit(`"arm": "a"`, `"arm": "\udc00a"`),
		"a pair out of order":      edit(`"arm": "a"`, `"arm": "\udc00\ud800"`),
		"no predicate":             edit(`"predicate": {`, `"predicate": null, "other": {`),
		"a null predicate":         edit(`"predicateType": "`+PredicateType+`",`, `"predicateType": "`+PredicateType+`", "predicate": null, "x": 0,`),
		"a predicate array":        edit(`"predicate": {`, `"predicate": [], "p": {`),
		"a short digest":           edit(sum, "abcd"),
		"a digest not hex":         edit(sum, strings.Repeat("zz", 32)),
		"no digest":                edit(`"sha256": "`+sum+`"`, ``),
		"no subject":               edit(`"subject": [`, `"subject": [], "s": [`),
		"another _type":            edit(`Statement/v1`, `Statement/v2`),
		"no predicateType":         edit(`"predicateType": "`+PredicateType+`"`, `"predicateType": ""`),
		"text after the statement": good + "{}",
	} {
		if validStatement([]byte(bad)) == nil {
			t.Errorf("%s: the in-toto library accepts it: the case tests nothing", name)
			continue
		}
		if err := checkOnce([]byte(bad)); err == nil {
			t.Errorf("%s: the in-toto library refuses the manifest, the statement step accepts it:\n%s", name, bad)
		}
	}
}

// TestStockShapeIsLinearInTheKeys: an object of many keys is checked
// through a map, and keys equal but for their case are found there too.
func TestStockShapeIsLinearInTheKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"predicate": {`)
	for i := range 50000 {
		b.WriteString(`"k` + strconv.Itoa(i) + `": 0, `)
	}
	b.WriteString(`"arm": "a", "ARM": "b"}}`)
	_, err := stockSubjects([]byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), `"ARM" is given twice`) {
		t.Errorf("a key twice but for its case among many: %v", err)
	}
}

// TestStockSubjectsAreWhatEncodingJSONReads: the subjects the statement
// step reads are those encoding/json decodes of the same manifest, names
// and digests escaped or not.
func TestStockSubjectsAreWhatEncodingJSONReads(t *testing.T) {
	good := stockManifest(t)
	escaped := strings.Replace(good, `"name": "evidence.json"`, `"name": "ev\u0069dence\/x.json", "digest": {"sha256": "`+strings.Repeat("cd", 32)+`", "gitBlob": "\u0061b"}}, {"name": "b"`, 1)
	for _, m := range []string{good, escaped} {
		var want Statement
		if err := json.Unmarshal([]byte(m), &want); err != nil {
			t.Fatal(err)
		}
		parts, err := stockSubjects([]byte(m))
		if got := parts.subjects; err != nil || !reflect.DeepEqual(got, want.Subject) {
			t.Errorf("subjects %v (%v), encoding/json reads %v", got, err, want.Subject)
		}
		// The rest is decoded from the bytes the walk kept: the statement
		// is the one encoding/json reads of the whole manifest.
		if got, _, err := parseStatement([]byte(m)); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("statement %+v (%v), encoding/json reads %+v", got, err, want)
		}
	}
}

// FuzzStatementRefusedAsTheLibraryRefusesIt: whatever the manifest's
// bytes, one the in-toto attestation library refuses (its protojson parse
// and Validate) is refused by the statement step's one read too.
func FuzzStatementRefusedAsTheLibraryRefusesIt(f *testing.F) {
	good := stockManifest(f)
	f.Add([]byte(good))
	f.Add([]byte(strings.Replace(good, `"arm": "a"`, `"arm": "a", "ARM": "b"`, 1)))
	f.Add([]byte(strings.Replace(good, `"name"`, `"n\u0061me"`, 1)))
	f.Add([]byte(`{"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": "x", "digest": {"sha256": "` + strings.Repeat("0", 64) + `"}}], "predicateType": "p", "predicate": {"x": [1, 2.5e3, null, true]}}`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		if validStatement(manifest) != nil && checkOnce(manifest) == nil {
			t.Errorf("the in-toto library refuses the manifest, the statement step accepts it:\n%q", manifest)
		}
	})
}

// BenchmarkParseStatement is the statement step's read of a manifest as
// abbench writes it: every bundle verified reads one.
func BenchmarkParseStatement(b *testing.B) {
	m := []byte(stockManifest(b))
	for b.Loop() {
		if _, _, err := parseStatement(m); err != nil {
			b.Fatal(err)
		}
	}
}
