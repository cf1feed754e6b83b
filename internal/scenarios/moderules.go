package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// ModeRules is evidence.mode: one rule ({role, pattern}), or a list of
// rules, one per role, for a system whose arm reaches several roles (a
// router and its workers): each rank of each rule's role must log the
// arm's mode. Validate refuses two rules of one role.
type ModeRules []Rule

// Of is the mode rule of role, nil when no rule covers it.
func (m ModeRules) Of(role string) *Rule {
	for i := range m {
		if m[i].Role == role {
			return &m[i]
		}
	}
	return nil
}

// Roles are the roles the rules cover, in the scenario's order.
func (m ModeRules) Roles() []string {
	out := make([]string, len(m))
	for i, r := range m {
		out[i] = r.Role
	}
	return out
}

// UnmarshalYAML reads one rule (a mapping) or a list of them, each of
// role, pattern and records (which validate refuses for a mode rule) and
// no other key, as the scenario's strict decoding holds every other
// mapping.
func (m *ModeRules) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.MappingNode:
		var r Rule
		if err := decodeModeRule(n, &r); err != nil {
			return err
		}
		*m = ModeRules{r}
		return nil
	case yaml.SequenceNode:
		out := make(ModeRules, len(n.Content))
		for i, item := range n.Content {
			if err := decodeModeRule(item, &out[i]); err != nil {
				return err
			}
		}
		*m = out
		return nil
	case yaml.ScalarNode:
		if n.ShortTag() == "!!null" {
			*m = nil
			return nil
		}
	}
	return fmt.Errorf("line %d: evidence.mode is a rule such as {role: server, pattern: 'mode (?P<KEY>\\S+)'}, or a list of them, one per role", n.Line)
}

func decodeModeRule(n *yaml.Node, r *Rule) error {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias // an item of the list given as *anchor
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: a mode rule is a mapping such as {role: server, pattern: 'mode (?P<KEY>\\S+)'}", n.Line)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var err error
		switch k.Value {
		case "role":
			err = v.Decode(&r.Role)
		case "pattern":
			err = v.Decode(&r.Pattern)
		case "records":
			err = v.Decode(&r.Records)
		default:
			return fmt.Errorf("line %d: unknown key %q in a mode rule (allowed: role, pattern)", k.Line, k.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// MarshalJSON writes one rule as the rule itself, as a scenario's single
// mode rule was always written, so the matched digest of every scenario
// written so far is unchanged; several as a list; none as null. Nothing
// is escaped for HTML, as the canonical encoding escapes nothing.
func (m ModeRules) MarshalJSON() ([]byte, error) {
	var v any = []Rule(m)
	switch len(m) {
	case 0:
		return []byte("null"), nil
	case 1:
		v = m[0]
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *ModeRules) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch {
	case bytes.Equal(data, []byte("null")):
		*m = nil
		return nil
	case len(data) > 0 && data[0] == '{':
		var r Rule
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		*m = ModeRules{r}
		return nil
	}
	return json.Unmarshal(data, (*[]Rule)(m))
}
