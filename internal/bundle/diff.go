package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
)

// firstDifference compares two evidence documents as JSON values and names
// the first field that differs.
func firstDifference(a, b any) string {
	if reflect.DeepEqual(a, b) { // equal values encode alike: the common case, without encoding both
		return ""
	}
	var x, y any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if bytes.Equal(ja, jb) {
		return ""
	}
	_ = json.Unmarshal(ja, &x) // both were marshalled just above: they parse
	_ = json.Unmarshal(jb, &y)
	return diffPath("", x, y)
}

func diffPath(path string, x, y any) string {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok {
			return path
		}
		keys := map[string]bool{}
		for k := range xv {
			keys[k] = true
		}
		for k := range yv {
			keys[k] = true
		}
		names := make([]string, 0, len(keys))
		for k := range keys {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			if d := diffPath(path+"."+k, xv[k], yv[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Sprintf("%s (%v vs %v)", path, short(x), short(y))
		}
		for i := range xv {
			if d := diffPath(fmt.Sprintf("%s[%d]", path, i), xv[i], yv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(x, y) {
		return fmt.Sprintf("%s (%v in evidence.json, %v re-derived)", path, short(x), short(y))
	}
	return ""
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
