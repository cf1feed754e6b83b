package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
)

// MatchedFormat names the canonical encoding; it is hashed first, so a
// change to the encoding can never give an old digest.
const MatchedFormat = "abbench-matched-v1"

// Canonical is the canonical encoding of the scenario that MatchedDigest
// hashes: the scenario's JSON form (after defaults) with arm env values
// replaced by "" (an arm's build by {"binary": "", "source": ""}), the description and prompts path left out and the prompts
// file's content digest put in, every zero value (null, "", 0, false, empty
// list or mapping) removed, mapping keys sorted, no insignificant space, no
// HTML escaping. docs/scenario.md describes it for other implementations.
func (s *Scenario) Canonical() []byte {
	c := *s
	c.Arms = make(map[string]Arm, len(s.Arms))
	for name, arm := range s.Arms {
		env := make(map[string]string, len(arm.Env))
		for k := range maps.Keys(arm.Env) {
			env[k] = ""
		}
		shape := Arm{Env: env}
		if arm.Build != nil {
			shape.Build = &Build{} // builds are declared; which ones is the declared difference
		}
		c.Arms[name] = shape
	}
	c.Attach = s.attachShape()
	doc := map[string]any{
		"format":   MatchedFormat,
		"scenario": &c,
		"prompts":  s.PromptsDigest,
	}
	raw := marshal(doc)
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		panic("scenarios: canonical encoding does not decode: " + err.Error())
	}
	return marshal(prune(tree))
}

// MatchedDigest is the SHA-256 (hex) of Canonical. Two scenarios that differ
// only in arm env values share it; any other change gives another.
func (s *Scenario) MatchedDigest() string {
	sum := sha256.Sum256(s.Canonical())
	return hex.EncodeToString(sum[:])
}

func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("scenarios: canonical encoding: " + err.Error())
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// prune removes zero values, so that an omitted key and its zero value
// encode alike. Arm env values are "" by then but their keys stay: a key of
// a mapping whose value is "" under arms is kept by keepEmpty.
func prune(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range t {
			if k == "arms" {
				out[k] = x // arm names and key names, with "" values, all count
				continue
			}
			if p := prune(x); p != nil {
				out[k] = p
			}
		}
		if len(out) == 0 {
			return nil
		}
		return out
	case []any:
		if len(t) == 0 {
			return nil
		}
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = prune(x)
		}
		return out
	case string:
		if t == "" {
			return nil
		}
	case bool:
		if !t {
			return nil
		}
	case json.Number:
		if t == "0" {
			return nil
		}
	case nil:
		return nil
	}
	return v
}
