package records

import "testing"

// duplicateKey finds a key given twice in one object at any depth, and
// only that: the same key in sibling objects, or a value spelled as a key,
// is no duplicate.
func TestDuplicateKey(t *testing.T) {
	cases := []struct {
		json, key string
	}{
		{`{"a": 1, "b": 2}`, ""},
		{`{"a": 1, "a": 2}`, "a"},
		{`{"a": "b", "b": 1}`, ""},
		{`{"x": {"a": 1}, "y": {"a": 1}}`, ""},
		{`[{"a": 1}, {"a": 2}]`, ""},
		{`{"x": [{"a": 1, "b": [1, {"c": 2}], "a": 3}]}`, "a"},
		{`{"x": [1, 2], "y": {}, "x": 0}`, "x"},
		{`{"x": {"a": {"b": 1}}, "y": 2, "z": {"b": 1, "b": 2}}`, "b"},
		{`{"a": 1,`, ""},
	}
	for _, c := range cases {
		key, dup := duplicateKey([]byte(c.json))
		if key != c.key || dup != (c.key != "") {
			t.Errorf("%s: duplicate %q %v, want %q", c.json, key, dup, c.key)
		}
	}
}
