package records

import (
	"strings"
	"testing"
)

// duplicateKey finds a key given twice in one object at any depth, and
// only that: the same key in sibling objects, or a value spelled as a key,
// is no duplicate; nor is one in the value of an exempt key (fio 3.1's
// "percentile" lists), at any depth below it, while the same duplicate
// elsewhere still is.
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
		{`{"clat": {"percentile": {"0.00": 0, "0.00": 0}}}`, ""},
		{`{"percentile": [{"x": {"a": 1, "a": 2}}]}`, ""},
		{`{"clat": {"percentile": {"0.00": 0}, "other": {"0.00": 0, "0.00": 0}}}`, "0.00"},
		{`{"percentile": {}, "percentile": {}}`, "percentile"},
	}
	for _, c := range cases {
		key, dup := duplicateKey(strings.NewReader(c.json), "percentile")
		if key != c.key || dup != (c.key != "") {
			t.Errorf("%s: duplicate %q %v, want %q", c.json, key, dup, c.key)
		}
	}
}
